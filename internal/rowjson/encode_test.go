package rowjson

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// oneColumn builds a record with a single column "c" filled by fill and
// returns the JSON of each row.
func encodeColumn(t *testing.T, typ arrow.DataType, fill func(b array.Builder)) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: typ, Nullable: true}}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	fill(rb.Field(0))
	rec := rb.NewRecordBatch()
	defer rec.Release()
	return encodeAll(t, rec)
}

func encodeAll(t *testing.T, rec arrow.RecordBatch) []string {
	t.Helper()
	enc, err := NewEncoder(rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Reset(rec); err != nil {
		t.Fatal(err)
	}
	var out []string
	var buf []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		buf = enc.AppendRow(buf[:0], i)
		if !json.Valid(buf) {
			t.Errorf("row %d: invalid JSON %s", i, buf)
		}
		out = append(out, string(buf))
	}
	return out
}

func wantRows(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range want {
		if got[i] != `{"c":`+want[i]+`}` {
			t.Errorf("row %d: got %s, want {\"c\":%s}", i, got[i], want[i])
		}
	}
}

func TestEncodeIntegers(t *testing.T) {
	wantRows(t, encodeColumn(t, arrow.PrimitiveTypes.Int8, func(b array.Builder) {
		b.(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil)
		b.AppendNull()
	}), "-128", "127", "null")
	wantRows(t, encodeColumn(t, arrow.PrimitiveTypes.Int16, func(b array.Builder) {
		b.(*array.Int16Builder).AppendValues([]int16{-32768, 32767}, nil)
	}), "-32768", "32767")
	wantRows(t, encodeColumn(t, arrow.PrimitiveTypes.Int32, func(b array.Builder) {
		b.AppendNull()
		b.(*array.Int32Builder).AppendValues([]int32{math.MinInt32, 0}, nil)
	}), "null", "-2147483648", "0")
	// 2^53+1 is where a float64 round trip would go wrong.
	wantRows(t, encodeColumn(t, arrow.PrimitiveTypes.Int64, func(b array.Builder) {
		b.(*array.Int64Builder).AppendValues([]int64{math.MaxInt64, math.MinInt64, 9007199254740993}, nil)
	}), "9223372036854775807", "-9223372036854775808", "9007199254740993")
	// Unsigned integers are not in the library's mapping (Paimon has none),
	// so the encoder refuses them rather than pick a rendering.
	if _, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.PrimitiveTypes.Uint64}}, nil)); err == nil {
		t.Fatal("uint64 column accepted")
	}
}

func TestEncodeBoolean(t *testing.T) {
	wantRows(t, encodeColumn(t, arrow.FixedWidthTypes.Boolean, func(b array.Builder) {
		b.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		b.AppendNull()
	}), "true", "false", "null")
}

func TestEncodeFloats(t *testing.T) {
	wantRows(t, encodeColumn(t, arrow.PrimitiveTypes.Float64, func(b array.Builder) {
		b.(*array.Float64Builder).AppendValues([]float64{
			0.1, 1e21, 1e20, 1e-7, 123456.789, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), -2.5e-300,
		}, nil)
		b.AppendNull()
	}), "0.1", "1e+21", "100000000000000000000", "1e-7", "123456.789", `"NaN"`, `"Infinity"`, `"-Infinity"`, "-0", "-2.5e-300", "null")
	// FLOAT is rendered at 32-bit width: 0.1f prints as 0.1, not 0.10000000149011612.
	wantRows(t, encodeColumn(t, arrow.PrimitiveTypes.Float32, func(b array.Builder) {
		b.(*array.Float32Builder).AppendValues([]float32{0.1, math.MaxFloat32, 16777217, float32(math.NaN())}, nil)
	}), "0.1", "3.4028235e+38", "16777216", `"NaN"`)
}

func TestEncodeDecimal(t *testing.T) {
	wantRows(t, encodeColumn(t, &arrow.Decimal128Type{Precision: 10, Scale: 2}, func(b array.Builder) {
		db := b.(*array.Decimal128Builder)
		db.Append(decimal128.FromI64(1230))
		db.Append(decimal128.FromI64(-1))
		db.Append(decimal128.FromI64(0))
		db.AppendNull()
		db.Append(decimal128.FromI64(-123456))
	}), `"12.30"`, `"-0.01"`, `"0.00"`, "null", `"-1234.56"`)
	wantRows(t, encodeColumn(t, &arrow.Decimal128Type{Precision: 38, Scale: 0}, func(b array.Builder) {
		db := b.(*array.Decimal128Builder)
		n, _ := decimal128.FromString("99999999999999999999999999999999999999", 38, 0)
		db.Append(n)
		db.Append(n.Negate())
		db.Append(decimal128.FromI64(7))
	}), `"99999999999999999999999999999999999999"`, `"-99999999999999999999999999999999999999"`, `"7"`)
	wantRows(t, encodeColumn(t, &arrow.Decimal128Type{Precision: 38, Scale: 4}, func(b array.Builder) {
		db := b.(*array.Decimal128Builder)
		db.Append(decimal128.FromI64(math.MinInt64))
		db.Append(decimal128.New(0, 1<<63)) // 2^63: just past int64
		db.Append(decimal128.New(1, 0))     // 2^64
	}), `"-922337203685477.5808"`, `"922337203685477.5808"`, `"1844674407370955.1616"`)
}

func TestEncodeStrings(t *testing.T) {
	wantRows(t, encodeColumn(t, arrow.BinaryTypes.String, func(b array.Builder) {
		sb := b.(*array.StringBuilder)
		sb.Append(`a"b\c`)
		sb.Append("\n\t\r\x01\x1f")
		sb.Append("ok\xffend")
		sb.Append("é€😀")
		sb.Append("\u2028x\u2029")
		sb.Append("")
		sb.AppendNull()
		sb.Append("</script>&")
	}), `"a\"b\\c"`, `"\n\t\r\u0001\u001f"`, `"ok\ufffdend"`, `"é€😀"`, `"\u2028x\u2029"`, `""`, "null", `"</script>&"`)
}

func TestEncodeBinary(t *testing.T) {
	wantRows(t, encodeColumn(t, arrow.BinaryTypes.Binary, func(b array.Builder) {
		bb := b.(*array.BinaryBuilder)
		bb.Append([]byte{0, 1, 2, 255})
		bb.Append([]byte{})
		bb.AppendNull()
		bb.Append([]byte("hi"))
	}), `"AAEC/w=="`, `""`, "null", `"aGk="`)
}

func TestEncodeDateTime(t *testing.T) {
	wantRows(t, encodeColumn(t, arrow.FixedWidthTypes.Date32, func(b array.Builder) {
		b.(*array.Date32Builder).AppendValues([]arrow.Date32{0, -1, 19723, 2932896, -719162, -719528, 11016}, nil)
		b.AppendNull()
	}), `"1970-01-01"`, `"1969-12-31"`, `"2024-01-01"`, `"9999-12-31"`, `"0001-01-01"`, `"0000-01-01"`, `"2000-02-29"`, "null")
	wantRows(t, encodeColumn(t, arrow.FixedWidthTypes.Time32ms, func(b array.Builder) {
		b.(*array.Time32Builder).AppendValues([]arrow.Time32{0, 86399999, 3723004}, nil)
		b.AppendNull()
	}), `"00:00:00.000"`, `"23:59:59.999"`, `"01:02:03.004"`, "null")
	ts := func(unit arrow.TimeUnit, zone string, vs ...int64) []string {
		return encodeColumn(t, &arrow.TimestampType{Unit: unit, TimeZone: zone}, func(b array.Builder) {
			for _, v := range vs {
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			}
			b.AppendNull()
		})
	}
	wantRows(t, ts(arrow.Millisecond, "", 1704164645123, 0, -1),
		`"2024-01-02T03:04:05.123"`, `"1970-01-01T00:00:00.000"`, `"1969-12-31T23:59:59.999"`, "null")
	wantRows(t, ts(arrow.Microsecond, "", 1704164645000001, -1),
		`"2024-01-02T03:04:05.000001"`, `"1969-12-31T23:59:59.999999"`, "null")
	wantRows(t, ts(arrow.Nanosecond, "UTC", 1704164645123456789, -1),
		`"2024-01-02T03:04:05.123456789Z"`, `"1969-12-31T23:59:59.999999999Z"`, "null")
	wantRows(t, ts(arrow.Millisecond, "UTC", 1704164645123),
		`"2024-01-02T03:04:05.123Z"`, "null")
	// Seconds are not a unit the library produces (TIMESTAMP(0) is read
	// as milliseconds): TestEncodeRejectsUnmappedTypes checks they fail.
	// 0001-01-01T00:00:00 and 9999-12-31T23:59:59.999, the range Paimon writes.
	wantRows(t, ts(arrow.Millisecond, "", -62135596800000, 253402300799999),
		`"0001-01-01T00:00:00.000"`, `"9999-12-31T23:59:59.999"`, "null")
	// TIMESTAMP(7..9) read with wide timestamps: the nanosecond rendering,
	// also for the years an int64 of nanoseconds cannot hold.
	wide := func(ltz bool, vs ...types.TimestampValue) []string {
		// The reader's layout (paimon/internal/arrowconv.WideTimestamp):
		// epoch milliseconds and the nanoseconds within.
		wt := &types.WideTimestampType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.StructOf(
			arrow.Field{Name: "millis", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "nano_of_milli", Type: arrow.PrimitiveTypes.Int32},
		)}, LTZ: ltz}
		return encodeColumn(t, wt, func(b array.Builder) {
			for _, v := range vs {
				s := b.(*array.ExtensionBuilder).StorageBuilder().(*array.StructBuilder)
				s.Append(true)
				s.FieldBuilder(0).(*array.Int64Builder).Append(v.Millis)
				s.FieldBuilder(1).(*array.Int32Builder).Append(v.NanoOfMilli)
			}
			b.AppendNull()
		})
	}
	wantRows(t, wide(false, types.TimestampValue{Millis: -62135596800000, NanoOfMilli: 1}, types.TimestampValue{Millis: 253402300799999, NanoOfMilli: 999999},
		types.TimestampValue{Millis: -1, NanoOfMilli: 999999}, types.TimestampValue{Millis: -9223372036855, NanoOfMilli: 224191}),
		`"0001-01-01T00:00:00.000000001"`, `"9999-12-31T23:59:59.999999999"`, `"1969-12-31T23:59:59.999999999"`, `"1677-09-21T00:12:43.145224191"`, "null")
	wantRows(t, wide(true, types.TimestampValue{Millis: 1704164645123, NanoOfMilli: 456789}, types.TimestampValue{Millis: -62167219200000}),
		`"2024-01-02T03:04:05.123456789Z"`, `"0000-01-01T00:00:00.000000000Z"`, "null")
}

func fromJSON(t *testing.T, typ arrow.DataType, js string) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr, _, err := array.FromJSON(mem, typ, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: typ, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
	defer rec.Release()
	return encodeAll(t, rec)
}

func TestEncodeNested(t *testing.T) {
	wantRows(t, fromJSON(t, arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1,null,3],[],null,[null]]`),
		"[1,null,3]", "[]", "null", "[null]")
	wantRows(t, fromJSON(t, arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32), `[[1.5,2],null,[null,-0.25]]`),
		"[1.5,2]", "null", "[null,-0.25]")
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b\"q", Type: arrow.BinaryTypes.String, Nullable: true})
	wantRows(t, fromJSON(t, st, `[{"a":1,"b\"q":"x"},null,{"a":null,"b\"q":null}]`),
		`{"a":1,"b\"q":"x"}`, "null", `{"a":null,"b\"q":null}`)
	wantRows(t, fromJSON(t, arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32),
		`[[{"key":"k","value":1},{"key":"z","value":null}],[],null]`),
		`{"k":1,"z":null}`, "{}", "null")
	wantRows(t, fromJSON(t, arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String),
		`[[{"key":2,"value":"a"},{"key":-1,"value":null}],[]]`),
		`[{"key":2,"value":"a"},{"key":-1,"value":null}]`, "[]")
	// ARRAY<ROW<m MAP<STRING, ARRAY<BIGINT>>>>: nulls at every depth.
	deep := arrow.ListOf(arrow.StructOf(arrow.Field{Name: "m", Nullable: true,
		Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOf(arrow.PrimitiveTypes.Int64))}))
	wantRows(t, fromJSON(t, deep,
		`[[{"m":[{"key":"a","value":[9007199254740993,null]},{"key":"b","value":null}]},{"m":null},null],null,[]]`),
		`[{"m":{"a":[9007199254740993,null],"b":null}},{"m":null},null]`, "null", "[]")
}

// A sliced record (as readers hand out after a filter or a limit) must encode
// its own rows, not the parent's.
func TestEncodeSlicedRecord(t *testing.T) {
	mem := memory.NewGoAllocator()
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	typ := arrow.ListOf(st)
	arr, _, err := array.FromJSON(mem, typ, strings.NewReader(`[[{"x":1}],[{"x":2},{"x":3}],[{"x":4}]]`))
	if err != nil {
		t.Fatal(err)
	}
	ids, _, _ := array.FromJSON(mem, arrow.PrimitiveTypes.Int32, strings.NewReader(`[10,20,30]`))
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}, {Name: "l", Type: typ, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{ids, arr}, 3)
	got := encodeAll(t, rec.NewSlice(1, 3))
	want := []string{`{"id":20,"l":[{"x":2},{"x":3}]}`, `{"id":30,"l":[{"x":4}]}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestEncodeRowKindIsMetadata(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: types.RowKindColumn, Type: arrow.BinaryTypes.String},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	rb.Field(0).(*array.StringBuilder).AppendValues([]string{"+I", "-U", "+U", "-D"}, nil)
	rb.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 2, 3}, nil)
	rb.Field(2).(*array.StringBuilder).AppendValues([]string{"a", "b", "c", ""}, []bool{true, true, true, false})
	rec := rb.NewRecordBatch()
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	if !enc.HasRowKind() {
		t.Fatal("row kind column not detected")
	}
	if err := enc.Reset(rec); err != nil {
		t.Fatal(err)
	}
	wantBody := []string{`{"id":1,"v":"a"}`, `{"id":2,"v":"b"}`, `{"id":2,"v":"c"}`, `{"id":3,"v":null}`}
	wantKind := []string{"+I", "-U", "+U", "-D"}
	for i := range wantBody {
		if got := string(enc.AppendRow(nil, i)); got != wantBody[i] {
			t.Errorf("row %d body %s want %s", i, got, wantBody[i])
		}
		if got, ok := enc.RowKind(i); !ok || got.String() != wantKind[i] {
			t.Errorf("row %d kind %v (%v) want %q", i, got, ok, wantKind[i])
		}
	}
}

func TestEncodeSchemaErrors(t *testing.T) {
	_, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Duration_s}}, nil))
	if err == nil || !strings.Contains(err.Error(), `column "d"`) {
		t.Fatalf("want error naming column d, got %v", err)
	}
	_, err = NewEncoder(arrow.NewSchema([]arrow.Field{{Name: types.RowKindColumn, Type: arrow.PrimitiveTypes.Int8}}, nil))
	if err == nil || !strings.Contains(err.Error(), types.RowKindColumn) {
		t.Fatalf("want error naming %s, got %v", types.RowKindColumn, err)
	}
	enc, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int8}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	other := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.PrimitiveTypes.Int8}}, nil), []arrow.Array{array.MakeArrayOfNull(memory.NewGoAllocator(), arrow.PrimitiveTypes.Int8, 1)}, 1)
	if err := enc.Reset(other); err == nil {
		t.Fatal("Reset accepted a record of another schema")
	}
}

// FuzzEncodeStringsAndNumbers feeds arbitrary bytes through the string, binary,
// float and decimal paths: whatever the input, each row must be valid JSON
// and the string must round-trip (modulo invalid UTF-8 → U+FFFD).
func FuzzEncodeStringsAndNumbers(f *testing.F) {
	f.Add("hello", []byte{1, 2}, 1.5, int64(12), uint64(0))
	f.Add("\xff\xfe\"\\\n\u2028", []byte{}, math.NaN(), int64(-1), uint64(1)<<63)
	f.Add("", []byte(nil), math.Inf(-1), int64(math.MinInt64), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, s string, b []byte, fl float64, lo int64, hi uint64) {
		switch s {
		case "b", "f", "f32", "d", "m", "ts":
			// s names the first column; Paimon column names are unique, and a
			// duplicate JSON key would make the oracle read the other column.
			return
		}
		mem := memory.NewGoAllocator()
		schema := arrow.NewSchema([]arrow.Field{
			{Name: s, Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
			{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
			{Name: "d", Type: &arrow.Decimal128Type{Precision: 38, Scale: int32(uint64(lo) % 39)}, Nullable: true},
			{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String), Nullable: true},
			{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		}, nil)
		rb := array.NewRecordBuilder(mem, schema)
		rb.Field(0).(*array.StringBuilder).Append(s)
		rb.Field(1).(*array.BinaryBuilder).Append(b)
		rb.Field(2).(*array.Float64Builder).Append(fl)
		rb.Field(3).(*array.Float32Builder).Append(float32(fl))
		rb.Field(4).(*array.Decimal128Builder).Append(decimal128.New(int64(hi), uint64(lo)))
		mb := rb.Field(5).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append(s)
		mb.ItemBuilder().(*array.StringBuilder).Append(s)
		rb.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(lo))
		rec := rb.NewRecordBatch()
		enc, err := NewEncoder(schema)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Reset(rec); err != nil {
			t.Fatal(err)
		}
		out := enc.AppendRow(nil, 0)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON: %s", out)
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		// encoding/json is the oracle: it also replaces each invalid byte by
		// U+FFFD, so the decoded texts must agree.
		ref, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := doc[want].(string); !ok || got != want {
			t.Fatalf("string %q came back as %q, want %q", s, doc[want], want)
		}
	})
}

// BenchmarkEncode encodes a 10-column record of 8192 rows; ns/op ÷ 8192 is
// the per-row cost, and allocs/op must stay 0 once the buffer has grown.
func BenchmarkEncode(b *testing.B) {
	const rows = 8192
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "active", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	for i := 0; i < rows; i++ {
		rb.Field(0).(*array.Int64Builder).Append(int64(i) * 7919)
		rb.Field(1).(*array.Int32Builder).Append(int32(i % 100))
		rb.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 101))
		rb.Field(3).(*array.Float64Builder).Append(float64(i) / 3)
		rb.Field(4).(*array.StringBuilder).Append("customer-name")
		if i%10 == 0 {
			rb.Field(5).(*array.StringBuilder).AppendNull()
		} else {
			rb.Field(5).(*array.StringBuilder).Append("a \"quoted\" note")
		}
		rb.Field(6).(*array.BooleanBuilder).Append(i%2 == 0)
		rb.Field(7).(*array.Date32Builder).Append(arrow.Date32(19000 + i%365))
		rb.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp(1704164645000000 + int64(i)))
		lb := rb.Field(9).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"x", "yy"}, nil)
	}
	rec := rb.NewRecordBatch()
	enc, err := NewEncoder(schema)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if err := enc.Reset(rec); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < rows; i++ {
			buf = enc.AppendRow(buf[:0], i)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}

// TestEncodeEveryMappedType builds the Arrow schema of every Paimon type the
// library reads (through the library's own mapping) and encodes a row of
// zero values and a row of nulls: each mapped type has a rendering.
func TestEncodeEveryMappedType(t *testing.T) {
	typeStrings := []string{
		"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
		"DECIMAL(5, 2)", "DECIMAL(38, 10)", "CHAR(3)", "VARCHAR(10)", "STRING",
		"BINARY(4)", "VARBINARY(8)", "BYTES", "DATE", "TIME", "TIME(3)",
		"TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
		"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(9) WITH LOCAL TIME ZONE",
		"ARRAY<INT>", "ARRAY<ROW<a INT, b STRING>>", "MAP<STRING, INT>", "MAP<INT, ARRAY<STRING>>",
		"MULTISET<STRING>", "ROW<x DOUBLE, y MAP<STRING, DATE>>", "VECTOR<FLOAT, 3>",
	}
	var fields []types.DataField
	for i, s := range typeStrings {
		typ, err := types.ParseType(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		fields = append(fields, types.DataField{ID: i, Name: fmt.Sprintf("c%d", i), Type: typ})
	}
	schema, err := paimon.ArrowSchema(fields)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	for _, b := range rb.Fields() {
		b.AppendEmptyValue()
		b.AppendNull()
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	rows := encodeAll(t, rec)
	if len(rows) != 2 {
		t.Fatalf("got %d rows", len(rows))
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(rows[1]), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if v, ok := doc[f.Name]; !ok || v != nil {
			t.Errorf("%s (%s): null row renders %v", f.Name, f.Type, v)
		}
	}
}

// TestEncodeRejectsUnmappedTypes: Arrow types outside the library's mapping
// fail at NewEncoder with the column named, never at the first row.
func TestEncodeRejectsUnmappedTypes(t *testing.T) {
	for _, typ := range []arrow.DataType{
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint32, arrow.FixedWidthTypes.Float16,
		arrow.BinaryTypes.LargeString, arrow.BinaryTypes.LargeBinary, &arrow.FixedSizeBinaryType{ByteWidth: 4},
		arrow.FixedWidthTypes.Date64, arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time64us,
		&arrow.TimestampType{Unit: arrow.Second}, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Paris"},
		arrow.Null, arrow.LargeListOf(arrow.PrimitiveTypes.Int32), arrow.ListOf(arrow.PrimitiveTypes.Uint16),
		arrow.MapOf(arrow.BinaryTypes.LargeString, arrow.PrimitiveTypes.Int32),
		arrow.StructOf(arrow.Field{Name: "u", Type: arrow.PrimitiveTypes.Uint64}),
	} {
		_, err := NewEncoder(arrow.NewSchema([]arrow.Field{{Name: "bad", Type: typ, Nullable: true}}, nil))
		if err == nil || !strings.Contains(err.Error(), `column "bad"`) {
			t.Errorf("%s: want an error naming the column, got %v", typ, err)
		}
	}
}

func TestAppendRowWithKind(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: types.RowKindColumn, Type: arrow.BinaryTypes.String},
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	rb.Field(0).(*array.StringBuilder).AppendValues([]string{"+I", "-D"}, nil)
	rb.Field(1).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	rec := rb.NewRecordBatch()
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Reset(rec); err != nil {
		t.Fatal(err)
	}
	if got := string(enc.AppendRowWithKind(nil, 1)); got != `{"_row_kind":"-D","a":2}` {
		t.Fatalf("got %s", got)
	}
	only := arrow.NewSchema([]arrow.Field{{Name: types.RowKindColumn, Type: arrow.BinaryTypes.String}}, nil)
	kb := array.NewStringBuilder(mem)
	kb.Append("+U")
	rec2 := array.NewRecordBatch(only, []arrow.Array{kb.NewArray()}, 1)
	enc2, err := NewEncoder(only)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc2.Reset(rec2); err != nil {
		t.Fatal(err)
	}
	if got := string(enc2.AppendRowWithKind(nil, 0)); got != `{"_row_kind":"+U"}` {
		t.Fatalf("got %s", got)
	}
}
