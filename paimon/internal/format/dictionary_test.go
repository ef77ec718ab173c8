package format

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// chunkPages counts, over every row group of leaf column col, the data
// pages written dictionary-encoded and PLAIN.
func chunkPages(t *testing.T, path string, col int) (groups, dict, plain int) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for g := 0; g < pf.NumRowGroups(); g++ {
		cc, err := pf.MetaData().RowGroup(g).ColumnChunk(col)
		if err != nil {
			t.Fatal(err)
		}
		if !cc.HasDictionaryPage() {
			t.Fatalf("row group %d column %d has no dictionary page", g, col)
		}
		// The thrift footer, for the page counts arrow-go's accessor drops.
		for _, st := range pf.MetaData().FileMetaData.RowGroups[g].Columns[col].MetaData.EncodingStats {
			if st.PageType != 0 && st.PageType != 3 { // DATA_PAGE, DATA_PAGE_V2
				continue
			}
			switch parquet.Encoding(st.Encoding) {
			case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
				dict += int(st.Count)
			case parquet.Encodings.Plain:
				plain += int(st.Count)
			}
		}
	}
	return pf.NumRowGroups(), dict, plain
}

// Dictionary-encoded columns (pyarrow's writer, testdata/gen_dict.py) read
// exactly as pyarrow reads them: with nulls, across row groups with
// different dictionaries, through the fallback to PLAIN pages in the middle
// of a column chunk, and inside nested columns; in batches smaller and
// larger than a row group.
func TestDictionaryColumns(t *testing.T) {
	path := testdata("dictionary.parquet")
	fields := loadFields(t, "dictionary.fields.json")
	want := expectedLines(t, "dictionary.parquet.expected.jsonl")

	// The file has the shape the test is about.
	groups, dict, plain := chunkPages(t, path, 0) // id: distinct values
	if groups != 3 || dict == 0 || plain == 0 {
		t.Fatalf("id: %d row groups, %d dictionary and %d plain pages; want 3 groups and both kinds", groups, dict, plain)
	}
	if _, dict, plain := chunkPages(t, path, 1); dict == 0 || plain != 0 { // i: 3,000 distinct, nulls
		t.Fatalf("i: %d dictionary and %d plain pages; want dictionary pages only", dict, plain)
	}
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for leaf := 0; leaf < pf.MetaData().Schema.NumColumns(); leaf++ {
		cc, err := pf.MetaData().RowGroup(0).ColumnChunk(leaf)
		if err != nil {
			t.Fatal(err)
		}
		if !cc.HasDictionaryPage() {
			t.Errorf("leaf %s is not dictionary-encoded", pf.MetaData().Schema.Column(leaf).Path())
		}
	}
	pf.Close()

	for _, batch := range []int{0, 1000, 4001} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			compareRows(t, readAll(t, path, Options{Fields: fields, BatchSize: batch}), want)
		})
	}
}

// With Options.Dictionary, the top-level string columns whose every chunk
// is dictionary-encoded come back as dictionary arrays (dictColumn) and the
// others (PLAIN fallback pages, nested leaves, non-string columns) plain,
// with the same rows as pyarrow's read, in V1 and V2 data pages, and
// through a deletion vector.
func TestDictionaryArrays(t *testing.T) {
	fields := loadFields(t, "dictionary.fields.json")
	want := expectedLines(t, "dictionary.parquet.expected.jsonl")
	all := make([]bool, len(fields))
	for i := range all {
		all[i] = true
	}
	for _, name := range []string{"dictionary.parquet", "dictionary_v2.parquet"} {
		path := testdata(name)
		if v2 := firstDataPageType(t, path, 5) == 3; v2 != (name == "dictionary_v2.parquet") {
			t.Fatalf("%s: V2 data pages %v", name, v2)
		}
		// Which leaves are dictionary-only, from the footer's page counts
		// (leaves 0..5 are the top-level columns id, i, s, dec, d, tag).
		wantDict := make([]bool, len(fields))
		sawDict, sawFallback := false, false
		for leaf, f := range fields[:6] {
			if f.Type.Root != types.VarChar {
				continue
			}
			_, dict, plain := chunkPages(t, path, leaf)
			wantDict[leaf] = dict > 0 && plain == 0
			sawDict = sawDict || wantDict[leaf]
			sawFallback = sawFallback || plain > 0
		}
		if !sawDict || !sawFallback {
			t.Fatalf("%s should hold a dictionary-only and a fallback string column: %v", name, wantDict)
		}
		for _, batch := range []int{0, 1000, 4001, 7} {
			t.Run(fmt.Sprintf("%s/batch=%d", name, batch), func(t *testing.T) {
				got, dict := readAllDict(t, path, Options{Fields: fields, BatchSize: batch, Dictionary: all})
				compareRows(t, got, want)
				for i := range fields {
					if dict[i] != wantDict[i] {
						t.Errorf("column %s: dictionary %v, want %v", fields[i].Name, dict[i], wantDict[i])
					}
				}
			})
		}
		t.Run(name+"/deletion vector", func(t *testing.T) {
			del := everyThird{}
			plain := readAll(t, path, Options{Fields: fields, Deleted: del})
			got, dict := readAllDict(t, path, Options{Fields: fields, Deleted: del, Dictionary: all})
			compareRows(t, got, plain)
			if len(plain) != len(want)-(len(want)+2)/3 || !slices.Contains(dict, true) {
				t.Fatalf("%d rows after the deletion vector (of %d); dictionaries %v", len(plain), len(want), dict)
			}
		})
		t.Run(name+"/dictionary column only", func(t *testing.T) {
			tag := fields[5:6]
			got, dict := readAllDict(t, path, Options{Fields: tag, Dictionary: []bool{true}})
			compareRows(t, got, readAll(t, path, Options{Fields: tag}))
			if !dict[0] {
				t.Fatal("tag was not read as a dictionary")
			}
		})
	}
}

// The FIXED_LEN_BYTE_ARRAY decimals whose chunks are dictionary-encoded
// throughout (dec1, dec4, dec8, dec16: widths 1, 4, 8 and 16, nulls,
// negatives, each precision's extremes) are read by the decimal dictionary
// path, with and without Options.Dictionary, and come back as the plain
// Decimal128 arrays pyarrow reads, alone (no pqarrow column beside them)
// and among the others; so is dec, whose dictionary outgrows its page
// limit and falls back to PLAIN pages mid-chunk.
func TestDictionaryDecimals(t *testing.T) {
	fields := loadFields(t, "dictionary.fields.json")
	want := expectedLines(t, "dictionary.parquet.expected.jsonl")
	all := make([]bool, len(fields))
	for i := range all {
		all[i] = true
	}
	var decs []int
	for i, f := range fields {
		if strings.HasPrefix(f.Name, "dec") && f.Name != "dec" {
			decs = append(decs, i)
		}
	}
	if len(decs) != 4 {
		t.Fatalf("decimal columns %v", decs)
	}
	for _, name := range []string{"dictionary.parquet", "dictionary_v2.parquet"} {
		path := testdata(name)
		t.Run(name, func(t *testing.T) {
			for _, dictOpt := range [][]bool{nil, all} {
				r, err := Open(context.Background(), localIO(t), path, Options{Fields: fields, Dictionary: dictOpt})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range r.(*parquetReader).dicts {
					if c.dec != nil {
						got = append(got, fields[c.field].Name)
					}
				}
				r.Close()
				if !slices.Equal(got, []string{"dec", "dec1", "dec4", "dec8", "dec16"}) {
					t.Fatalf("Dictionary %v: decimal dictionary columns %v", dictOpt != nil, got)
				}
				for _, batch := range []int{0, 7, 1000} {
					rows, dict := readAllDict(t, path, Options{Fields: fields, BatchSize: batch, Dictionary: dictOpt})
					compareRows(t, rows, want)
					for _, i := range decs {
						if dict[i] {
							t.Fatalf("%s came back as a dictionary array", fields[i].Name)
						}
					}
				}
			}
			// The decimals alone: every column is read outside pqarrow, so
			// batches are cut by row count (nextOwnOnly).
			only := make([]types.DataField, 0, len(decs))
			wantOnly := make([]string, 0, len(want))
			for _, i := range decs {
				only = append(only, fields[i])
			}
			for _, line := range want {
				wantOnly = append(wantOnly, projectLine(t, line, only))
			}
			compareRows(t, readAll(t, path, Options{Fields: only, BatchSize: 1000}), wantOnly)
			var kept []string
			for pos, line := range wantOnly {
				if !(everyThird{}).IsDeleted(int64(pos)) {
					kept = append(kept, line)
				}
			}
			compareRows(t, readAll(t, path, Options{Fields: only, Deleted: everyThird{}}), kept)
		})
	}
}

// projectLine keeps the fields of one canonical JSON line of expected rows.
func projectLine(t *testing.T, line string, fields []types.DataField) string {
	t.Helper()
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &all); err != nil {
		t.Fatal(err)
	}
	keep := map[string]json.RawMessage{}
	for _, f := range fields {
		keep[f.Name] = all[f.Name]
	}
	b, err := json.Marshal(keep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDataPageType is the thrift page type of the first data page of leaf
// col in row group 0, read from the page header (parquet-cpp's encoding
// statistics say DATA_PAGE for V2 pages too). The header's first field is
// the type: compact protocol 0x15 (field 1, i32), then a zigzag varint.
func firstDataPageType(t *testing.T, path string, col int) int {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(col)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hdr := raw[cc.DataPageOffset():]
	if hdr[0] != 0x15 {
		t.Fatalf("page header starts with %#x", hdr[0])
	}
	return int(hdr[1] >> 1) // zigzag of a small non-negative value
}

// The hybrid decoder never panics and never reads past its input, whatever
// the bytes; values it returns fit the bit width.
func FuzzDecodeHybrid(f *testing.F) {
	f.Add([]byte{0x06, 0x03}, uint8(2), uint16(3))             // RLE run of 3 × 3
	f.Add([]byte{0x03, 0x88, 0xc6, 0xfa}, uint8(3), uint16(8)) // one bit-packed group: 0..7
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, uint8(32), uint16(100))
	f.Fuzz(func(t *testing.T, src []byte, bw uint8, n uint16) {
		out := make([]int32, n)
		if err := decodeHybrid(src, int(bw%33), out); err != nil {
			return
		}
		if w := bw % 33; w < 32 {
			for _, v := range out {
				if uint32(v)>>w != 0 {
					t.Fatalf("value %d wider than %d bits", v, w)
				}
			}
		}
	})
}

// unpackBits against the plain definition of bit packing, least significant
// bit first, for every width, counts around the 8-byte load's edge, and
// inputs with and without trailing bytes.
func TestUnpackBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for bw := 0; bw <= 32; bw++ {
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000} {
			for _, extra := range []int{0, 1, 8} {
				src := make([]byte, (n*bw+7)/8+extra)
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				got := make([]int32, n)
				unpackBits(src, bw, 0, got)
				for j := range got {
					var v uint64
					for b := 0; b < bw; b++ {
						bit := j*bw + b
						v |= uint64(src[bit/8]>>(bit%8)&1) << b
					}
					if uint32(got[j]) != uint32(v) {
						t.Fatalf("width %d, %d values (+%d bytes): value %d is %d, want %d", bw, n, extra, j, uint32(got[j]), v)
					}
				}
			}
		}
	}
}

// Known encodings: an RLE run, a bit-packed group (the example of the
// Parquet spec: 0..7 at width 3), and a run cut short by the value count.
func TestDecodeHybrid(t *testing.T) {
	for _, c := range []struct {
		src  []byte
		bw   int
		want []int32
	}{
		{[]byte{0x06, 0x03}, 2, []int32{3, 3, 3}},
		{[]byte{0x03, 0x88, 0xc6, 0xfa}, 3, []int32{0, 1, 2, 3, 4, 5, 6, 7}},
		{[]byte{0x03, 0x88, 0xc6, 0xfa}, 3, []int32{0, 1, 2}},
		{[]byte{0x04, 0x01, 0x03, 0xff}, 1, []int32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{[]byte{0x0a, 0x34, 0x12}, 16, []int32{0x1234, 0x1234, 0x1234, 0x1234, 0x1234}},
		{[]byte{0x06}, 0, []int32{0, 0, 0}},
		{[]byte{0x03}, 0, []int32{0, 0, 0, 0, 0}}, // parquet-java's width-0 bit-packed group
	} {
		got := make([]int32, len(c.want))
		if err := decodeHybrid(c.src, c.bw, got); err != nil {
			t.Fatalf("%x width %d: %v", c.src, c.bw, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%x width %d: %v, want %v", c.src, c.bw, got, c.want)
		}
	}
	for _, bad := range [][]byte{{}, {0x06}, {0x03, 0x88}, {0x80}} {
		if err := decodeHybrid(bad, 3, make([]int32, 4)); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
}

// everyThird deletes the rows at positions divisible by 3.
type everyThird struct{}

func (everyThird) IsDeleted(pos int64) bool { return pos%3 == 0 }

// BenchmarkUnpackBits unpacks 64 Ki indices of a 16-bit-wide page (a
// 50,000-entry dictionary's width).
func BenchmarkUnpackBits(b *testing.B) {
	const n, bw = 1 << 16, 16
	src := make([]byte, n*bw/8)
	for i := range src {
		src[i] = byte(i * 131)
	}
	out := make([]int32, n)
	b.SetBytes(n * 4)
	for b.Loop() {
		unpackBits(src, bw, 0, out)
	}
}

// A footer whose row count for a row group disagrees with what its column
// chunks hold fails the read, naming the file, instead of ending the row
// group short or reading past the footer's count: with the dictionary
// columns decoded beside pqarrow's (which are read for the rows the footer
// promises) and without them.
func TestFooterRowCountBeyondColumns(t *testing.T) {
	for _, delta := range []int64{3, -3} {
		t.Run(fmt.Sprintf("footer %+d", delta), func(t *testing.T) { footerRowCountOff(t, delta) })
	}
}

func footerRowCountOff(t *testing.T, delta int64) {
	src := testdata("dictionary.parquet")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.OpenParquetFile(src, false)
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	pf.Close()
	if len(md.FileMetaData.RowGroups) < 2 {
		t.Fatalf("want a file of several row groups, got %d", len(md.FileMetaData.RowGroups))
	}
	footerLen := int(binary.LittleEndian.Uint32(orig[len(orig)-8:]))
	body := orig[:len(orig)-8-footerLen]
	md.FileMetaData.RowGroups[0].NumRows += delta
	md.FileMetaData.NumRows += delta
	var buf bytes.Buffer
	buf.Write(body)
	n, err := md.WriteTo(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(n)))
	buf.WriteString("PAR1")
	path := filepath.Join(t.TempDir(), "long_footer.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	fields := loadFields(t, "dictionary.fields.json")
	all := make([]bool, len(fields))
	for i := range all {
		all[i] = true
	}
	// Which columns each read decodes outside pqarrow, so every way of
	// reading a row group is the one the case names.
	for name, c := range map[string]struct {
		opts     Options
		own, any bool // own: every column outside pqarrow; any: some
	}{
		"dictionary arrays beside pqarrow": {Options{Fields: fields, Dictionary: all}, false, true},
		"pqarrow only":                     {Options{Fields: fields[2:3]}, false, false}, // s, without Dictionary
		"own columns only":                 {Options{Fields: fields[:2]}, true, true},    // id (with PLAIN fallback), i
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r, err := Open(ctx, localIO(t), path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			pr := r.(*parquetReader)
			if own, any := len(pr.leaves) == 0, pr.hasOwn(); own != c.own || any != c.any {
				t.Fatalf("columns outside pqarrow: all %v, some %v; want %v, %v", own, any, c.own, c.any)
			}
			rows := 0
			for {
				rec, err := r.Next(ctx)
				if err == nil {
					rows += int(rec.NumRows())
					rec.Release()
					continue
				}
				if errors.Is(err, io.EOF) {
					t.Fatalf("read ended after %d rows without an error", rows)
				}
				if !strings.Contains(err.Error(), "long_footer.parquet") || !strings.Contains(err.Error(), "corrupt") {
					t.Fatalf("error does not name the file as corrupt: %v", err)
				}
				return
			}
		})
	}
}
