package cast

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Expected values below follow Java Paimon's cast rules as read in
// paimon-common org.apache.paimon.casting (NumericPrimitiveCastRule: Java
// primitive casts; DecimalToDecimalCastRule/DecimalUtils: HALF_UP, NULL on
// overflow; NumericToStringCastRule: String.valueOf; StringToBooleanCastRule:
// BinaryStringUtils.toBoolean; TimestampToTimestampCastRule: precision
// truncation), with UTC as the session zone.

func typ(t *testing.T, s string) types.DataType {
	t.Helper()
	dt, err := types.ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

// build makes an array of Paimon type ts from JSON-ish literals via Arrow's
// own string parser (nil = null).
func build(t *testing.T, mem memory.Allocator, ts string, vals ...any) arrow.Array {
	t.Helper()
	at, err := arrowconv.Type(typ(t, ts))
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewBuilder(mem, at)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		if err := b.AppendValueFromString(v.(string)); err != nil {
			t.Fatalf("build %s from %q: %v", ts, v, err)
		}
	}
	return b.NewArray()
}

func strs(a arrow.Array) []string {
	out := make([]string, a.Len())
	for i := range out {
		if a.IsNull(i) {
			out[i] = "NULL"
		} else {
			out[i] = a.ValueStr(i)
		}
	}
	return out
}

func TestScalarCasts(t *testing.T) {
	cases := []struct {
		from, to string
		in       []any
		want     string
	}{
		{"TINYINT", "INT", []any{"-128", "127", nil}, "-128,127,NULL"},
		{"INT", "BIGINT", []any{"-2147483648"}, "-2147483648"},
		// BIGINT -> INT wraps like Java's (int) cast.
		{"BIGINT", "INT", []any{"4294967297", "-1", "2147483648"}, "1,-1,-2147483648"},
		{"INT", "TINYINT", []any{"300", "-129"}, "44,127"},
		{"INT", "DOUBLE", []any{"7"}, "7"},
		{"BIGINT", "FLOAT", []any{"16777217"}, "1.6777216e+07"},
		// DOUBLE -> INT: Java's saturating (int) cast, NaN -> 0.
		{"DOUBLE", "INT", []any{"1e20", "-1e20", "NaN", "-2.9"}, "2147483647,-2147483648,0,-2"},
		{"INT", "DECIMAL(5, 2)", []any{"123", "1000"}, "123,NULL"},
		// HALF_UP on scale reduction, NULL on precision overflow.
		{"DECIMAL(10, 3)", "DECIMAL(10, 1)", []any{"1.250", "-1.250", "1.249", "-0.050"}, "1.3,-1.3,1.2,-0.1"},
		{"DECIMAL(10, 2)", "DECIMAL(4, 2)", []any{"123.45", "12.34"}, "NULL,12.34"},
		{"DECIMAL(10, 2)", "DECIMAL(12, 4)", []any{"-1.5"}, "-1.5"},
		{"DECIMAL(10, 2)", "DOUBLE", []any{"0.10"}, "0.1"},
		{"DECIMAL(10, 2)", "INT", []any{"-7.99"}, "-7"},
		{"DOUBLE", "DECIMAL(10, 2)", []any{"0.125", "-0.125", "1e10"}, "0.13,-0.13,NULL"},
		{"INT", "BOOLEAN", []any{"0", "-3"}, "false,true"},
		{"DECIMAL(5, 2)", "BOOLEAN", []any{"0.00", "0.01"}, "false,true"},
		{"BOOLEAN", "INT", []any{"true", "false"}, "1,0"},
		// Java Double.toString / Float.toString spellings.
		{"DOUBLE", "STRING", []any{"1e10", "0.1", "100", "1e-5", "-0", "NaN", "1.5e300"}, "1.0E10,0.1,100.0,1.0E-5,-0.0,NaN,1.5E300"},
		{"FLOAT", "STRING", []any{"0.1", "1e7", "3.4028235e38"}, "0.1,1.0E7,3.4028235E38"},
		{"BOOLEAN", "STRING", []any{"true", "false"}, "true,false"},
		{"BIGINT", "STRING", []any{"-9223372036854775808"}, "-9223372036854775808"},
		{"DECIMAL(10, 3)", "STRING", []any{"-0.005"}, "-0.005"},
		{"DATE", "STRING", []any{"2024-02-29"}, "2024-02-29"},
		{"STRING", "VARCHAR(3)", []any{"héllo", "ab"}, "hél,ab"},
		{"VARCHAR(3)", "CHAR(5)", []any{"ab"}, "ab   "},
		{"CHAR(3)", "STRING", []any{"abc"}, "abc"},
		{"STRING", "INT", []any{" 42 ", "-7", "12.9"}, "42,-7,12"},
		{"STRING", "BOOLEAN", []any{"TRUE", "n", "1", "yes"}, "true,false,true,true"},
		{"STRING", "DOUBLE", []any{"1.5", "-1e3"}, "1.5,-1000"},
		{"STRING", "DECIMAL(5, 2)", []any{"1.005", "-1.005", "99999"}, "1.01,-1.01,NULL"},
		{"STRING", "DATE", []any{"1969-12-31"}, "1969-12-31"},
		{"STRING", "TIMESTAMP(3)", []any{"2024-02-29 12:00:01.123456", "2024-02-29T01:02"}, "2024-02-29T12:00:01.123,2024-02-29T01:02:00"},
		{"TIMESTAMP(6)", "TIMESTAMP(3)", []any{"1969-12-31 23:59:59.999999"}, "1969-12-31T23:59:59.999"},
		{"TIMESTAMP(9)", "TIMESTAMP(1)", []any{"2024-02-29 12:00:01.987654321"}, "2024-02-29T12:00:01.9"},
		{"TIMESTAMP(3)", "TIMESTAMP(6)", []any{"2024-02-29 12:00:01.123"}, "2024-02-29T12:00:01.123"},
		{"TIMESTAMP(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", []any{"2024-02-29 12:00:01.123"}, "2024-02-29T12:00:01.123Z"},
		// Java divides the millisecond count toward zero (TimestampToDateCastRule).
		{"TIMESTAMP(6)", "DATE", []any{"1969-12-31 23:59:59.5", "2024-02-29 00:00:00"}, "1970-01-01,2024-02-29"},
		{"TIMESTAMP(6)", "TIME", []any{"1969-12-31 23:59:59.5"}, "23:59:59.500"},
		{"DATE", "TIMESTAMP(3)", []any{"1969-12-31"}, "1969-12-31T00:00:00"},
		{"BINARY(2)", "VARBINARY(5)", []any{"AAE="}, "AAE="},
		{"VARBINARY(5)", "BINARY(3)", []any{"AQ=="}, "AQAA"},
	}
	for _, c := range cases {
		t.Run(c.from+"->"+c.to, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
			defer mem.AssertSize(t, 0)
			in := build(t, mem, c.from, c.in...)
			defer in.Release()
			out, err := Cast(context.Background(), in, typ(t, c.from), typ(t, c.to), mem)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			want, _ := arrowconv.Type(typ(t, c.to))
			if !arrow.TypeEqual(out.DataType(), want) {
				t.Fatalf("type %s, want %s", out.DataType(), want)
			}
			if got := strings.Join(strs(out), ","); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestBadStringFails(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, to := range []string{"INT", "BOOLEAN", "DATE", "TIMESTAMP(3)", "DOUBLE", "TINYINT"} {
		in := build(t, mem, "STRING", "x1")
		if to == "TINYINT" {
			in.Release()
			in = build(t, mem, "STRING", "300")
		}
		_, err := Cast(context.Background(), in, typ(t, "STRING"), typ(t, to), mem)
		in.Release()
		if err == nil || !strings.Contains(err.Error(), to) {
			t.Errorf("STRING -> %s: err %v", to, err)
		}
	}
}

func TestUnsupported(t *testing.T) {
	mem := memory.NewGoAllocator()
	in := build(t, mem, "TIME", "01:02:03")
	defer in.Release()
	_, err := Cast(context.Background(), in, typ(t, "TIME"), typ(t, "BIGINT"), mem)
	if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "TIME(0)") || !strings.Contains(err.Error(), "BIGINT") {
		t.Fatalf("err = %v", err)
	}
}

// ROW evolution by field id: x (id 1) widened INT->BIGINT, y (id 2) renamed
// to yy, z (id 3) dropped, w (id 4) added -> NULL; nested inside an ARRAY so
// element-wise casting is covered, with a null row and a null struct.
func TestEvolveNested(t *testing.T) {
	mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
	defer mem.AssertSize(t, 0)
	from := types.DataType{Root: types.Array, Nullable: true, Element: &types.DataType{Root: types.Row, Nullable: true, Fields: []types.DataField{
		{ID: 1, Name: "x", Type: typ(t, "INT")},
		{ID: 2, Name: "y", Type: typ(t, "STRING")},
		{ID: 3, Name: "z", Type: typ(t, "DOUBLE")},
	}}}
	to := types.DataType{Root: types.Array, Nullable: true, Element: &types.DataType{Root: types.Row, Nullable: true, Fields: []types.DataField{
		{ID: 4, Name: "w", Type: typ(t, "INT")},
		{ID: 2, Name: "yy", Type: typ(t, "STRING")},
		{ID: 1, Name: "x", Type: typ(t, "BIGINT")},
	}}}
	at, _ := arrowconv.Type(from)
	in, _, err := array.FromJSON(mem, at, strings.NewReader(`[[{"x":1,"y":"a","z":1.5},null,{"x":null,"y":"c","z":0}],null,[]]`))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	// slice off nothing but exercise offsets: take rows 0..2 of a sliced copy
	sl := array.NewSlice(in, 0, 3)
	defer sl.Release()
	out, err := Cast(context.Background(), sl, from, to, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	b, err := out.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	// MarshalJSON sorts keys; the field order is checked through the type below.
	want := `[[{"w":null,"x":1,"yy":"a"},null,{"w":null,"x":null,"yy":"c"}],null,[]]`
	if strings.ReplaceAll(string(b), "\n", "") != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	wt, _ := arrowconv.Type(to)
	if !arrow.TypeEqual(out.DataType(), wt, arrow.CheckMetadata()) {
		t.Fatalf("type %s, want %s", out.DataType(), wt)
	}
}

func TestMapValueCast(t *testing.T) {
	mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
	defer mem.AssertSize(t, 0)
	from, to := typ(t, "MAP<STRING, INT>"), typ(t, "MAP<STRING, BIGINT>")
	at, _ := arrowconv.Type(from)
	in, _, err := array.FromJSON(mem, at, strings.NewReader(`[[{"key":"a","value":1},{"key":"b","value":null}],null]`))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	out, err := Cast(context.Background(), in, from, to, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	b, _ := out.MarshalJSON()
	if strings.ReplaceAll(string(b), "\n", "") != `[[{"key":"a","value":1},{"key":"b","value":null}],null]` || out.DataType().(*arrow.MapType).ItemType().ID() != arrow.INT64 {
		t.Fatalf("got %s %s", b, out.DataType())
	}
	if _, err := Cast(context.Background(), in, from, typ(t, "MAP<INT, INT>"), mem); !errors.Is(err, types.ErrUnsupported) {
		t.Fatalf("key type change: %v", err)
	}
}
