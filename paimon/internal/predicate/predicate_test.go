package predicate

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func typ(t testing.TB, s string) types.DataType {
	t.Helper()
	dt, err := types.ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

func testFields(t testing.TB) []types.DataField {
	return []types.DataField{
		{ID: 0, Name: "i", Type: typ(t, "INT")},
		{ID: 1, Name: "s", Type: typ(t, "STRING")},
		{ID: 2, Name: "d", Type: typ(t, "DOUBLE")},
		{ID: 3, Name: "dec", Type: typ(t, "DECIMAL(10, 2)")},
		{ID: 4, Name: "dt", Type: typ(t, "DATE")},
		{ID: 5, Name: "ts", Type: typ(t, "TIMESTAMP(6)")},
		{ID: 6, Name: "b", Type: typ(t, "BOOLEAN")},
		{ID: 7, Name: "bin", Type: typ(t, "BYTES")},
		{ID: 8, Name: "tiny", Type: typ(t, "TINYINT")},
	}
}

func must(t testing.TB) func(*Predicate, error) *Predicate {
	return func(p *Predicate, err error) *Predicate {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func dec(t testing.TB, s string) types.DecimalValue {
	v, err := Convert(s, typ(t, "DECIMAL(10, 2)"))
	if err != nil {
		t.Fatal(err)
	}
	return v.(types.DecimalValue)
}

// Row semantics of Java's LeafFunctions (Equal/NotEqual/... are
// NullFalseLeafBinaryFunctions; In skips null literals; NotIn with a null
// literal is false; CompareUtils uses Comparable.compareTo, i.e.
// Double.compareTo and unsigned-byte BinaryString order).
func TestRowSemantics(t *testing.T) {
	b := NewBuilder(testFields(t))
	m := must(t)
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name string
		p    *Predicate
		v    any // value of the predicate's column
		want bool
	}{
		{"eq", m(b.Equal("i", 5)), int32(5), true},
		{"eq null value", m(b.Equal("i", 5)), nil, false},
		{"eq null literal", m(b.Equal("i", nil)), int32(5), false},
		{"ne", m(b.NotEqual("i", 5)), int32(4), true},
		{"ne null value", m(b.NotEqual("i", 5)), nil, false},
		{"ne null literal", m(b.NotEqual("i", nil)), int32(4), false},
		{"lt", m(b.LessThan("i", 5)), int32(4), true},
		{"lt eq", m(b.LessThan("i", 5)), int32(5), false},
		{"le", m(b.LessOrEqual("i", 5)), int32(5), true},
		{"gt null", m(b.GreaterThan("i", 5)), nil, false},
		{"ge", m(b.GreaterOrEqual("i", int64(5))), int32(6), true},
		{"is null", m(b.IsNull("i")), nil, true},
		{"is null no", m(b.IsNull("i")), int32(0), false},
		{"is not null", m(b.IsNotNull("i")), int32(0), true},
		{"in", m(b.In("i", 1, 2, 3)), int32(2), true},
		{"in miss", m(b.In("i", 1, 2, 3)), int32(4), false},
		{"in null literal", m(b.In("i", nil, 2)), int32(2), true},
		{"in null value", m(b.In("i", nil, 2)), nil, false},
		{"not in", m(b.NotIn("i", 1, 2)), int32(3), true},
		{"not in hit", m(b.NotIn("i", 1, 2)), int32(2), false},
		{"not in null literal", m(b.NotIn("i", 1, nil)), int32(3), false},
		{"not in null value", m(b.NotIn("i", 1)), nil, false},
		{"string bytes order", m(b.GreaterThan("s", "z")), "é", true}, // 0xc3 > 'z'
		{"string prefix order", m(b.LessThan("s", "ab")), "a", true},
		{"starts", m(b.StartsWith("s", "ab")), "abc", true},
		{"starts no", m(b.StartsWith("s", "ab")), "ba", false},
		{"starts null", m(b.StartsWith("s", "ab")), nil, false},
		{"ends", m(b.EndsWith("s", "bc")), "abc", true},
		{"contains", m(b.Contains("s", "b")), "abc", true},
		{"contains empty", m(b.Contains("s", "")), "", true},
		{"nan eq nan", m(b.Equal("d", nan)), nan, true},
		{"nan gt inf", m(b.GreaterThan("d", math.Inf(1))), nan, true},
		{"nan not lt", m(b.LessThan("d", 1.0)), nan, false},
		{"neg zero lt zero", m(b.LessThan("d", 0.0)), negZero, true},
		{"neg zero ne zero", m(b.Equal("d", 0.0)), negZero, false},
		{"decimal", m(b.GreaterThan("dec", "1.5")), dec(t, "1.51"), true},
		{"decimal eq scale", m(b.Equal("dec", 2)), dec(t, "2.00"), true},
		{"date", m(b.Equal("dt", "2024-01-02")), types.DateValue(19724), true},
		{"timestamp", m(b.LessThan("ts", "2024-01-01 00:00:00.000001")), types.TimestampValue{Millis: 1704067200000}, true},
		{"timestamp nanos", m(b.Equal("ts", "2024-01-01 00:00:00.000001")), types.TimestampValue{Millis: 1704067200000, NanoOfMilli: 1000}, true},
		{"bool", m(b.Equal("b", true)), true, true},
		{"bool lt", m(b.LessThan("b", true)), false, true},
		{"binary", m(b.LessThan("bin", []byte{0x80})), []byte{0x7f, 0xff}, true},
		{"binary unsigned", m(b.LessThan("bin", []byte{0x7f})), []byte{0x80}, false},
		{"between", m(b.Between("i", 1, 3)), int32(3), true},
		{"between out", m(b.Between("i", 1, 3)), int32(4), false},
		{"between null", m(b.Between("i", 1, 3)), nil, false},
	}
	for _, c := range cases {
		row := make([]any, 9)
		row[c.p.leafIndex()] = c.v
		if got := c.p.Test(row); got != c.want {
			t.Errorf("%s: %s on %v = %v, want %v", c.name, c.p, c.v, got, c.want)
		}
	}
}

func (p *Predicate) leafIndex() int {
	for p.op == And || p.op == Or {
		p = p.children[0]
	}
	return p.index
}

// NOT follows SQL three-valued logic: NOT(x = 1) is not true for NULL x,
// NOT(x IN (1, NULL)) is never true, NOT(x LIKE 'a%') is true for 'b'.
func TestNegate(t *testing.T) {
	b := NewBuilder(testFields(t))
	m := must(t)
	cases := []struct {
		p    *Predicate
		v    any
		want bool
	}{
		{m(b.Equal("i", 1)), nil, false},
		{m(b.Equal("i", 1)), int32(2), true},
		{m(b.In("i", 1, nil)), int32(2), false},
		{m(b.In("i", 1, nil)), int32(1), false},
		{m(b.StartsWith("s", "a")), "b", true},
		{m(b.StartsWith("s", "a")), nil, false},
		{m(b.IsNull("s")), nil, false},
		{m(b.Between("i", 1, 3)), int32(0), true},
		{m(b.Between("i", 1, 3)), int32(2), false},
		{m(b.Between("i", 1, 3)), nil, false},
	}
	for _, c := range cases {
		n := b.Not(c.p)
		row := make([]any, 9)
		row[c.p.leafIndex()] = c.v
		if got := n.Test(row); got != c.want {
			t.Errorf("%s on %v = %v, want %v", n, c.v, got, c.want)
		}
		if back := Negate(n); back.String() != c.p.String() {
			t.Errorf("double negation %s != %s", back, c.p)
		}
	}
}

func TestLiteralConversion(t *testing.T) {
	b := NewBuilder(testFields(t))
	ok := []struct {
		field string
		lit   any
		want  any
	}{
		{"i", 5, int32(5)},
		{"i", int64(-7), int32(-7)},
		{"i", 3.0, int32(3)},
		{"tiny", 127, int8(127)},
		{"d", 1, float64(1)},
		{"s", "x", "x"},
		{"dt", "2024-01-02", types.DateValue(19724)},
		{"ts", "2024-01-01T00:00:01.5", types.TimestampValue{Millis: 1704067201500}},
		{"dec", 1.25, dec(t, "1.25")},
		{"bin", "ab", []byte("ab")},
	}
	for _, c := range ok {
		p, err := b.Equal(c.field, c.lit)
		if err != nil {
			t.Errorf("%s = %v: %v", c.field, c.lit, err)
			continue
		}
		if got, _ := typeutil.CompareValues(p.literals[0], c.want); got != 0 || p.literals[0] == nil {
			t.Errorf("%s = %v converted to %#v, want %#v", c.field, c.lit, p.literals[0], c.want)
		}
	}
	bad := []struct {
		field string
		lit   any
		want  string
	}{
		{"i", "5", "not an integer"},
		{"i", true, "not an integer"},
		{"d", "x", "not a number"},
		{"dt", "2024-13-01", "not a date"},
		{"s", 5, "cannot be a VARCHAR"},
		{"nope", 1, `unknown column "nope"`},
	}
	for _, c := range bad {
		_, err := b.Equal(c.field, c.lit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: err %v, want %q", c.field, c.lit, err, c.want)
		}
	}
	if _, err := b.StartsWith("i", "1"); err == nil {
		t.Error("StartsWith on INT accepted")
	}
	arr := []types.DataField{{ID: 1, Name: "a", Type: typ(t, "ARRAY<INT>")}}
	if _, err := NewBuilder(arr).Equal("a", 1); !errors.Is(err, types.ErrUnsupported) {
		t.Errorf("comparison on a nested column: %v", err)
	}
}

func i64(v int64) *int64 { return &v }

// Stats semantics of Java's LeafPredicate.test(rowCount, min, max, nulls)
// and the LeafFunctions' stats tests.
func TestStats(t *testing.T) {
	b := NewBuilder(testFields(t))
	m := must(t)
	type st struct {
		min, max any
		nulls    *int64
	}
	cases := []struct {
		name string
		p    *Predicate
		s    st
		want bool
	}{
		{"eq in range", m(b.Equal("i", 5)), st{int32(1), int32(9), i64(0)}, true},
		{"eq below", m(b.Equal("i", 0)), st{int32(1), int32(9), i64(0)}, false},
		{"eq above", m(b.Equal("i", 10)), st{int32(1), int32(9), i64(0)}, false},
		{"eq bound", m(b.Equal("i", 9)), st{int32(1), int32(9), nil}, true},
		{"unknown min", m(b.Equal("i", 10)), st{nil, int32(9), i64(0)}, true},
		{"all null", m(b.Equal("i", 5)), st{nil, nil, i64(10)}, false},
		{"all null ne", m(b.NotEqual("i", 5)), st{int32(1), int32(9), i64(10)}, false},
		{"null literal", m(b.Equal("i", nil)), st{int32(1), int32(9), i64(0)}, false},
		{"ne single value", m(b.NotEqual("i", 5)), st{int32(5), int32(5), i64(0)}, false},
		{"ne range", m(b.NotEqual("i", 5)), st{int32(5), int32(6), i64(0)}, true},
		{"lt", m(b.LessThan("i", 1)), st{int32(1), int32(9), i64(0)}, false},
		{"le", m(b.LessOrEqual("i", 1)), st{int32(1), int32(9), i64(0)}, true},
		{"gt", m(b.GreaterThan("i", 9)), st{int32(1), int32(9), i64(0)}, false},
		{"ge", m(b.GreaterOrEqual("i", 9)), st{int32(1), int32(9), i64(0)}, true},
		{"is null none", m(b.IsNull("i")), st{int32(1), int32(9), i64(0)}, false},
		{"is null some", m(b.IsNull("i")), st{int32(1), int32(9), i64(1)}, true},
		{"is null unknown", m(b.IsNull("i")), st{int32(1), int32(9), nil}, true},
		{"is not null all null", m(b.IsNotNull("i")), st{nil, nil, i64(10)}, false},
		{"is not null", m(b.IsNotNull("i")), st{nil, nil, i64(9)}, true},
		{"in", m(b.In("i", 0, 12, 7)), st{int32(1), int32(9), i64(0)}, true},
		{"in miss", m(b.In("i", 0, 12, nil)), st{int32(1), int32(9), i64(0)}, false},
		{"not in single", m(b.NotIn("i", 5)), st{int32(5), int32(5), i64(0)}, false},
		{"not in null lit", m(b.NotIn("i", 7, nil)), st{int32(1), int32(9), i64(0)}, false},
		{"not in", m(b.NotIn("i", 5)), st{int32(1), int32(9), i64(0)}, true},
		// truncate(16): min "Apache Paimon su", max "Apache Paimon sv" for
		// the value "Apache Paimon supports primary key tables".
		{"truncated eq", m(b.Equal("s", "Apache Paimon supports primary key tables")), st{"Apache Paimon su", "Apache Paimon sv", i64(0)}, true},
		{"truncated ge", m(b.GreaterOrEqual("s", "Apache Paimon supports primary key tables")), st{"Apache Paimon su", "Apache Paimon sv", i64(0)}, true},
		{"truncated prefix", m(b.StartsWith("s", "Apache Paimon supp")), st{"Apache Paimon su", "Apache Paimon sv", i64(0)}, true},
		{"prefix below", m(b.StartsWith("s", "Ab")), st{"Apache Paimon su", "Apache Paimon sv", i64(0)}, false},
		{"prefix above", m(b.StartsWith("s", "B")), st{"Apache Paimon su", "Apache Paimon sv", i64(0)}, false},
		{"prefix spans", m(b.StartsWith("s", "b")), st{"a", "c", i64(0)}, true},
		{"prefix is max prefix", m(b.StartsWith("s", "ca")), st{"a", "cab", i64(0)}, true},
		{"ends never prunes", m(b.EndsWith("s", "zz")), st{"a", "b", i64(0)}, true},
		{"not starts", b.Not(m(b.StartsWith("s", "a"))), st{"a", "ab", i64(0)}, true},
		{"double nan max", m(b.GreaterThan("d", 100.0)), st{1.0, 2.0, i64(0)}, true},
		{"double min", m(b.LessThan("d", 1.0)), st{1.0, 2.0, i64(0)}, false},
		{"double neg zero", m(b.LessThan("d", 0.0)), st{0.0, 2.0, i64(0)}, true},
		{"and", b.And(m(b.GreaterThan("i", 0)), m(b.LessThan("i", 0))), st{int32(1), int32(9), i64(0)}, false},
		{"or", b.Or(m(b.GreaterThan("i", 100)), m(b.LessThan("i", 2))), st{int32(1), int32(9), i64(0)}, true},
		{"decimal", m(b.GreaterThan("dec", "9.99")), st{dec(t, "1.00"), dec(t, "9.99"), i64(0)}, false},
		{"timestamp", m(b.GreaterThan("ts", "2024-01-01 00:00:00.000001")), st{types.TimestampValue{Millis: 1704067200000}, types.TimestampValue{Millis: 1704067200000, NanoOfMilli: 1000}, i64(0)}, false},
	}
	for _, c := range cases {
		min, max := make([]any, 9), make([]any, 9)
		nulls := make([]*int64, 9)
		i := c.p.leafIndex()
		min[i], max[i], nulls[i] = c.s.min, c.s.max, c.s.nulls
		if got := c.p.TestStats(10, min, max, nulls); got != c.want {
			t.Errorf("%s: %s on [%v, %v] nulls %v = %v, want %v", c.name, c.p, c.s.min, c.s.max, c.s.nulls, got, c.want)
		}
	}
	// Short stats vectors (fewer columns) mean unknown.
	if !m(b.Equal("i", 100)).TestStats(10, nil, nil, nil) {
		t.Error("missing stats pruned")
	}
}

func TestFieldsPartitionPartRemap(t *testing.T) {
	fs := testFields(t)
	p, err := Parse("i > 1 AND dt = '2024-01-02' AND (s = 'a' OR i IS NULL) AND (dt IS NULL OR b)", fs)
	if err == nil {
		t.Fatalf("bare boolean column accepted: %s", p)
	}
	p, err = Parse("i > 1 AND dt = '2024-01-02' AND (s = 'a' OR i IS NULL) AND (dt IS NULL OR b = TRUE)", fs)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Fields(), ","); got != "i,dt,s,b" {
		t.Errorf("fields = %s", got)
	}
	part := []types.DataField{fs[6], fs[4]} // partition row (b, dt)
	pp := PartitionPart(p, part)
	if pp == nil || strings.Join(pp.Fields(), ",") != "dt,b" {
		t.Fatalf("partition part = %v", pp)
	}
	if !pp.Test([]any{true, types.DateValue(19724)}) || pp.Test([]any{true, types.DateValue(19725)}) ||
		pp.Test([]any{false, types.DateValue(19724)}) {
		t.Errorf("partition part %s evaluates wrongly", pp)
	}
	if PartitionPart(p, []types.DataField{fs[8]}) != nil {
		t.Error("partition part on unrelated column")
	}

	// A file written before s existed, with i renamed to j.
	old := []types.DataField{{ID: 0, Name: "j", Type: typ(t, "INT")}}
	q, err := Parse("i >= 3 AND (s = 'x' OR i > 5)", fs)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Remap(q, old)
	if err != nil {
		t.Fatal(err)
	}
	// s reads as NULL: s = 'x' is false, so only i > 5 can select.
	if r.Test([]any{int32(4)}) || !r.Test([]any{int32(6)}) || r.Test([]any{nil}) {
		t.Errorf("remapped %s wrong", r)
	}
	r2, _ := Remap(must(t)(NewBuilder(fs).IsNull("s")), old)
	if !r2.Test([]any{int32(1)}) {
		t.Errorf("IS NULL on a missing column should be true: %s", r2)
	}
	widened := []types.DataField{{ID: 0, Name: "i", Type: typ(t, "BIGINT")}}
	if _, err := Remap(q, widened); err == nil || !strings.Contains(err.Error(), "type changed") {
		t.Errorf("type change: %v", err)
	}
}
