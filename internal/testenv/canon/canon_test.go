package canon

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// The expected spellings in this file come from the table in docs/ARCHITECTURE.md and from
// Python 3.11 (repr / json.dumps / resources/pygen/canon.py), not from this package;
// TestMatchesCanonPy additionally has canon.py encode the same record.

func TestFloat(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{1.0, "1.0"}, {math.Copysign(0, -1), "-0.0"}, {0, "0.0"}, {0.1, "0.1"}, {1e16, "1e+16"},
		{1e15, "1000000000000000.0"}, {123456789012345678.0, "1.2345678901234568e+17"},
		{1e-4, "0.0001"}, {1e-5, "1e-05"}, {1.5e-7, "1.5e-07"}, {5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {float64(float32(1.1)), "1.100000023841858"},
		{-2.5, "-2.5"}, {100.0, "100.0"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"}, {9999999999999998.0, "9999999999999998.0"},
		{0.30000000000000004, "0.30000000000000004"}, {-1e-300, "-1e-300"}, {1e100, "1e+100"},
	}
	for _, c := range cases {
		if got := Float(c.v); got != c.want {
			t.Errorf("Float(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestQuoteMatchesPythonJSON(t *testing.T) {
	got := Quote("a\"b\\c\b\f\n\r\t\x01\x1f\x7f<&>\u2028 😀 é")
	want := "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\x7f<&>\u2028 😀 é\""
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestTimestamp(t *testing.T) {
	cases := []struct {
		v    int64
		unit arrow.TimeUnit
		utc  bool
		want string
	}{
		{-1, arrow.Nanosecond, false, "1969-12-31T23:59:59.999999999"},
		{-1, arrow.Microsecond, true, "1969-12-31T23:59:59.999999000Z"},
		{-1, arrow.Millisecond, false, "1969-12-31T23:59:59.999000000"},
		{-1, arrow.Second, false, "1969-12-31T23:59:59.000000000"},
		{253402300799, arrow.Second, true, "9999-12-31T23:59:59.000000000Z"},
		{253402300799999999, arrow.Microsecond, false, "9999-12-31T23:59:59.999999000"},
		{-62135596800000, arrow.Millisecond, false, "0001-01-01T00:00:00.000000000"},
		{1709208001123456789, arrow.Nanosecond, true, "2024-02-29T12:00:01.123456789Z"},
	}
	for _, c := range cases {
		if got := Timestamp(c.v, c.unit, c.utc); got != c.want {
			t.Errorf("Timestamp(%d, %s) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func fromJSON(t *testing.T, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	arr, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	if err != nil {
		t.Fatalf("build %s from %s: %v", dt, js, err)
	}
	return arr
}

// build appends vs (nil for null) to b and returns the array: for values JSON cannot spell
// (NaN, ±Inf, -0.0).
func build[T any](b interface {
	Append(T)
	AppendNull()
	NewArray() arrow.Array
	Release()
}, vs ...any) arrow.Array {
	defer b.Release()
	for _, v := range vs {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v.(T))
		}
	}
	return b.NewArray()
}

type column struct {
	name string
	arr  arrow.Array
	want []string // canonical JSON of each of the three rows
}

var (
	tsType  = func(u arrow.TimeUnit) arrow.DataType { return &arrow.TimestampType{Unit: u} }
	ltzType = func(u arrow.TimeUnit) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: "UTC"} }
)

// allTypes is one column per row of the canonical-JSON table (and per Arrow type the reader
// or pqarrow produces for it), three rows each: typical, null, edge.
func allTypes(t *testing.T, mem memory.Allocator) []column {
	nan, inf := math.NaN(), math.Inf(1)
	negZero := math.Copysign(0, -1)
	structType := arrow.StructOf(
		arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "a", Type: arrow.StructOf(
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "x", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		), Nullable: true},
	)
	return []column{
		{"bool", fromJSON(t, mem, arrow.FixedWidthTypes.Boolean, `[true, null, false]`),
			[]string{"true", "null", "false"}},
		{"i8", fromJSON(t, mem, arrow.PrimitiveTypes.Int8, `[-128, null, 127]`),
			[]string{"-128", "null", "127"}},
		{"i16", fromJSON(t, mem, arrow.PrimitiveTypes.Int16, `[-32768, null, 32767]`),
			[]string{"-32768", "null", "32767"}},
		{"i32", fromJSON(t, mem, arrow.PrimitiveTypes.Int32, `[-2147483648, null, 0]`),
			[]string{"-2147483648", "null", "0"}},
		{"i64", fromJSON(t, mem, arrow.PrimitiveTypes.Int64, `[-9223372036854775808, null, 9223372036854775807]`),
			[]string{"-9223372036854775808", "null", "9223372036854775807"}},
		{"u8", fromJSON(t, mem, arrow.PrimitiveTypes.Uint8, `[255, null, 0]`),
			[]string{"255", "null", "0"}},
		{"u64", fromJSON(t, mem, arrow.PrimitiveTypes.Uint64, `[18446744073709551615, null, 1]`),
			[]string{"18446744073709551615", "null", "1"}},
		{"f32", build[float32](array.NewFloat32Builder(mem), float32(1.1), nil, float32(math.Inf(-1))),
			[]string{`"1.100000023841858"`, "null", `"-Infinity"`}},
		{"f64", build[float64](array.NewFloat64Builder(mem), negZero, nil, nan),
			[]string{`"-0.0"`, "null", `"NaN"`}},
		{"f64b", build[float64](array.NewFloat64Builder(mem), inf, 1e16, 0.1),
			[]string{`"Infinity"`, `"1e+16"`, `"0.1"`}},
		{"dec", fromJSON(t, mem, &arrow.Decimal128Type{Precision: 10, Scale: 2}, `["12.30", null, "-0.05"]`),
			[]string{`"12.30"`, "null", `"-0.05"`}},
		{"dec3", fromJSON(t, mem, &arrow.Decimal128Type{Precision: 5, Scale: 3}, `["-0.001", null, "0"]`),
			[]string{`"-0.001"`, "null", `"0.000"`}},
		{"dec0", fromJSON(t, mem, &arrow.Decimal128Type{Precision: 38, Scale: 0},
			`["12345678901234567890123456789012345678", null, "-1"]`),
			[]string{`"12345678901234567890123456789012345678"`, "null", `"-1"`}},
		{"dec256", fromJSON(t, mem, &arrow.Decimal256Type{Precision: 40, Scale: 4},
			`["123456789012345678901234567890123456.7890", null, "1"]`),
			[]string{`"123456789012345678901234567890123456.7890"`, "null", `"1.0000"`}},
		{"str", fromJSON(t, mem, arrow.BinaryTypes.String, `["a\"b\\c\n\t\u0001<&>\u2028é😀", null, ""]`),
			[]string{`"a\"b\\c\n\t\u0001<&>` + "\u2028é😀" + `"`, "null", `""`}},
		{"lstr", fromJSON(t, mem, arrow.BinaryTypes.LargeString, `["日本", null, "x"]`),
			[]string{`"日本"`, "null", `"x"`}},
		{"bin", fromJSON(t, mem, arrow.BinaryTypes.Binary, `["AAEC/w==", null, ""]`),
			[]string{`"b64:AAEC/w=="`, "null", `"b64:"`}},
		{"fsb", fromJSON(t, mem, &arrow.FixedSizeBinaryType{ByteWidth: 3}, `["AQID", null, "////"]`),
			[]string{`"b64:AQID"`, "null", `"b64:////"`}},
		{"date", fromJSON(t, mem, arrow.FixedWidthTypes.Date32, `[0, null, -719162]`),
			[]string{`"1970-01-01"`, "null", `"0001-01-01"`}},
		{"date_b", fromJSON(t, mem, arrow.FixedWidthTypes.Date32, `[19782, -1, 2932896]`),
			[]string{`"2024-02-29"`, `"1969-12-31"`, `"9999-12-31"`}},
		{"time_ms", fromJSON(t, mem, arrow.FixedWidthTypes.Time32ms, `[45296789, null, 0]`),
			[]string{`"12:34:56.789"`, "null", `"00:00:00.000"`}},
		{"time_s", fromJSON(t, mem, arrow.FixedWidthTypes.Time32s, `[86399, null, 1]`),
			[]string{`"23:59:59.000"`, "null", `"00:00:01.000"`}},
		{"time_us", fromJSON(t, mem, arrow.FixedWidthTypes.Time64us, `[1001999, null, 86399999999]`),
			[]string{`"00:00:01.001"`, "null", `"23:59:59.999"`}},
		{"time_ns", fromJSON(t, mem, arrow.FixedWidthTypes.Time64ns, `[1999999999, null, 1]`),
			[]string{`"00:00:01.999"`, "null", `"00:00:00.000"`}},
		{"ts_s", fromJSON(t, mem, tsType(arrow.Second), `[253402300799, null, -62135596800]`),
			[]string{`"9999-12-31T23:59:59.000000000"`, "null", `"0001-01-01T00:00:00.000000000"`}},
		{"ts_ms", fromJSON(t, mem, tsType(arrow.Millisecond), `[1709208001123, null, -1]`),
			[]string{`"2024-02-29T12:00:01.123000000"`, "null", `"1969-12-31T23:59:59.999000000"`}},
		{"ts_us", fromJSON(t, mem, tsType(arrow.Microsecond), `[1709208001123456, null, -1]`),
			[]string{`"2024-02-29T12:00:01.123456000"`, "null", `"1969-12-31T23:59:59.999999000"`}},
		{"ts_ns", fromJSON(t, mem, tsType(arrow.Nanosecond), `[1709208001123456789, null, -1]`),
			[]string{`"2024-02-29T12:00:01.123456789"`, "null", `"1969-12-31T23:59:59.999999999"`}},
		{"ltz_s", fromJSON(t, mem, ltzType(arrow.Second), `[0, null, 1]`),
			[]string{`"1970-01-01T00:00:00.000000000Z"`, "null", `"1970-01-01T00:00:01.000000000Z"`}},
		{"ltz_ms", fromJSON(t, mem, ltzType(arrow.Millisecond), `[1709208001123, null, -1]`),
			[]string{`"2024-02-29T12:00:01.123000000Z"`, "null", `"1969-12-31T23:59:59.999000000Z"`}},
		{"ltz_us", fromJSON(t, mem, ltzType(arrow.Microsecond), `[253402300799999999, null, -1]`),
			[]string{`"9999-12-31T23:59:59.999999000Z"`, "null", `"1969-12-31T23:59:59.999999000Z"`}},
		{"ltz_ns", fromJSON(t, mem, ltzType(arrow.Nanosecond), `[1, null, -1]`),
			[]string{`"1970-01-01T00:00:00.000000001Z"`, "null", `"1969-12-31T23:59:59.999999999Z"`}},
		{"arr", fromJSON(t, mem, arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1, null, 3], null, []]`),
			[]string{"[1,null,3]", "null", "[]"}},
		{"larr", fromJSON(t, mem, arrow.LargeListOf(arrow.BinaryTypes.String), `[["a"], null, [null]]`),
			[]string{`["a"]`, "null", "[null]"}},
		{"vec", fromJSON(t, mem, arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32), `[[1.5, -2], null, [0, 0.25]]`),
			[]string{`["1.5","-2.0"]`, "null", `["0.0","0.25"]`}},
		// Entries are stored out of order; the canonical form sorts them by the key's JSON.
		{"map_si", fromJSON(t, mem, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32),
			`[[{"key": "b", "value": 2}, {"key": "a", "value": null}], null, []]`),
			[]string{`[["a",null],["b",2]]`, "null", "[]"}},
		// Sorted by the canonical JSON text of the key, so 10 before 9.
		{"map_is", fromJSON(t, mem, arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String),
			`[[{"key": 9, "value": "nine"}, {"key": 10, "value": "ten"}, {"key": -1, "value": null}], null, [{"key": 0, "value": ""}]]`),
			[]string{`[[-1,null],[10,"ten"],[9,"nine"]]`, "null", `[[0,""]]`}},
		// MULTISET<STRING> is MAP<STRING, INT> in Arrow.
		{"multiset", fromJSON(t, mem, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32),
			`[[{"key": "y", "value": 1}, {"key": "x", "value": 2}], null, []]`),
			[]string{`[["x",2],["y",1]]`, "null", "[]"}},
		{"map_nested", fromJSON(t, mem, arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOf(arrow.MapOf(arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Boolean))),
			`[[{"key": "k", "value": [[{"key": 2, "value": true}, {"key": 1, "value": false}], null]}], null, [{"key": "e", "value": []}]]`),
			[]string{`[["k",[[[1,false],[2,true]],null]]]`, "null", `[["e",[]]]`}},
		{"row", fromJSON(t, mem, structType,
			`[{"z": 1, "a": {"y": "why", "x": ["p", null]}}, null, {"z": null, "a": null}]`),
			[]string{`{"a":{"x":["p",null],"y":"why"},"z":1}`, "null", `{"a":null,"z":null}`}},
	}
}

func TestColumnEveryType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range allTypes(t, mem) {
		got, err := Column(c.arr)
		c.arr.Release()
		if err != nil {
			t.Errorf("%s (%s): %v", c.name, c.arr.DataType(), err)
			continue
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s (%s)\n got %q\nwant %q", c.name, c.arr.DataType(), got, c.want)
		}
	}
}

// Date64 (milliseconds) is not produced by the reader but pqarrow may hand it over.
func TestColumnDate64(t *testing.T) {
	arr := fromJSON(t, memory.DefaultAllocator, arrow.FixedWidthTypes.Date64, `[0, -86400000, 1709164800000, null]`)
	defer arr.Release()
	got, err := Column(arr)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"1970-01-01"`, `"1969-12-31"`, `"2024-02-29"`, "null"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Sliced arrays (what a reader hands out after a filter or a batch split) encode the rows of
// the slice, not those of the parent's offset 0.
func TestColumnSliced(t *testing.T) {
	mem := memory.DefaultAllocator
	for _, c := range allTypes(t, mem) {
		s := array.NewSlice(c.arr, 1, 3)
		got, err := Column(s)
		s.Release()
		c.arr.Release()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if strings.Join(got, "\n") != strings.Join(c.want[1:], "\n") {
			t.Errorf("%s sliced\n got %q\nwant %q", c.name, got, c.want[1:])
		}
	}
}

func TestUnsupportedTypeIsAnError(t *testing.T) {
	b := array.NewDurationBuilder(memory.DefaultAllocator, &arrow.DurationType{Unit: arrow.Second})
	b.Append(1)
	arr := b.NewArray()
	defer arr.Release()
	if _, err := Column(arr); err == nil || !strings.Contains(err.Error(), "duration") {
		t.Fatalf("got %v, want an error naming the Arrow type", err)
	}
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "d", Type: arr.DataType()}}, nil), []arrow.Array{arr}, 1)
	defer rec.Release()
	if _, err := Record(rec); err == nil || !strings.Contains(err.Error(), `column "d"`) {
		t.Fatalf("got %v, want an error naming the column", err)
	}
}

func record(t *testing.T, cols []column) arrow.RecordBatch {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.arr.DataType(), Nullable: true}
		arrs[i] = c.arr
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(cols[0].arr.Len()))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// A row is an object keyed by column name, keys in code-point order whatever the schema
// order, no spaces.
func TestRecordSortsKeys(t *testing.T) {
	mem := memory.DefaultAllocator
	rec := record(t, []column{
		{name: "b", arr: fromJSON(t, mem, arrow.PrimitiveTypes.Int32, `[1, null]`)},
		{name: "a", arr: fromJSON(t, mem, arrow.BinaryTypes.String, `["x", "y"]`)},
		{name: "é", arr: fromJSON(t, mem, arrow.FixedWidthTypes.Boolean, `[true, false]`)},
		{name: "B", arr: fromJSON(t, mem, arrow.ListOf(arrow.PrimitiveTypes.Int64), `[[], null]`)},
	})
	defer rec.Release()
	got, err := Record(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"B":[],"a":"x","b":1,"é":true}`,
		`{"B":null,"a":"y","b":null,"é":false}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Reader returns the lines of every batch, sorted.
func TestReaderSortsAcrossBatches(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}}, nil)
	var recs []arrow.RecordBatch
	for _, js := range []string{`[3, 1]`, `[2]`} {
		a := fromJSON(t, mem, arrow.PrimitiveTypes.Int32, js)
		recs = append(recs, array.NewRecordBatch(sch, []arrow.Array{a}, int64(a.Len())))
		a.Release()
	}
	rr, err := array.NewRecordReader(sch, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	got, err := Reader(rr)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"k":1} {"k":2} {"k":3}`; strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %s", got, want)
	}
}

// TestMatchesCanonPy has resources/pygen/canon.py, the Python half of the contract, encode the
// all-types record (written as an Arrow IPC file) and compares it line for line with Go.
func TestMatchesCanonPy(t *testing.T) {
	rec := record(t, allTypes(t, memory.DefaultAllocator))
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "all.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out := testenv.RunPypaimon(t, `
import sys
sys.path.insert(0, sys.argv[1])
import pyarrow as pa, canon
with pa.OSFile(sys.argv[2], "rb") as f:
    table = pa.ipc.open_file(f).read_all()
for line in canon.encode_table(table):
    print(line)
`, filepath.Join(testenv.RepoRoot(t), "resources", "pygen"), path)
	want := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	got, err := Record(rec)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if len(got) != len(want) {
		t.Fatalf("canon.py gave %d lines, Go %d", len(want), len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d\n  go %s\n  py %s", i, got[i], want[i])
		}
	}
}
