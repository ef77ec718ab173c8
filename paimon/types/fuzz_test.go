package types

import (
	"encoding/json"
	"testing"
)

// FuzzParseType checks that no input panics the type parser and that every
// accepted type renders (String) to text that parses back to an equal type
// rendering the same way: the reader relies on String() in messages and in
// Equal, so it must be a faithful spelling.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{
		"INT", "BIGINT NOT NULL", "DECIMAL(38, 18)", "DECIMAL", "CHAR", "STRING", "BYTES",
		"TIMESTAMP", "TIMESTAMP_LTZ(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIME WITHOUT TIME ZONE",
		"INT ARRAY NOT NULL", "STRING MULTISET", "MAP<INT, STRING NOT NULL> NOT NULL",
		"ROW<`a` INT, b STRING 'doc'>", "VECTOR<FLOAT, 3>", "GEOMETRY(4326)", "DOUBLE PRECISION",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s)
		if err != nil {
			return
		}
		str := typ.String()
		again, err := ParseType(str)
		if err != nil {
			t.Fatalf("ParseType(%q) = %q, which does not parse: %v", s, str, err)
		}
		if !again.Equal(typ) || again.String() != str {
			t.Fatalf("ParseType(%q) = %q, reparsed as %q", s, str, again)
		}
	})
}

// FuzzDataTypeJSON checks that no JSON input panics the type decoder and
// that an accepted type survives MarshalJSON (Java's form) unchanged,
// nested field ids included.
func FuzzDataTypeJSON(f *testing.F) {
	for _, s := range []string{
		`"INT"`, `"DECIMAL(10, 2) NOT NULL"`,
		`{"type":"ARRAY NOT NULL","element":"INT"}`,
		`{"type":"MAP","key":"STRING NOT NULL","value":"BIGINT","nullable":true}`,
		`{"type":"MAP<INT, STRING NOT NULL>","key":"INT","value":"STRING NOT NULL"}`,
		`{"type":"MULTISET<INT> NOT NULL","element":"INT","nullable":false}`,
		`{"type":"VECTOR","element":"FLOAT NOT NULL","length":4}`,
		`{"type":"ROW","fields":[{"id":1,"name":"a","type":{"type":"ROW NOT NULL","fields":[{"id":2,"name":"b","type":"INT","description":"d","defaultValue":"1"}]}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var typ DataType
		if err := json.Unmarshal(b, &typ); err != nil {
			return
		}
		out, err := json.Marshal(typ)
		if err != nil {
			t.Fatalf("marshal %q (from %q): %v", typ, b, err)
		}
		var again DataType
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("%q marshals to %s, which does not unmarshal: %v", b, out, err)
		}
		if !again.Equal(typ) || !sameType(again, typ) {
			t.Fatalf("%q: round trip through %s changed %q to %q", b, out, typ, again)
		}
	})
}
