package consumer

import (
	"strings"
	"testing"
)

func TestParseSpellings(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want int64
	}{
		// Java's Jackson pretty printer, as quoted in apache/paimon issue #5819.
		{"java pretty", "{\n  \"nextSnapshot\" : 2931\n}", 2931},
		// pypaimon's json.dumps.
		{"pypaimon compact", `{"nextSnapshot": 42}`, 42},
		{"no spaces", `{"nextSnapshot":7}`, 7},
		{"trailing newline", "{\"nextSnapshot\": 9}\n", 9},
		{"unknown fields ignored", `{"a":[1,{"b":null}],"nextSnapshot":5,"z":"x"}`, 5},
		{"max int64", `{"nextSnapshot": 9223372036854775807}`, 9223372036854775807},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConsumer([]byte(tc.in))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if c.NextSnapshot != tc.want {
				t.Fatalf("Parse(%q) = %d, want %d", tc.in, c.NextSnapshot, tc.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		name, in, wantErr string
	}{
		{"empty", ``, "empty file"},
		{"blank", " \n", "empty file"},
		{"truncated", `{"nextSnapshot": 4`, "parse consumer JSON"},
		{"torn pretty", "{\n  \"nextSnap", "parse consumer JSON"},
		{"missing field", `{"next_snapshot": 4}`, "nextSnapshot is missing"},
		{"case differs", `{"NextSnapshot": 4}`, "nextSnapshot is missing"},
		{"string", `{"nextSnapshot": "42"}`, "want an integer"},
		{"fraction", `{"nextSnapshot": 42.5}`, "want an integer"},
		{"exponent", `{"nextSnapshot": 4e1}`, "want an integer"},
		{"null", `{"nextSnapshot": null}`, "want an integer"},
		{"bool", `{"nextSnapshot": true}`, "want an integer"},
		{"overflow", `{"nextSnapshot": 9223372036854775808}`, "does not fit"},
		{"zero", `{"nextSnapshot": 0}`, "snapshot ids start at 1"},
		{"negative", `{"nextSnapshot": -1}`, "snapshot ids start at 1"},
		{"array", `[1]`, "parse consumer JSON"},
		{"bare number", `42`, "parse consumer JSON"},
		{"null doc", `null`, "not a JSON object"},
		{"trailing garbage", `{"nextSnapshot": 1} x`, "trailing data"},
		{"two objects", `{"nextSnapshot": 1}{"nextSnapshot": 2}`, "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConsumer([]byte(tc.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error", tc.in, c)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Parse(%q) error %q does not mention %q", tc.in, err, tc.wantErr)
			}
		})
	}
}

func TestJSONIsJavaPrettyForm(t *testing.T) {
	got := string(Consumer{NextSnapshot: 2931}.JSON())
	want := "{\n  \"nextSnapshot\" : 2931\n}"
	if got != want {
		t.Fatalf("JSON() = %q, want %q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"{\n  \"nextSnapshot\" : 2931\n}",
		`{"nextSnapshot": 42}`,
		`{"x": {"nextSnapshot": 1}, "nextSnapshot": -3}`,
		`{"nextSnapshot": 1e3}`,
		`{"nextSnapshot": 99999999999999999999}`,
		`{"nextSnapshot": 4`,
		`[]`, `null`, ``, "\x00\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConsumer(data)
		if err != nil {
			return
		}
		back, err := parseConsumer(c.JSON())
		if err != nil || back != c {
			t.Fatalf("round trip of %+v: got %+v, %v", c, back, err)
		}
	})
}
