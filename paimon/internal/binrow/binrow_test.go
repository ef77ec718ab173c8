package binrow

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func mustType(t testing.TB, s string) types.DataType {
	t.Helper()
	dt, err := types.ParseType(s)
	if err != nil {
		t.Fatalf("parse type %q: %v", s, err)
	}
	return dt
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Golden bytes from paimon-format.md §5.4 (a Java-written _MIN_VALUES row)
// and §4.3 (_MIN_KEY of the same file).
func TestGoldenJavaRows(t *testing.T) {
	fields := []types.DataType{mustType(t, "INT"), mustType(t, "STRING")}
	minValues := unhex(t, "00000002 0000000000000000 0100000000000000 1000000018000000"+
		hex.EncodeToString([]byte("Apache Paimon su")))
	got, err := Decode(minValues, fields)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != int32(1) || got[1] != "Apache Paimon su" {
		t.Fatalf("min values = %#v", got)
	}
	enc, err := Encode(got, fields)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, minValues) {
		t.Fatalf("re-encoded\n%x\nwant\n%x", enc, minValues)
	}

	minKey := unhex(t, "00000001 0000000000000000 0100000000000000")
	got, err = Decode(minKey, fields[:1])
	if err != nil || len(got) != 1 || got[0] != int32(1) {
		t.Fatalf("min key = %#v, %v", got, err)
	}
	empty := unhex(t, "00000000 0000000000000000")
	got, kind, err := DecodeWithKind(empty, fields)
	if err != nil || len(got) != 0 || kind != Insert {
		t.Fatalf("empty row = %#v %v %v", got, kind, err)
	}
	if enc, _ := Encode(nil, nil); !bytes.Equal(enc, empty) {
		t.Fatalf("empty row encodes to %x", enc)
	}
}

type fixture struct {
	PartitionTypes []string `json:"partition_types"`
	AllNames       []string `json:"all_names"`
	ValueTypes     []string `json:"value_types"`
	Entries        []struct {
		Partition  string   `json:"partition"`
		MinKey     string   `json:"min_key"`
		RowCount   int64    `json:"row_count"`
		StatsCols  []string `json:"stats_cols"`
		MinValues  string   `json:"min_values"`
		MaxValues  string   `json:"max_values"`
		NullCounts []*int64 `json:"null_counts"`
	} `json:"entries"`
	Expected []struct {
		Partition []any `json:"partition"`
		Min       []any `json:"min"`
		Max       []any `json:"max"`
		Nulls     []int64
	} `json:"expected"`
}

// canon renders a decoded value like gen_rows.py renders the Python value
// it wrote, so the two can be compared as strings.
func canon(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	case int8, int16, int32, int64:
		return toStr(x)
	case string:
		return x
	case []byte:
		return "hex:" + hex.EncodeToString(x)
	case types.DecimalValue:
		return x.String()
	case types.DateValue:
		return x.String()
	case types.TimestampValue:
		return x.Time().Format("2006-01-02T15:04:05.000000")
	}
	return v
}

func toStr(v any) string {
	switch x := v.(type) {
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}

// sameValue compares a decoded value with the Python-side canonical value;
// floats are compared numerically because repr and Go spell them apart.
func sameValue(got, want any) bool {
	switch g := got.(type) {
	case float32:
		w, err := strconv.ParseFloat(want.(string), 64)
		return err == nil && float64(g) == w
	case float64:
		w, err := strconv.ParseFloat(want.(string), 64)
		return err == nil && g == w
	}
	return canon(got) == want
}

// TestPypaimonManifests decodes _PARTITION and _VALUE_STATS rows dumped from
// manifests of a table written by pypaimon 2.1.0 (testdata/gen_rows.py) and
// compares them with the values the script wrote; re-encoding must give the
// same bytes.
func TestPypaimonManifests(t *testing.T) {
	raw, err := os.ReadFile("testdata/partitions.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx fixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	var ptypes, all []types.DataType
	for _, s := range fx.PartitionTypes {
		ptypes = append(ptypes, mustType(t, s))
	}
	all = append(all, ptypes...)
	for _, s := range fx.ValueTypes {
		all = append(all, mustType(t, s))
	}
	if len(fx.Entries) != len(fx.Expected) || len(fx.Entries) == 0 {
		t.Fatalf("%d entries, %d expected", len(fx.Entries), len(fx.Expected))
	}
	matched := map[int]bool{}
	for ei, e := range fx.Entries {
		pb := unhex(t, e.Partition)
		part, err := Decode(pb, ptypes)
		if err != nil {
			t.Fatalf("entry %d partition: %v", ei, err)
		}
		idx := -1
		for xi, x := range fx.Expected {
			ok := true
			for i := range x.Partition {
				if !sameValue(part[i], x.Partition[i]) {
					ok = false
					break
				}
			}
			if ok {
				idx = xi
			}
		}
		if idx < 0 {
			got := make([]any, len(part))
			for i := range part {
				got[i] = canon(part[i])
			}
			t.Fatalf("entry %d partition %v matches no written partition", ei, got)
		}
		matched[idx] = true
		if enc, err := Encode(part, ptypes); err != nil || !bytes.Equal(enc, pb) {
			t.Errorf("entry %d partition re-encoded\n%x (%v)\nwant\n%x", ei, enc, err, pb)
		}
		x := fx.Expected[idx]
		for _, side := range []struct {
			name string
			hex  string
			want []any
		}{{"min", e.MinValues, x.Min}, {"max", e.MaxValues, x.Max}} {
			b := unhex(t, side.hex)
			vals, err := Decode(b, all)
			if err != nil {
				t.Fatalf("entry %d %s: %v", ei, side.name, err)
			}
			if len(vals) != len(all) {
				t.Fatalf("entry %d %s: %d values", ei, side.name, len(vals))
			}
			for i := range vals {
				if !sameValue(vals[i], side.want[i]) {
					t.Errorf("entry %d %s %s = %v (%T), want %v", ei, side.name, fx.AllNames[i], canon(vals[i]), vals[i], side.want[i])
				}
			}
			if enc, err := Encode(vals, all); err != nil || !bytes.Equal(enc, b) {
				t.Errorf("entry %d %s re-encoded\n%x (%v)\nwant\n%x", ei, side.name, enc, err, b)
			}
		}
		for i, n := range e.NullCounts {
			if n == nil || *n != x.Nulls[i] {
				t.Errorf("entry %d null count %s = %v, want %d", ei, fx.AllNames[i], n, x.Nulls[i])
			}
		}
	}
	if len(matched) != len(fx.Expected) {
		t.Errorf("only %d of %d partitions found", len(matched), len(fx.Expected))
	}
}

func TestAllTypesRoundTrip(t *testing.T) {
	ts := []string{"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
		"DECIMAL(5, 2)", "DECIMAL(38, 10)", "CHAR(3)", "STRING", "BINARY(2)", "BYTES", "DATE",
		"TIME(3)", "TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "DECIMAL(20, 0)",
		"TIMESTAMP(6)"}
	var fields []types.DataType
	for _, s := range ts {
		fields = append(fields, mustType(t, s))
	}
	dec := func(s string, p, sc int32) types.DecimalValue {
		bi, ok := new(big.Int).SetString(s, 10)
		if !ok {
			t.Fatal(s)
		}
		return types.DecimalValue{Unscaled: decimal128.FromBigInt(bi), Precision: p, Scale: sc}
	}
	vals := []any{true, int8(-128), int16(-2), int32(math.MinInt32), int64(math.MaxInt64), float32(math.Inf(-1)),
		math.NaN(), dec("-12345", 5, 2), dec("-99999999999999999999999999999999999999", 38, 10), "abc",
		"a string longer than seven bytes", []byte{0, 1}, []byte("0123456789"), types.DateValue(-1),
		types.TimeValue(86399999), types.TimestampValue{Millis: -1}, types.TimestampValue{Millis: 1, NanoOfMilli: 999999},
		types.TimestampValue{Millis: 1700000000000, NanoOfMilli: 1000}, nil, nil}
	enc, err := Encode(vals, fields)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(enc, fields)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		a, b := vals[i], got[i]
		if f, ok := a.(float64); ok && math.IsNaN(f) {
			if g, ok := b.(float64); !ok || !math.IsNaN(g) {
				t.Errorf("field %d: got %v", i, b)
			}
			continue
		}
		if ab, ok := a.([]byte); ok {
			if !bytes.Equal(ab, b.([]byte)) {
				t.Errorf("field %d: got %v want %v", i, b, a)
			}
			continue
		}
		if a != b {
			t.Errorf("field %d (%s): got %#v want %#v", i, ts[i], b, a)
		}
	}
	// arity 20 → 8-byte null bits (arity ≤ 56); check the layout's fixed part.
	// Fields 18 and 19 are bits 26 and 27: byte 3, masks 0x04 and 0x08.
	if enc[4+3] != 0x0c {
		t.Errorf("null bits for fields 18,19 not set: %x", enc[4:12])
	}
	// The null DECIMAL(20,0) keeps its reserved area: slot = offset<<32.
	slot := binary.LittleEndian.Uint64(enc[4+8+8*18:])
	if slot == 0 || slot&0xffffffff != 0 {
		t.Errorf("null non-compact decimal slot = %x", slot)
	}
}

func TestInlineStringLayout(t *testing.T) {
	f := []types.DataType{mustType(t, "STRING")}
	// "abc" inline: bytes 0..2 then byte 7 = 0x80|3.
	want := unhex(t, "00000001 0000000000000000 6162630000000083")
	got, err := Encode([]any{"abc"}, f)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("encode = %x %v", got, err)
	}
	// Exactly 8 bytes goes out of line: slot = 16<<32 | 8.
	want = unhex(t, "00000001 0000000000000000 0800000010000000 3132333435363738")
	got, err = Encode([]any{"12345678"}, f)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("encode = %x %v", got, err)
	}
	// 57 fields need 16 bytes of null bits.
	many := make([]types.DataType, 57)
	vals := make([]any, 57)
	for i := range many {
		many[i] = mustType(t, "INT")
	}
	vals[56] = int32(7)
	enc, err := Encode(vals, many)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) != 4+16+8*57 {
		t.Fatalf("len = %d", len(enc))
	}
	dec, err := Decode(enc, many)
	if err != nil || dec[56] != int32(7) || dec[0] != nil {
		t.Fatalf("decode = %v %v", dec[56], err)
	}
}

// A stored non-compact decimal with more digits than its precision reads as
// NULL, like Java's Decimal.fromUnscaledBytes.
func TestDecimalOverPrecisionIsNull(t *testing.T) {
	f := []types.DataType{mustType(t, "DECIMAL(19, 0)")}
	// 10^19 needs 20 digits; big-endian 8ac7230489e80000, 9 bytes with sign.
	row := unhex(t, "00000001 0000000000000000 0900000010000000 008ac7230489e80000 00000000000000")
	got, err := Decode(row, f)
	if err != nil || got[0] != nil {
		t.Fatalf("got %v %v", got, err)
	}
	row = unhex(t, "00000001 0000000000000000 0800000010000000 7fffffffffffffff 0000000000000000")
	got, err = Decode(row, f)
	if err != nil || got[0].(types.DecimalValue).String() != "9223372036854775807" {
		t.Fatalf("got %v %v", got, err)
	}
}

func TestCorruptRows(t *testing.T) {
	str := []types.DataType{mustType(t, "STRING")}
	cases := []struct {
		name, hex string
		fields    []types.DataType
		want      string
	}{
		{"short prefix", "000000", str, "arity prefix"},
		{"arity too large", "00000002 0000000000000000 0000000000000000", str, "arity 2 is larger than the 1"},
		{"negative arity", "ffffffff 0000000000000000", str, "negative arity"},
		{"truncated fixed part", "00000001 0000000000000000 00000000", str, "fixed part"},
		{"offset out of row", "00000001 0000000000000000 0800000040000000", str, "outside"},
		{"length out of row", "00000001 0000000000000000 ffffff7f10000000", str, "outside"},
		{"bad row kind", "00000001 0900000000000000 0000000000000083", str, "row kind"},
		{"bad nanos", "00000001 0000000000000000 40420f0010000000 0000000000000000", []types.DataType{mustType(t, "TIMESTAMP(6)")}, "nano"},
		{"decimal length", "00000001 0000000000000000 1100000010000000", []types.DataType{mustType(t, "DECIMAL(30, 0)")}, "larger than 16"},
		{"nested", "00000001 0000000000000000 0000000010000000", []types.DataType{mustType(t, "ARRAY<INT>")}, "not supported"},
	}
	for _, c := range cases {
		_, err := Decode(unhex(t, c.hex), c.fields)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	_, err := Decode(unhex(t, "00000001 0000000000000000 0000000010000000"), []types.DataType{mustType(t, "ROW<a INT>")})
	if !errors.Is(err, types.ErrUnsupported) {
		t.Errorf("nested row: %v", err)
	}
	// A null nested value is fine (stats of complex columns).
	got, err := Decode(unhex(t, "00000001 0001000000000000 0000000000000000"), []types.DataType{mustType(t, "MAP<INT, INT>")})
	if err != nil || got[0] != nil {
		t.Errorf("null nested: %v %v", got, err)
	}
}

func TestFewerFieldsThanTypes(t *testing.T) {
	f := []types.DataType{mustType(t, "INT"), mustType(t, "STRING")}
	got, err := Decode(unhex(t, "00000001 0000000000000000 0500000000000000"), f)
	if err != nil || len(got) != 1 || got[0] != int32(5) {
		t.Fatalf("got %v %v", got, err)
	}
}

func FuzzDecode(f *testing.F) {
	all := []types.DataType{}
	for _, s := range []string{"INT", "STRING", "DECIMAL(25, 5)", "TIMESTAMP(6)", "BYTES", "DOUBLE",
		"DECIMAL(10, 2)", "TIMESTAMP(3)", "BOOLEAN", "DATE", "ARRAY<INT>"} {
		dt, err := types.ParseType(s)
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, dt)
	}
	raw, err := os.ReadFile("testdata/partitions.json")
	if err != nil {
		f.Fatal(err)
	}
	var fx fixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		f.Fatal(err)
	}
	for _, e := range fx.Entries {
		b, _ := hex.DecodeString(e.Partition)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, err := Decode(b, all)
		if err != nil {
			return
		}
		if len(vals) > len(all) {
			t.Fatalf("%d values", len(vals))
		}
	})
}
