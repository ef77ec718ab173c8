package format

import (
	"sort"
	"sync/atomic"
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

// Row-group pruning inside ORC stripes keeps deletion-vector positions
// exact: with every third row-index group skipped (by RowGroupStats.RowGroup,
// which only the row-index level sets) and a deletion vector, the rows
// returned are exactly the full read's rows at the positions of kept,
// undeleted rows, in order.
func TestORCRowGroupSkipKeepsPositions(t *testing.T) {
	fields := loadFields(t, "orc_all.fields.json")
	for _, v := range []string{"zstd", "none", "v11", "dict"} {
		t.Run(v, func(t *testing.T) {
			path := testdata("orc_all_" + v + ".orc")
			full := readAll(t, path, Options{Fields: fields})
			del := posSet{}
			for p := 0; p < len(full); p += 5 {
				del[int64(p)] = true
			}
			const stride = 16
			var skipped atomic.Int64
			// Every stripe starts a new row index: group numbers restart, so
			// positions of kept rows are computed per stripe below.
			var stripeRows []int64
			filter := func(st RowGroupStats) bool {
				if st.RowGroup < 0 {
					for len(stripeRows) <= st.Index {
						stripeRows = append(stripeRows, 0)
					}
					stripeRows[st.Index] = st.NumRows
					return true
				}
				if st.RowGroup%3 == 1 {
					skipped.Add(1)
					return false
				}
				return true
			}
			for _, bs := range []int{0, 5} {
				skipped.Store(0)
				stripeRows = nil
				got := readAll(t, path, Options{Fields: fields, RowGroupFilter: filter, Deleted: del, BatchSize: bs})
				var want []string
				base := int64(0)
				for _, n := range stripeRows {
					for p := int64(0); p < n; p++ {
						if (p/stride)%3 != 1 && !del[base+p] {
							want = append(want, full[base+p])
						}
					}
					base += n
				}
				compareRows(t, got, want)
				if skipped.Load() == 0 || len(got) >= len(full)*3/4 {
					t.Fatalf("%d row groups skipped, %d of %d rows returned", skipped.Load(), len(got), len(full))
				}
			}
			// Without the row index, only stripes are pruned: nothing skipped.
			skipped.Store(0)
			stripeRows = nil
			got := readAll(t, path, Options{Fields: fields, RowGroupFilter: filter, NoRowIndex: true})
			if len(got) != len(full) || skipped.Load() != 0 {
				t.Fatalf("NoRowIndex: %d rows of %d, %d groups skipped", len(got), len(full), skipped.Load())
			}
		})
	}
}
