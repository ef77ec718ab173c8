package format

import (
	"sort"
	"testing"
)

// Every ORC encoding pyarrow's (C++) writer produces — RLE v1 (file version
// 0.11) and v2, direct and dictionary strings, each compression codec —
// decodes to the rows ORC's C++ reader returns from the same bytes.
func TestORCAllTypesAllVariants(t *testing.T) {
	fields := loadFields(t, "orc_all.fields.json")
	want := expectedLines(t, "orc_all.expected.jsonl")
	for _, v := range []string{"zstd", "zlib", "snappy", "lz4", "none", "v11", "dict"} {
		t.Run(v, func(t *testing.T) {
			for _, bs := range []int{0, 7, 100} {
				got := readAll(t, testdata("orc_all_"+v+".orc"), Options{Fields: fields, BatchSize: bs})
				compareRows(t, sortedCopy(got), want)
			}
		})
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}
