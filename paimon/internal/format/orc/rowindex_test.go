package orc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
)

// allFields maps every column of f that has a Paimon type.
func allFields(t testing.TB, f *File) ([]Field, *arrow.Schema) {
	var fields []Field
	var afs []arrow.Field
	for i := range f.names {
		pt, ok := paimonType(f, f.ids[i], 0)
		if !ok {
			continue
		}
		at, err := arrowconv.Type(pt)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, Field{Index: i, Type: pt, Arrow: at})
		afs = append(afs, arrow.Field{Name: f.names[i], Type: at, Nullable: true})
	}
	return fields, arrow.NewSchema(afs, nil)
}

// readStripe reads stripe s with o in batches of at most batch rows and
// returns the canonical JSON of each row by its stripe position, and the
// reader's count of skipped groups.
func readStripe(t testing.TB, f *File, s int, fields []Field, sch *arrow.Schema, o Options, batch int) (map[int64]string, int, error) {
	sr, err := f.OpenStripe(s, fields, o)
	if err != nil {
		return nil, 0, err
	}
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer bld.Release()
	bs := make([]array.Builder, len(fields))
	for i := range fields {
		bs[i] = bld.Field(i)
	}
	out := map[int64]string{}
	for sr.Rows() > 0 {
		n := int(min(sr.Contiguous(), int64(batch)))
		if n <= 0 {
			t.Fatalf("stripe %d: %d rows left, none contiguous", s, sr.Rows())
		}
		pos := sr.Pos()
		if err := sr.Read(bs, n); err != nil {
			return nil, 0, err
		}
		rec := bld.NewRecordBatch()
		lines, err := canon.Record(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range lines {
			if _, dup := out[pos+int64(i)]; dup {
				t.Fatalf("stripe %d: row %d returned twice", s, pos+int64(i))
			}
			out[pos+int64(i)] = l
		}
	}
	return out, sr.SkippedRowGroups(), nil
}

// Seeking to row-index positions, for every encoding the C++ writer
// produces (each codec with chunks smaller than a stripe's streams, RLE v1
// and v2, direct and dictionary strings, PRESENT streams, nested columns):
// whichever row groups are kept, every row returned is the row a full read
// has at the same stripe position, and exactly the kept groups' rows come
// back.
func TestRowGroupSeekAllEncodings(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/orc_all_*.orc")
	if len(paths) == 0 {
		t.Fatal("no ORC fixtures")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			stride := checkRowGroupSeeks(t, p)
			if stride > 64 {
				t.Fatalf("fixture row index stride %d: regenerate with gen_orc.py", stride)
			}
		})
	}
}

// checkRowGroupSeeks reads every stripe of the ORC file at path that has
// several row groups with each group alone, random sets of groups and none
// kept, in batches of 1000 and 7 rows, and checks every row returned
// against the full read at the same stripe position. It returns the file's
// row index stride.
func checkRowGroupSeeks(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fields, sch := allFields(t, f)
	stride := int64(f.ft.rowStride)
	if stride == 0 {
		t.Fatal("no row index stride")
	}
	r := rand.New(rand.NewPCG(14, uint64(len(b))))
	multi := 0
	for s := 0; s < f.NumStripes(); s++ {
		full, _, err := readStripe(t, f, s, fields, sch, Options{LegacyTimestampLTZ: true}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		rows := f.StripeRows(s)
		groups := int((rows + stride - 1) / stride)
		if groups < 2 {
			continue
		}
		multi++
		patterns := [][]bool{}
		for g := 0; g < groups; g++ { // each group alone
			k := make([]bool, groups)
			k[g] = true
			patterns = append(patterns, k)
		}
		for try := 0; try < 6; try++ {
			k := make([]bool, groups)
			for g := range k {
				k[g] = r.IntN(2) == 0
			}
			patterns = append(patterns, k)
		}
		patterns = append(patterns, make([]bool, groups))
		for pi, keep := range patterns {
			asked := 0
			o := Options{LegacyTimestampLTZ: true, KeepRowGroup: func(g RowGroup) bool {
				asked++
				if g.Stripe != s || g.Rows != min(stride, rows-int64(g.Group)*stride) {
					t.Fatalf("row group %+v of stripe %d", g, s)
				}
				return keep[g.Group]
			}}
			for _, batch := range []int{1000, 7} {
				asked = 0
				got, skipped, err := readStripe(t, f, s, fields, sch, o, batch)
				if err != nil {
					t.Fatalf("stripe %d pattern %d: %v", s, pi, err)
				}
				if asked != groups {
					t.Fatalf("stripe %d: asked about %d of %d groups", s, asked, groups)
				}
				want := 0
				for g, k := range keep {
					if !k {
						continue
					}
					for pos := int64(g) * stride; pos < min(int64(g+1)*stride, rows); pos++ {
						want++
						if got[pos] != full[pos] {
							t.Fatalf("stripe %d pattern %v batch %d: row %d\n got %s\nwant %s", s, keep, batch, pos, got[pos], full[pos])
						}
					}
				}
				if len(got) != want {
					t.Fatalf("stripe %d pattern %v: %d rows, want %d", s, keep, len(got), want)
				}
				if skipped != groups-countTrue(keep) {
					t.Fatalf("stripe %d: %d groups skipped, want %d", s, skipped, groups-countTrue(keep))
				}
			}
		}
	}
	if multi == 0 {
		t.Fatal("no stripe with several row groups: the test tests nothing")
	}
	return stride
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// The row-index statistics handed to KeepRowGroup bound every value of
// their group (what makes skipping safe): checked on the integer and
// string columns of the fixtures.
func TestRowGroupStatsBoundValues(t *testing.T) {
	b, err := os.ReadFile("../testdata/orc_all_zstd.orc")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fields, sch := allFields(t, f)
	known := 0
	for s := 0; s < f.NumStripes(); s++ {
		var groups []RowGroup
		o := Options{KeepRowGroup: func(g RowGroup) bool { groups = append(groups, g); return true }}
		sr, err := f.OpenStripe(s, fields, o)
		if err != nil {
			t.Fatal(err)
		}
		bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		bs := make([]array.Builder, len(fields))
		for i := range fields {
			bs[i] = bld.Field(i)
		}
		for _, g := range groups {
			if err := sr.Read(bs, int(g.Rows)); err != nil {
				t.Fatal(err)
			}
			rec := bld.NewRecordBatch()
			for i := range fields {
				col := rec.Column(i)
				if g.Nulls[i] != nil && int64(col.NullN()) != *g.Nulls[i] {
					t.Errorf("stripe %d group %d column %s: %d nulls, stats say %d", s, g.Group, sch.Field(i).Name, col.NullN(), *g.Nulls[i])
				}
				if g.Min[i] == nil {
					continue
				}
				known++
				for j := 0; j < col.Len(); j++ {
					if col.IsNull(j) {
						continue
					}
					v := fmt.Sprint(col.GetOneForMarshal(j))
					var in bool
					switch lo := g.Min[i].(type) {
					case string:
						in = lo <= v && v <= g.Max[i].(string)
					default:
						in = cmpNum(lo, col, j) <= 0 && cmpNum(g.Max[i], col, j) >= 0
					}
					if !in {
						t.Errorf("stripe %d group %d column %s: value %s outside [%v, %v]", s, g.Group, sch.Field(i).Name, v, g.Min[i], g.Max[i])
					}
				}
			}
			rec.Release()
		}
		bld.Release()
	}
	if known == 0 {
		t.Fatal("no row group statistics known: the test tests nothing")
	}
}

// cmpNum compares an integer bound with value j of an integer column.
func cmpNum(bound any, col arrow.Array, j int) int {
	var b, v int64
	switch x := bound.(type) {
	case int8:
		b = int64(x)
	case int16:
		b = int64(x)
	case int32:
		b = int64(x)
	case int64:
		b = x
	default:
		b = reflectInt(x)
	}
	switch c := col.(type) {
	case *array.Int8:
		v = int64(c.Value(j))
	case *array.Int16:
		v = int64(c.Value(j))
	case *array.Int32:
		v = int64(c.Value(j))
	case *array.Int64:
		v = c.Value(j)
	case *array.Date32:
		v = int64(c.Value(j))
	case *array.Time32:
		v = int64(c.Value(j))
	default:
		panic(fmt.Sprintf("bound %T for %T", bound, col))
	}
	return cmpI(b, v)
}

func cmpI(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// reflectInt is an integer-kinded bound (types.DateValue, TimeValue).
func reflectInt(x any) int64 { return reflect.ValueOf(x).Int() }

// A corrupt row index (flipped bytes in the index area of every stripe, or
// positions beyond their streams) ends in an error, never a panic or rows
// from the wrong place without an error being possible to tell: the test
// requires no panic and that errors wrap ErrCorrupt when they are about
// bytes.
func TestCorruptRowIndex(t *testing.T) {
	for _, name := range []string{"orc_all_zstd.orc", "orc_all_none.orc", "orc_all_v11.orc"} {
		b, err := os.ReadFile(filepath.Join("../testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		var idx [][2]uint64
		for _, si := range f.ft.stripes {
			idx = append(idx, [2]uint64{si.offset, si.indexLength})
		}
		f.Close()
		r := rand.New(rand.NewPCG(3, 4))
		errs := 0
		for try := 0; try < 100; try++ {
			c := slices.Clone(b)
			for _, ix := range idx {
				if ix[1] == 0 {
					continue
				}
				k := ix[0] + r.Uint64N(ix[1])
				c[k] ^= byte(1 + r.IntN(255))
			}
			_, err := decodeAll(c)
			if err != nil {
				errs++
				if !errors.Is(err, ErrCorrupt) && !isCodecErr(err) {
					t.Errorf("%s try %d: error not marked corrupt: %v", name, try, err)
				}
			}
		}
		if errs == 0 {
			t.Errorf("%s: no corruption of the row index was noticed", name)
		}
	}
}

// isCodecErr: a codec's own error on corrupt bytes (zstd, flate) names the
// codec; the format layer marks it permanent either way.
func isCodecErr(err error) bool {
	for _, c := range []string{"zstd", "zlib", "snappy", "lz4"} {
		if bytes.Contains([]byte(err.Error()), []byte(c+":")) {
			return true
		}
	}
	return false
}
