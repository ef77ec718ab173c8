package types

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestParseTypeSpellings covers every atomic spelling of paimon-format.md
// §2.2: what Java writes (asSQLString), what its parser also accepts, and
// pypaimon's variants. Expected values are written out by hand.
func TestParseTypeSpellings(t *testing.T) {
	cases := []struct {
		in   string
		want DataType
		str  string
	}{
		{"BOOLEAN", DataType{Root: Boolean, Nullable: true}, "BOOLEAN"},
		{"boolean", DataType{Root: Boolean, Nullable: true}, "BOOLEAN"},
		{"TINYINT", DataType{Root: TinyInt, Nullable: true}, "TINYINT"},
		{"SMALLINT", DataType{Root: SmallInt, Nullable: true}, "SMALLINT"},
		{"INT", DataType{Root: Int, Nullable: true}, "INT"},
		{"INTEGER", DataType{Root: Int, Nullable: true}, "INT"},
		{"BIGINT NOT NULL", DataType{Root: BigInt}, "BIGINT NOT NULL"},
		{"BIGINT NULL", DataType{Root: BigInt, Nullable: true}, "BIGINT"},
		{"FLOAT", DataType{Root: Float, Nullable: true}, "FLOAT"},
		{"DOUBLE", DataType{Root: Double, Nullable: true}, "DOUBLE"},
		{"DOUBLE PRECISION", DataType{Root: Double, Nullable: true}, "DOUBLE"},
		{"DOUBLE PRECISION NOT NULL", DataType{Root: Double}, "DOUBLE NOT NULL"},
		{"DECIMAL(10, 2)", DataType{Root: Decimal, Nullable: true, Precision: 10, Scale: 2}, "DECIMAL(10, 2)"},
		{"DECIMAL(38,18) NOT NULL", DataType{Root: Decimal, Precision: 38, Scale: 18}, "DECIMAL(38, 18) NOT NULL"},
		{"DECIMAL", DataType{Root: Decimal, Nullable: true, Precision: 10}, "DECIMAL(10, 0)"},
		{"DECIMAL(5)", DataType{Root: Decimal, Nullable: true, Precision: 5}, "DECIMAL(5, 0)"},
		{"NUMERIC(7, 3)", DataType{Root: Decimal, Nullable: true, Precision: 7, Scale: 3}, "DECIMAL(7, 3)"},
		{"DEC", DataType{Root: Decimal, Nullable: true, Precision: 10}, "DECIMAL(10, 0)"},
		{"CHAR", DataType{Root: Char, Nullable: true, Length: 1}, "CHAR(1)"},
		{"CHAR(5) NOT NULL", DataType{Root: Char, Length: 5}, "CHAR(5) NOT NULL"},
		{"VARCHAR(20)", DataType{Root: VarChar, Nullable: true, Length: 20}, "VARCHAR(20)"},
		{"VARCHAR(2147483647)", DataType{Root: VarChar, Nullable: true, Length: MaxLength}, "STRING"},
		{"STRING", DataType{Root: VarChar, Nullable: true, Length: MaxLength}, "STRING"},
		{"STRING NOT NULL", DataType{Root: VarChar, Length: MaxLength}, "STRING NOT NULL"},
		{"BINARY", DataType{Root: Binary, Nullable: true, Length: 1}, "BINARY(1)"},
		{"BINARY(16)", DataType{Root: Binary, Nullable: true, Length: 16}, "BINARY(16)"},
		{"VARBINARY(8)", DataType{Root: VarBinary, Nullable: true, Length: 8}, "VARBINARY(8)"},
		{"BYTES", DataType{Root: VarBinary, Nullable: true, Length: MaxLength}, "BYTES"},
		{"VARBINARY(2147483647)", DataType{Root: VarBinary, Nullable: true, Length: MaxLength}, "BYTES"},
		{"DATE", DataType{Root: Date, Nullable: true}, "DATE"},
		{"TIME", DataType{Root: Time, Nullable: true}, "TIME(0)"},
		{"TIME(3)", DataType{Root: Time, Nullable: true, Precision: 3}, "TIME(3)"},
		{"TIME WITHOUT TIME ZONE", DataType{Root: Time, Nullable: true}, "TIME(0)"},
		{"TIME(2) WITHOUT TIME ZONE NOT NULL", DataType{Root: Time, Precision: 2}, "TIME(2) NOT NULL"},
		{"TIMESTAMP", DataType{Root: Timestamp, Nullable: true, Precision: 6}, "TIMESTAMP(6)"},
		{"TIMESTAMP(3)", DataType{Root: Timestamp, Nullable: true, Precision: 3}, "TIMESTAMP(3)"},
		{"TIMESTAMP(9) NOT NULL", DataType{Root: Timestamp, Precision: 9}, "TIMESTAMP(9) NOT NULL"},
		{"TIMESTAMP WITHOUT TIME ZONE", DataType{Root: Timestamp, Nullable: true, Precision: 6}, "TIMESTAMP(6)"},
		{"TIMESTAMP(0) WITHOUT TIME ZONE", DataType{Root: Timestamp, Nullable: true}, "TIMESTAMP(0)"},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", DataType{Root: TimestampLTZ, Nullable: true, Precision: 3}, "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"TIMESTAMP WITH LOCAL TIME ZONE NOT NULL", DataType{Root: TimestampLTZ, Precision: 6}, "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL"},
		{"TIMESTAMP_LTZ(3)", DataType{Root: TimestampLTZ, Nullable: true, Precision: 3}, "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"TIMESTAMP_LTZ", DataType{Root: TimestampLTZ, Nullable: true, Precision: 6}, "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
		{"VARIANT", DataType{Root: Variant, Nullable: true}, "VARIANT"},
		{"BLOB NOT NULL", DataType{Root: Blob}, "BLOB NOT NULL"},
		{"GEOMETRY", DataType{Root: Geometry, Nullable: true}, "GEOMETRY"},
		{"GEOMETRY(4326)", DataType{Root: Geometry, Nullable: true, Extra: "4326"}, "GEOMETRY(4326)"},
		{"GEOGRAPHY('OGC:CRS84',spherical)", DataType{Root: Geography, Nullable: true, Extra: "'OGC:CRS84', spherical"}, "GEOGRAPHY('OGC:CRS84', spherical)"},
		{"GEOMETRY('a)b')", DataType{Root: Geometry, Nullable: true, Extra: "'a)b'"}, "GEOMETRY('a)b')"},
		{"  INT   NOT   NULL  ", DataType{Root: Int}, "INT NOT NULL"},
	}
	for _, c := range cases {
		got, err := ParseType(c.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", c.in, err)
			continue
		}
		if !sameType(got, c.want) {
			t.Errorf("ParseType(%q) = %+v, want %+v", c.in, got, c.want)
		}
		if s := got.String(); s != c.str {
			t.Errorf("ParseType(%q).String() = %q, want %q", c.in, s, c.str)
		}
	}
}

// sameType compares the scalar fields of two types and recurses into
// children; it is independent of String() so it can check String() itself.
func sameType(a, b DataType) bool {
	if a.Root != b.Root || a.Nullable != b.Nullable || a.Length != b.Length ||
		a.Precision != b.Precision || a.Scale != b.Scale || a.Extra != b.Extra ||
		len(a.Fields) != len(b.Fields) {
		return false
	}
	for _, p := range [][2]*DataType{{a.Element, b.Element}, {a.Key, b.Key}, {a.Value, b.Value}} {
		if (p[0] == nil) != (p[1] == nil) {
			return false
		}
		if p[0] != nil && !sameType(*p[0], *p[1]) {
			return false
		}
	}
	for i := range a.Fields {
		if a.Fields[i].ID != b.Fields[i].ID || a.Fields[i].Name != b.Fields[i].Name ||
			a.Fields[i].Description != b.Fields[i].Description || !sameType(a.Fields[i].Type, b.Fields[i].Type) {
			return false
		}
	}
	return true
}

func ptr(t DataType) *DataType { return &t }

func TestParseTypeComposite(t *testing.T) {
	intN := DataType{Root: Int, Nullable: true}
	str := DataType{Root: VarChar, Nullable: true, Length: MaxLength}
	cases := []struct {
		in   string
		want DataType
		str  string
	}{
		{"ARRAY<INT>", DataType{Root: Array, Nullable: true, Element: ptr(intN)}, "ARRAY<INT>"},
		{"ARRAY<INT NOT NULL> NOT NULL", DataType{Root: Array, Element: ptr(DataType{Root: Int})}, "ARRAY<INT NOT NULL> NOT NULL"},
		{"MULTISET<STRING>", DataType{Root: Multiset, Nullable: true, Element: ptr(str)}, "MULTISET<STRING>"},
		{"MAP<INT, STRING>", DataType{Root: Map, Nullable: true, Key: ptr(intN), Value: ptr(str)}, "MAP<INT, STRING>"},
		{"MAP<INT, STRING NOT NULL>", DataType{Root: Map, Nullable: true, Key: ptr(intN), Value: ptr(str.WithNullable(false))}, "MAP<INT, STRING NOT NULL>"},
		{"VECTOR<FLOAT, 3>", DataType{Root: Vector, Nullable: true, Length: 3, Element: ptr(DataType{Root: Float, Nullable: true})}, "VECTOR<FLOAT, 3>"},
		// Legacy suffix notation "<type> ARRAY"; a trailing NOT NULL belongs
		// to the array.
		{"INT ARRAY", DataType{Root: Array, Nullable: true, Element: ptr(intN)}, "ARRAY<INT>"},
		{"INT ARRAY NOT NULL", DataType{Root: Array, Element: ptr(intN)}, "ARRAY<INT> NOT NULL"},
		{"STRING MULTISET", DataType{Root: Multiset, Nullable: true, Element: ptr(str)}, "MULTISET<STRING>"},
		{"ROW<a INT, `b c` STRING NOT NULL 'the b'>", DataType{Root: Row, Nullable: true, Fields: []DataField{
			{ID: 0, Name: "a", Type: intN},
			{ID: 1, Name: "b c", Type: str.WithNullable(false), Description: "the b"},
		}}, "ROW<`a` INT, `b c` STRING NOT NULL>"},
		{"ROW<`we``ird` INT> NOT NULL", DataType{Root: Row, Fields: []DataField{{ID: 0, Name: "we`ird", Type: intN}}}, "ROW<`we``ird` INT> NOT NULL"},
	}
	for _, c := range cases {
		got, err := ParseType(c.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", c.in, err)
			continue
		}
		if !sameType(got, c.want) {
			t.Errorf("ParseType(%q) = %+v, want %+v", c.in, got, c.want)
		}
		if s := got.String(); s != c.str {
			t.Errorf("ParseType(%q).String() = %q, want %q", c.in, s, c.str)
		}
	}
}

func TestParseTypeErrors(t *testing.T) {
	cases := []struct{ in, wantSub string }{
		{"", "empty type"},
		{"   ", "empty type"},
		{"FOO", "unknown type FOO"},
		{"DECIMAL(39, 0)", "invalid DECIMAL"},
		{"DECIMAL(0)", "invalid DECIMAL"},
		{"DECIMAL(5, 6)", "invalid DECIMAL"},
		{"DECIMAL(1, 2, 3)", "too many parameters"},
		{"DECIMAL(99999999999999999999)", "bad number"},
		{"CHAR(0)", "invalid length"},
		{"TIMESTAMP(10)", "invalid TIMESTAMP precision"},
		{"TIME(12)", "invalid TIME precision"},
		{"INT NOT", "expected NULL"},
		{"INT BIGINT", "unexpected"},
		{"ARRAY<INT", `expected ">"`},
		{"MAP<INT>", `expected ","`},
		{"ROW<`a INT>", "unterminated quote"},
		{"INT;", "unexpected character"},
		{"TIMESTAMP WITH TIME ZONE", "expected LOCAL"},
		{strings.Repeat("ARRAY<", 100) + "INT" + strings.Repeat(">", 100), "nested deeper"},
	}
	for _, c := range cases {
		_, err := ParseType(c.in)
		if err == nil {
			t.Errorf("ParseType(%q) succeeded, want error containing %q", c.in, c.wantSub)
			continue
		}
		if !strings.Contains(err.Error(), c.wantSub) {
			t.Errorf("ParseType(%q) error %q, want it to contain %q", c.in, err, c.wantSub)
		}
	}
}

func unmarshalType(t *testing.T, js string) DataType {
	t.Helper()
	var dt DataType
	if err := json.Unmarshal([]byte(js), &dt); err != nil {
		t.Fatalf("unmarshal %s: %v", js, err)
	}
	return dt
}

// TestDataTypeJSONForms covers the composite JSON objects written by Java
// (type keyword + NOT NULL, §2.2) and by pypaimon (full SQL text or bare
// keyword plus "nullable").
func TestDataTypeJSONForms(t *testing.T) {
	cases := []struct {
		name, js, str string
	}{
		{"java array", `{"type":"ARRAY","element":"INT"}`, "ARRAY<INT>"},
		{"java array not null", `{"type":"ARRAY NOT NULL","element":"INT NOT NULL"}`, "ARRAY<INT NOT NULL> NOT NULL"},
		{"java multiset", `{"type":"MULTISET NOT NULL","element":"STRING"}`, "MULTISET<STRING> NOT NULL"},
		{"java map", `{"type":"MAP","key":"STRING NOT NULL","value":"BIGINT"}`, "MAP<STRING NOT NULL, BIGINT>"},
		{"java map not null", `{"type":"MAP NOT NULL","key":"INT NOT NULL","value":{"type":"ARRAY","element":"DOUBLE"}}`, "MAP<INT NOT NULL, ARRAY<DOUBLE>> NOT NULL"},
		{"java vector", `{"type":"VECTOR NOT NULL","element":"FLOAT NOT NULL","length":4}`, "VECTOR<FLOAT NOT NULL, 4> NOT NULL"},
		{"java row", `{"type":"ROW","fields":[{"id":5,"name":"x","type":"INT"},{"id":6,"name":"y","type":"STRING NOT NULL","description":"why"}]}`, "ROW<`x` INT, `y` STRING NOT NULL>"},
		{"java row not null", `{"type":"ROW NOT NULL","fields":[]}`, "ROW<> NOT NULL"},
		// pypaimon (the spec notes' form): full SQL text + nullable.
		{"pypaimon map sql text", `{"type":"MAP<INT, STRING>","key":"INT","value":"STRING","nullable":true}`, "MAP<INT, STRING>"},
		{"pypaimon map not-null value but nullable map", `{"type":"MAP<INT, STRING NOT NULL>","key":"INT","value":"STRING NOT NULL"}`, "MAP<INT, STRING NOT NULL>"},
		{"pypaimon map nullable false", `{"type":"MAP<INT, STRING>","key":"INT","value":"STRING","nullable":false}`, "MAP<INT, STRING> NOT NULL"},
		{"pypaimon multiset", `{"type":"MULTISET<INT> NOT NULL","element":"INT","nullable":false}`, "MULTISET<INT> NOT NULL"},
		// pypaimon 2.1.0 as installed: bare keyword + nullable.
		{"pypaimon 2.1 map", `{"type":"MAP","key":"STRING NOT NULL","value":"BIGINT","nullable":true}`, "MAP<STRING NOT NULL, BIGINT>"},
		{"pypaimon 2.1 array", `{"type":"ARRAY NOT NULL","element":"INT","nullable":false}`, "ARRAY<INT> NOT NULL"},
		// An atomic type as an object is tolerated.
		{"atomic object", `{"type":"INT"}`, "INT"},
		{"atomic object nullable", `{"type":"INT","nullable":false}`, "INT NOT NULL"},
		{"atomic string", `"TIMESTAMP_LTZ(3)"`, "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
	}
	for _, c := range cases {
		got := unmarshalType(t, c.js)
		if s := got.String(); s != c.str {
			t.Errorf("%s: %s parsed as %q, want %q", c.name, c.js, s, c.str)
		}
	}
}

func TestDataTypeJSONNestedRowIDs(t *testing.T) {
	js := `{"type":"ROW NOT NULL","fields":[
		{"id":7,"name":"a","type":{"type":"ROW","fields":[{"id":9,"name":"deep","type":"BIGINT","defaultValue":"42"}]}},
		{"id":8,"name":"b","type":{"type":"ARRAY","element":{"type":"ROW","fields":[{"id":10,"name":"e","type":"DATE"}]}}},
		{"id":11,"name":"c","type":{"type":"MAP","key":"INT NOT NULL","value":{"type":"ROW","fields":[{"id":12,"name":"v","type":"INT"}]}}}]}`
	dt := unmarshalType(t, js)
	if dt.Nullable || dt.Root != Row || len(dt.Fields) != 3 {
		t.Fatalf("got %+v", dt)
	}
	a := dt.Fields[0]
	if a.ID != 7 || a.Name != "a" || a.Type.Fields[0].ID != 9 || a.Type.Fields[0].Name != "deep" {
		t.Errorf("field a = %+v", a)
	}
	if dv := a.Type.Fields[0].DefaultValue; dv == nil || *dv != "42" {
		t.Errorf("defaultValue = %v, want 42", dv)
	}
	if id := dt.Fields[1].Type.Element.Fields[0].ID; id != 10 {
		t.Errorf("array element row field id = %d, want 10", id)
	}
	if id := dt.Fields[2].Type.Value.Fields[0].ID; id != 12 {
		t.Errorf("map value row field id = %d, want 12", id)
	}
	// Marshal back and re-read: ids and types survive.
	b, err := json.Marshal(dt)
	if err != nil {
		t.Fatal(err)
	}
	again := unmarshalType(t, string(b))
	if !again.Equal(dt) || !sameType(again, dt) {
		t.Errorf("JSON round trip changed the type:\n%s\n%s", dt, again)
	}
	// Equal must see nested id differences, including inside map values.
	other := unmarshalType(t, strings.Replace(js, `"id":12`, `"id":13`, 1))
	if other.Equal(dt) {
		t.Errorf("Equal ignored a changed nested field id in a map value")
	}
	other = unmarshalType(t, strings.Replace(js, `"id":9`, `"id":99`, 1))
	if other.Equal(dt) {
		t.Errorf("Equal ignored a changed nested field id")
	}
}

func TestEqualSeesMapKeyIDs(t *testing.T) {
	js := `{"type":"MAP","key":{"type":"ROW NOT NULL","fields":[{"id":3,"name":"k","type":"INT"}]},"value":"INT"}`
	a := unmarshalType(t, js)
	b := unmarshalType(t, strings.Replace(js, `"id":3`, `"id":4`, 1))
	if a.Equal(b) {
		t.Errorf("Equal ignored a changed field id inside a MAP key")
	}
}

func TestDataTypeJSONErrors(t *testing.T) {
	cases := []struct{ js, wantSub string }{
		{`{}`, `without "type"`},
		{`{"type":"ARRAY"}`, `without "element"`},
		{`{"type":"ARRAY","element":null}`, `without "element"`},
		{`{"type":"MAP","key":"INT"}`, `without "value"`},
		{`{"type":"VECTOR","element":"FLOAT"}`, `without "length"`},
		{`{"type":"ROW","fields":[{"id":1,"type":"INT"}]}`, `"name"`},
		{`{"type":"ROW","fields":[{"id":1,"name":"x","type":"NOPE"}]}`, "unknown type NOPE"},
		{`{"type":"ARRAY","element":{"type":"MAP","key":"INT","value":"WHAT(1)"}}`, "unknown type WHAT"},
		{`"INT NOT"`, "expected NULL"},
		{`42`, "type"},
		{`[1]`, "type"},
	}
	for _, c := range cases {
		var dt DataType
		err := json.Unmarshal([]byte(c.js), &dt)
		if err == nil {
			t.Errorf("%s: no error, want one containing %q", c.js, c.wantSub)
			continue
		}
		if !strings.Contains(err.Error(), c.wantSub) {
			t.Errorf("%s: error %q, want it to contain %q", c.js, err, c.wantSub)
		}
	}
}

// TestPypaimonSchemaAllTypes reads a schema file written by pypaimon 2.1.0
// for a table with every type pyarrow can express (testdata; generator in
// the schema package tests).
func TestPypaimonSchemaAllTypes(t *testing.T) {
	b, err := os.ReadFile("testdata/pypaimon-all-types-schema-0.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Fields []DataField `json:"fields"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id   int
		name string
		typ  string
	}{
		{0, "id", "BIGINT NOT NULL"},
		{1, "b", "BOOLEAN"},
		{2, "i8", "TINYINT"},
		{3, "i16", "SMALLINT"},
		{4, "i32", "INT"},
		{5, "f32", "FLOAT"},
		{6, "f64", "DOUBLE"},
		{7, "dec", "DECIMAL(12, 2)"},
		{8, "s", "STRING"},
		{9, "bin", "BYTES"},
		{10, "fbin", "BINARY(4)"},
		{11, "d", "DATE"},
		{12, "t", "TIME(0)"},
		{13, "ts3", "TIMESTAMP(3)"},
		{14, "ts6", "TIMESTAMP(6)"},
		{15, "ts9", "TIMESTAMP(9)"},
		{16, "tsltz", "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
		{17, "arr", "ARRAY<INT>"},
		{18, "m", "MAP<STRING NOT NULL, BIGINT>"},
		{19, "r", "ROW<`x` INT, `y` STRING NOT NULL>"},
		{22, "p", "STRING NOT NULL"},
	}
	if len(doc.Fields) != len(want) {
		t.Fatalf("%d fields, want %d", len(doc.Fields), len(want))
	}
	for i, w := range want {
		f := doc.Fields[i]
		if f.ID != w.id || f.Name != w.name || f.Type.String() != w.typ {
			t.Errorf("field %d = (%d, %q, %q), want (%d, %q, %q)", i, f.ID, f.Name, f.Type, w.id, w.name, w.typ)
		}
	}
	r := doc.Fields[19].Type
	if r.Fields[0].ID != 20 || r.Fields[1].ID != 21 {
		t.Errorf("nested ROW ids = %d, %d, want 20, 21", r.Fields[0].ID, r.Fields[1].ID)
	}
}
