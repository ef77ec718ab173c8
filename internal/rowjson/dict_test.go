package rowjson

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dictArray builds a dictionary array from a dictionary (values, nil = a
// null entry) and indices (-1 = a null row).
func dictArray(t *testing.T, mem memory.Allocator, index arrow.DataType, value arrow.DataType, entries []*string, idx []int) *array.Dictionary {
	t.Helper()
	vb := array.NewBuilder(mem, value)
	defer vb.Release()
	for _, e := range entries {
		switch {
		case e == nil:
			vb.AppendNull()
		case value.ID() == arrow.BINARY:
			vb.(*array.BinaryBuilder).Append([]byte(*e))
		default:
			vb.(*array.StringBuilder).Append(*e)
		}
	}
	dict := vb.NewArray()
	defer dict.Release()
	ib := array.NewBuilder(mem, index)
	defer ib.Release()
	for _, i := range idx {
		if i < 0 {
			ib.AppendNull()
			continue
		}
		if err := ib.AppendValueFromString(fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	indices := ib.NewArray()
	defer indices.Release()
	return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: index, ValueType: value}, indices, dict)
}

// plainOf decodes a dictionary array the way Arrow does (take), the
// reference rendering of every dictionary test.
func plainOf(t *testing.T, mem memory.Allocator, d *array.Dictionary) arrow.Array {
	t.Helper()
	out, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), d.Dictionary(), d.Indices())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// encodeWith encodes the one-column records through one encoder built for
// the plain schema, as the input does for a read that mixes dictionary and
// plain batches.
func encodeWith(t *testing.T, enc *Encoder, cols ...arrow.Array) [][]string {
	t.Helper()
	var out [][]string
	for _, c := range cols {
		f := enc.Schema().Field(0)
		f.Type = c.DataType()
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{f}, nil), []arrow.Array{c}, int64(c.Len()))
		if err := enc.Reset(rec); err != nil {
			t.Fatal(err)
		}
		var rows []string
		for i := 0; i < c.Len(); i++ {
			rows = append(rows, string(enc.AppendRow(nil, i)))
		}
		out = append(out, rows)
		rec.Release()
	}
	return out
}

func strp(s string) *string { return &s }

// A dictionary column renders exactly as its decoded plain column: nulls
// in the indices and in the dictionary, escapes, binary as base64, every
// index type, sliced arrays, and an empty dictionary.
func TestEncodeDictionaryMatchesPlain(t *testing.T) {
	entries := []*string{strp("a"), nil, strp(`q"uote\`), strp(""), strp("ok\xffend\u2028"), strp("é€😀"), strp("a")}
	idx := []int{0, 1, 2, -1, 3, 4, 5, 6, 0, 0, -1, 2}
	indexTypes := []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64}
	for _, value := range []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.Binary} {
		for _, index := range indexTypes {
			t.Run(value.String()+"/"+index.String(), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				d := dictArray(t, mem, index, value, entries, idx)
				defer d.Release()
				plain := plainOf(t, mem, d)
				defer plain.Release()
				sliced := array.NewSlice(d, 3, 10)
				defer sliced.Release()
				plainSliced := array.NewSlice(plain, 3, 10)
				defer plainSliced.Release()
				empty := dictArray(t, mem, index, value, nil, []int{-1, -1})
				defer empty.Release()
				plainEmpty := plainOf(t, mem, empty)
				defer plainEmpty.Release()

				enc, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: value, Nullable: true}}, nil))
				if err != nil {
					t.Fatal(err)
				}
				got := encodeWith(t, enc, d, sliced, d, empty, plain)
				want := encodeWith(t, enc, plain, plainSliced, plain, plainEmpty, plain)
				for b := range want {
					if strings.Join(got[b], "\n") != strings.Join(want[b], "\n") {
						t.Errorf("batch %d:\n got %q\nwant %q", b, got[b], want[b])
					}
				}
				if got[0][1] != `{"c":null}` || got[0][3] != `{"c":null}` {
					t.Errorf("null entry / null index rendered %s / %s", got[0][1], got[0][3])
				}
			})
		}
	}
}

// The cache follows the dictionary: batches sharing one (also through a
// filter, which wraps the same buffers in new array data) reuse it, and a
// different dictionary of the same length is rendered afresh; a large
// dictionary with random entries matches its plain rendering.
func TestEncodeDictionaryCacheAcrossBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rnd := rand.New(rand.NewSource(3))
	const n = 70000
	mk := func() *array.Dictionary {
		entries := make([]*string, n)
		for k := range entries {
			b := make([]byte, rnd.Intn(12))
			for j := range b {
				b[j] = byte(rnd.Intn(256))
			}
			entries[k] = strp(string(b))
		}
		idx := make([]int, 5000)
		for i := range idx {
			idx[i] = rnd.Intn(n)
			if i%17 == 0 {
				idx[i] = -1
			}
		}
		return dictArray(t, mem, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, entries, idx)
	}
	d1, d2 := mk(), mk()
	defer d1.Release()
	defer d2.Release()
	p1, p2 := plainOf(t, mem, d1), plainOf(t, mem, d2)
	defer p1.Release()
	defer p2.Release()
	mask := make([]bool, d1.Len())
	for i := range mask {
		mask[i] = i%3 != 0
	}
	mb := array.NewBooleanBuilder(mem)
	mb.AppendValues(mask, nil)
	m := mb.NewArray()
	mb.Release()
	defer m.Release()
	ctx := compute.WithAllocator(context.Background(), mem)
	f1, err := compute.FilterArray(ctx, d1, m, *compute.DefaultFilterOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer f1.Release()
	pf1, err := compute.FilterArray(ctx, p1, m, *compute.DefaultFilterOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer pf1.Release()
	if f1.Data().Dictionary() == d1.Data().Dictionary() {
		t.Fatal("the filtered array shares the dictionary data: the test would not exercise the buffer key")
	}

	enc, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	got := encodeWith(t, enc, d1, f1, d2, d1, p2, d2)
	want := encodeWith(t, enc, p1, pf1, p2, p1, p2, p2)
	for b := range want {
		if strings.Join(got[b], "\n") != strings.Join(want[b], "\n") {
			t.Fatalf("batch %d differs from its plain rendering", b)
		}
	}
	r1, rf := recordOf(d1), recordOf(f1)
	defer r1.Release()
	defer rf.Release()
	if err := enc.Reset(r1); err != nil {
		t.Fatal(err)
	}
	text := len(enc.dicts[0].text)
	if err := enc.Reset(rf); err != nil {
		t.Fatal(err)
	}
	if enc.dicts[0].spans == nil || len(enc.dicts[0].text) != text {
		t.Error("the filtered batch did not reuse the rendered dictionary")
	}
}

func recordOf(c arrow.Array) arrow.RecordBatch {
	return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "c", Type: c.DataType(), Nullable: true}}, nil), []arrow.Array{c}, int64(c.Len()))
}

// Corrupt indices fail Reset naming the row instead of rendering another
// value; a dictionary of another value type, or a schema that differs in
// more than dictionary encoding, is refused.
func TestEncodeDictionaryRefusals(t *testing.T) {
	mem := memory.NewGoAllocator()
	bad := dictArray(t, mem, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, []*string{strp("x")}, []int{0, 0})
	bad.Indices().(*array.Int32).Int32Values()[1] = 5
	enc, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Reset(recordOf(bad)); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("corrupt index: %v", err)
	}
	ok := dictArray(t, mem, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, []*string{strp("x")}, []int{0})
	binEnc, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := binEnc.Reset(recordOf(ok)); err == nil {
		t.Error("a string dictionary was accepted for a binary column")
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "d", Type: ok.DataType(), Nullable: true}}, nil)
	if err := enc.Reset(array.NewRecordBatch(other, []arrow.Array{ok}, 1)); err == nil {
		t.Error("a dictionary column of another name was accepted")
	}
	if _, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.PrimitiveTypes.Int64}}}, nil)); err == nil {
		t.Error("a dictionary of integers was accepted")
	}
	// A schema built with the dictionary type (the CLI's tail builds its
	// encoder from the record) encodes too.
	dictEnc, err := NewEncoder(recordOf(ok).Schema())
	if err != nil {
		t.Fatal(err)
	}
	if err := dictEnc.Reset(recordOf(ok)); err != nil {
		t.Fatal(err)
	}
	if got := string(dictEnc.AppendRow(nil, 0)); got != `{"c":"x"}` {
		t.Errorf("got %s", got)
	}
}

// BenchmarkEncodeDictionary is a string column of 8192 rows over a
// 1000-entry dictionary, against the same values as a plain column.
func BenchmarkEncodeDictionary(b *testing.B) {
	mem := memory.NewGoAllocator()
	entries := make([]*string, 1000)
	for k := range entries {
		entries[k] = strp(fmt.Sprintf("customer-%d \"x\"", k))
	}
	idx := make([]int, 8192)
	for i := range idx {
		idx[i] = i * 7 % 1000
	}
	t := &testing.T{}
	d := dictArray(t, mem, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, entries, idx)
	p := plainOf(t, mem, d)
	for _, c := range []arrow.Array{d, p} {
		b.Run(c.DataType().Name(), func(b *testing.B) {
			enc, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
			if err != nil {
				b.Fatal(err)
			}
			rec := recordOf(c)
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				if err := enc.Reset(rec); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < c.Len(); i++ {
					buf = enc.AppendRow(buf[:0], i)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.Len()), "ns/row")
		})
	}
}

// The cache is kept by the dictionary's bytes, not by which buffers hold
// them: memory that a pooled allocator (or arrow-go's own buffer pools)
// hands from a released dictionary to the next one, same buffer, same
// length, new bytes, must render the new entries; and a new dictionary with
// the same bytes keeps the rendered entries.
func TestEncodeDictionaryReusedBuffer(t *testing.T) {
	mem := memory.NewGoAllocator()
	d := dictArray(t, mem, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String,
		[]*string{strp("alpha"), strp("beta"), nil}, []int{0, 1, 2, -1, 1})
	enc, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"c":"alpha"}|{"c":"beta"}|{"c":null}|{"c":null}|{"c":"beta"}`
	if got := strings.Join(encodeWith(t, enc, d)[0], "|"); got != want {
		t.Fatalf("first batch %s, want %s", got, want)
	}
	// The batch is released and the next batch's dictionary is written into
	// the same memory, as a pooling allocator hands it on (the Go allocator
	// leaves it valid): new array data over the old bytes.
	var old [3][]byte
	for i, b := range d.Dictionary().Data().Buffers() {
		if b != nil {
			old[i] = b.Bytes()
		}
	}
	d.Release()
	copy(old[2], "gamma"+"delt")
	bufs := make([]*memory.Buffer, 3)
	for i, b := range old {
		if b != nil {
			bufs[i] = memory.NewBufferBytes(b)
		}
	}
	dict3 := array.MakeFromData(array.NewData(arrow.BinaryTypes.String, 3, bufs, nil, 1, 0))
	defer dict3.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{0, 1, 2, 0, 1}, []bool{true, true, true, false, true})
	indices := ib.NewArray()
	ib.Release()
	defer indices.Release()
	d3 := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, indices, dict3)
	defer d3.Release()
	want = `{"c":"gamma"}|{"c":"delt"}|{"c":null}|{"c":null}|{"c":"delt"}`
	if got := strings.Join(encodeWith(t, enc, d3)[0], "|"); got != want {
		t.Fatalf("after the dictionary's memory was reused: %s, want %s", got, want)
	}
	// The same entries in other buffers: the rendered entries are kept.
	d2 := dictArray(t, mem, arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String,
		[]*string{strp("gamma"), strp("delt"), nil}, []int{1})
	defer d2.Release()
	text := len(enc.dicts[0].text)
	if got := strings.Join(encodeWith(t, enc, d2)[0], "|"); got != `{"c":"delt"}` {
		t.Fatalf("same bytes in new buffers: %s", got)
	}
	if len(enc.dicts[0].text) != text {
		t.Error("a dictionary with the same bytes rendered its entries again")
	}
	// The very dictionary data again: a hit without comparing bytes.
	if got := strings.Join(encodeWith(t, enc, d2)[0], "|"); got != `{"c":"delt"}` || len(enc.dicts[0].text) != text {
		t.Errorf("the same dictionary data again: %s, %d bytes of rendered entries (want %d)", got, len(enc.dicts[0].text), text)
	}
}
