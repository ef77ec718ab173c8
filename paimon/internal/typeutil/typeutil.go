// Package typeutil holds the small helpers over paimon/types the reader's
// packages share: field lookup by name and id, type equality without
// nullability, timestamp values from Arrow units, Java's float spelling.
package typeutil

import (
	"math"
	"strconv"
	"strings"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// FieldByName returns the index of the field named name, or -1.
func FieldByName(fields []types.DataField, name string) int {
	for i := range fields {
		if fields[i].Name == name {
			return i
		}
	}
	return -1
}

// FieldByID returns the index of the field with the given id, or -1.
func FieldByID(fields []types.DataField, id int) int {
	for i := range fields {
		if fields[i].ID == id {
			return i
		}
	}
	return -1
}

// SameIgnoringNullability reports whether two types are equal, nested field
// ids included, when nullability is ignored at every level: a file column of
// such a type can be used as is (Arrow arrays don't carry nullability, and
// NOT NULL is never enforced on read).
func SameIgnoringNullability(a, b types.DataType) bool {
	return stripNull(a).Equal(stripNull(b))
}

func stripNull(t types.DataType) types.DataType {
	t.Nullable = true
	if t.Element != nil {
		e := stripNull(*t.Element)
		t.Element = &e
	}
	if t.Key != nil {
		k := stripNull(*t.Key)
		t.Key = &k
	}
	if t.Value != nil {
		v := stripNull(*t.Value)
		t.Value = &v
	}
	if len(t.Fields) > 0 {
		fs := make([]types.DataField, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = stripNull(f.Type)
			fs[i] = f
		}
		t.Fields = fs
	}
	return t
}

// TimestampFromNanos builds a TimestampValue from epoch nanoseconds.
func TimestampFromNanos(n int64) types.TimestampValue { return fromSubMillis(n, 1e6, 1) }

// TimestampFromMicros builds a TimestampValue from epoch microseconds.
func TimestampFromMicros(us int64) types.TimestampValue { return fromSubMillis(us, 1000, 1000) }

// fromSubMillis splits v units (perMilli to the millisecond, nanos
// nanoseconds each) into milliseconds and the nanoseconds within, flooring
// so that pre-epoch values keep a non-negative remainder. It never
// multiplies v itself, which would overflow past year 2262.
func fromSubMillis(v, perMilli, nanos int64) types.TimestampValue {
	ms := arith.FloorDiv(v, perMilli)
	return types.TimestampValue{Millis: ms, NanoOfMilli: int32((v - ms*perMilli) * nanos)}
}

// JavaFloatString renders a float like Java's Float/Double.toString: the
// shortest round-trip digits, plain notation for 1e-3 <= |v| < 1e7 (always
// with a fraction digit), otherwise "d.dddE<exp>".
func JavaFloatString(v float64, bits int) string {
	if s, ok := arith.SpecialFloat(v); ok {
		return s
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'e', -1, bits) // e.g. 1e+10, 1.5e-05
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
