package orc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Java's ORC writer (resources/java JavaGen, the javagen.orc_maps* tables)
// chooses an encoding per stripe and string column, nested ones included:
// map keys and values, strings in lists, in maps inside lists and in rows.

const javaWarehouse = "../../../../resources/fixtures/warehouse/javagen.db"

func javaORCFiles(t *testing.T, table string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(javaWarehouse, table, "bucket-*", "*.orc"))
	if len(paths) == 0 {
		t.Fatalf("no ORC files of javagen.%s (resources/regen-fixtures.sh, group orcmaps)", table)
	}
	slices.Sort(paths)
	return paths
}

func openORC(t *testing.T, path string) *File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// nestedStrings is what the stripes of some files use for their string
// columns below the top level.
type nestedStrings struct {
	kinds       map[uint64]bool // column encodings seen
	overRows    bool            // a dictionary with more entries than its stripe has rows
	emptyDict   bool            // a dictionary of no entries (the stripe has no value there)
	dictColumns int             // (stripe, column) pairs with a dictionary
}

func scanNestedStrings(t *testing.T, paths []string) nestedStrings {
	t.Helper()
	ns := nestedStrings{kinds: map[uint64]bool{}}
	for _, p := range paths {
		f := openORC(t, p)
		parent := make([]int, len(f.ft.types))
		for i, ty := range f.ft.types {
			for _, s := range ty.subtypes {
				parent[s] = i
			}
		}
		for _, si := range f.ft.stripes {
			raw := make([]byte, si.footerLength)
			if err := f.readAt(raw, int64(si.offset+si.indexLength+si.dataLength)); err != nil {
				t.Fatal(err)
			}
			dec, err := f.d.decodeAll(raw, maxMetadata)
			if err != nil {
				t.Fatal(err)
			}
			sf, err := parseStripeFooter(dec)
			if err != nil {
				t.Fatal(err)
			}
			for id, ty := range f.ft.types {
				if ty.kind != kString || parent[id] == 0 {
					continue
				}
				e := sf.encodings[id]
				ns.kinds[e.kind] = true
				if e.kind == encDictionary || e.kind == encDictionaryV2 {
					ns.dictColumns++
					ns.overRows = ns.overRows || e.dictSize > si.numRows
					ns.emptyDict = ns.emptyDict || e.dictSize == 0
				}
			}
		}
		f.Close()
	}
	return ns
}

// The fixtures hold what they are meant to: every encoding at nested
// positions, dictionaries larger than their stripes' row counts (which the
// reader once took for corruption) and empty ones.
func TestJavaNestedStringEncodings(t *testing.T) {
	for _, tc := range []struct {
		table              string
		kinds              []uint64
		overRows, emptyDic bool
	}{
		{"orc_maps", []uint64{encDirectV2, encDictionaryV2}, true, true},
		{"orc_maps_direct", []uint64{encDirectV2}, false, false},
		{"orc_maps_dict", []uint64{encDictionaryV2}, true, true},
		{"orc_maps_v1", []uint64{encDirect, encDictionary}, true, true},
		{"orc_maps_idx", []uint64{encDirectV2, encDictionaryV2}, true, false},
	} {
		t.Run(tc.table, func(t *testing.T) {
			ns := scanNestedStrings(t, javaORCFiles(t, tc.table))
			var kinds []uint64
			for k := range ns.kinds {
				kinds = append(kinds, k)
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, tc.kinds) {
				t.Errorf("nested string encodings %v, want %v", kinds, tc.kinds)
			}
			if ns.overRows != tc.overRows || ns.emptyDict != tc.emptyDic {
				t.Errorf("dictionary over the stripe's rows %v (want %v), empty dictionary %v (want %v)", ns.overRows, tc.overRows, ns.emptyDict, tc.emptyDic)
			}
		})
	}
}

// readAllRows reads every stripe of the files with every column and
// returns the canonical JSON of the rows, sorted.
func readAllRows(t *testing.T, paths []string) []string {
	t.Helper()
	var out []string
	for _, p := range paths {
		f := openORC(t, p)
		fields, sch := allFields(t, f)
		for s := 0; s < f.NumStripes(); s++ {
			for _, batch := range []int{1000, 7} {
				rows, _, err := readStripe(t, f, s, fields, sch, Options{LegacyTimestampLTZ: true}, batch)
				if err != nil {
					t.Fatalf("%s stripe %d: %v", filepath.Base(p), s, err)
				}
				if batch == 7 {
					continue // the same rows, checked below
				}
				for pos := int64(0); pos < f.StripeRows(s); pos++ {
					out = append(out, rows[pos])
				}
			}
		}
		f.Close()
	}
	slices.Sort(out)
	return out
}

// The same rows written under each encoding choice read the same: the
// dictionary paths (v1 and v2, nested at every level, empty dictionaries)
// against the direct ones, in batches that split rows' entries apart.
func TestJavaNestedDictionariesReadAsDirect(t *testing.T) {
	want := readAllRows(t, javaORCFiles(t, "orc_maps_direct"))
	if len(want) != 300 {
		t.Fatalf("%d rows in orc_maps_direct, want 300", len(want))
	}
	if !strings.Contains(strings.Join(want, "\n"), `"mset":[["m`) {
		t.Fatal("no multiset entries read")
	}
	for _, table := range []string{"orc_maps", "orc_maps_dict", "orc_maps_v1"} {
		got := readAllRows(t, javaORCFiles(t, table))
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", table, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d\n got %s\nwant %s", table, i, got[i], want[i])
			}
		}
	}
}

// Row groups of a stripe whose nested columns are dictionary-encoded (a
// dictionary of more entries than the stripe has rows) are skipped and
// seeked to like any other.
func TestRowGroupSeekJavaNestedDictionaries(t *testing.T) {
	for _, p := range javaORCFiles(t, "orc_maps_idx") {
		if stride := checkRowGroupSeeks(t, p); stride != 1000 {
			t.Fatalf("row index stride %d, want 1000", stride)
		}
	}
}

// dictStripe is a stripe builder over uncompressed streams of column 0.
func dictStripe(t *testing.T, enc, size uint64, dict string, lengths, index []byte) *stripeBuilder {
	t.Helper()
	d, err := newDecompressor(compNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &stripeBuilder{f: &File{d: d}, sf: &stripeFooter{encodings: []encoding{{kind: enc, dictSize: size}}},
		data: map[streamKey][]byte{{0, sDictionaryData}: []byte(dict), {0, sLength}: lengths, {0, sData}: index}}
}

// A dictionary may have more entries than the stripe has rows (map keys),
// at most one of them empty: its size is bounded by its bytes.
func TestDictionaryEntriesBoundedByBytes(t *testing.T) {
	// RLE v1: lengths 1, 1, 1, 0 (a run of 3, a literal 0); indexes
	// 3, 2, 0, 1, 1, 3, 2 (a literal of 7).
	lengths := []byte{0x00, 0x00, 0x01, 0xff, 0x00}
	index := []byte{0xf9, 3, 2, 0, 1, 1, 3, 2}
	c, err := dictStripe(t, encDictionary, 4, "abc", lengths, index).dictionary(0, encDictionary, presence{}, adjustString{})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	if err := c.read(b, 7, nil); err != nil {
		t.Fatal(err)
	}
	a := b.NewStringArray()
	defer a.Release()
	var got []string
	for i := 0; i < a.Len(); i++ {
		got = append(got, a.Value(i))
	}
	if want := []string{"", "c", "a", "b", "b", "", "c"}; !slices.Equal(got, want) {
		t.Fatalf("read %q, want %q", got, want)
	}
	// Five distinct entries cannot fit three bytes; a huge size fails
	// before anything is allocated for it.
	for _, size := range []uint64{5, 1 << 40} {
		_, err := dictStripe(t, encDictionary, size, "abc", lengths, index).dictionary(0, encDictionary, presence{}, adjustString{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "entries in 3 bytes") {
			t.Errorf("size %d: %v, want a corrupt dictionary", size, err)
		}
	}
	// An empty dictionary (no value in the stripe) needs no streams.
	if _, err := dictStripe(t, encDictionaryV2, 0, "", nil, nil).dictionary(0, encDictionaryV2, presence{}, adjustString{}); err != nil {
		t.Fatal(err)
	}
}

// nullKeys is a column whose values are all NULL.
type nullKeys struct{}

func (nullKeys) read(b array.Builder, n int, _ []bool) error {
	b.AppendNulls(n)
	return nil
}
func (nullKeys) seek(*seeker) error { return nil }

// A NULL map key (a MULTISET's NULL element), which Java reads, is refused
// by name: an Arrow map cannot hold it.
func TestNullMapKeyRefused(t *testing.T) {
	d, err := newDecompressor(compNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &mapColumn{offsets: offsets{lengths: newIntReader(newStream(d, []byte{0xff, 0x02}), encDirect, false)},
		key: nullKeys{}, value: nullKeys{}}
	mb := array.NewMapBuilder(memory.DefaultAllocator, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, false)
	defer mb.Release()
	err = c.read(mb, 1, nil)
	if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "NULL key") {
		t.Fatalf("%v, want the NULL key refused", err)
	}
}
