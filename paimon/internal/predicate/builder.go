package predicate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Builder builds predicates against a row type (normally the read type of
// a table), converting literals to the field's value type up front so that
// evaluation never has to guess.
type Builder struct {
	fields []types.DataField
}

// NewBuilder returns a builder for predicates on rows of the given fields.
func NewBuilder(fields []types.DataField) *Builder {
	return &Builder{fields: append([]types.DataField(nil), fields...)}
}

// Fields returns the row type the builder refers to.
func (b *Builder) Fields() []types.DataField { return b.fields }

func (b *Builder) leaf(op Op, name string, lits ...any) (*Predicate, error) {
	i := typeutil.FieldByName(b.fields, name)
	if i < 0 {
		return nil, fmt.Errorf("predicate %s: unknown column %q", op, name)
	}
	f := b.fields[i]
	if op == IsNull || op == IsNotNull {
		// Every type has a null flag, nested and opaque ones too.
		return &Predicate{op: op, index: i, field: f}, nil
	}
	if f.Type.IsComposite() {
		return nil, fmt.Errorf("predicate %s on column %q: type %s: %w", op, name, f.Type, types.ErrUnsupported)
	}
	switch f.Type.Root {
	case types.Variant, types.Blob, types.Geometry, types.Geography:
		return nil, fmt.Errorf("predicate %s on column %q: type %s: %w", op, name, f.Type, types.ErrUnsupported)
	}
	src := &leafSource{op: op, lits: append([]any(nil), lits...)}
	out := make([]any, 0, len(lits))
	for _, l := range lits {
		if l != nil {
			if br, ok := bracketLiteral(l, f.Type); ok {
				switch op {
				case In, NotIn:
					continue // equal to no value of the column
				case Equal, NotEqual, LessThan, LessOrEqual, GreaterThan, GreaterOrEqual:
					nop, v := rewriteOutside(op, f.Type, br)
					return &Predicate{op: nop, index: i, field: f, literals: []any{v}, src: src}, nil
				}
			}
		}
		v, err := Convert(l, f.Type)
		if err != nil {
			return nil, fmt.Errorf("predicate %s on column %q (%s): %w", op, name, f.Type, err)
		}
		out = append(out, v)
	}
	return &Predicate{op: op, index: i, field: f, literals: out, src: src}, nil
}

// Equal matches rows whose column equals v (never a NULL column or v).
func (b *Builder) Equal(field string, v any) (*Predicate, error) { return b.leaf(Equal, field, v) }

// NotEqual matches non-NULL columns different from a non-NULL v.
func (b *Builder) NotEqual(field string, v any) (*Predicate, error) {
	return b.leaf(NotEqual, field, v)
}

// LessThan matches column < v.
func (b *Builder) LessThan(field string, v any) (*Predicate, error) {
	return b.leaf(LessThan, field, v)
}

// LessOrEqual matches column <= v.
func (b *Builder) LessOrEqual(field string, v any) (*Predicate, error) {
	return b.leaf(LessOrEqual, field, v)
}

// GreaterThan matches column > v.
func (b *Builder) GreaterThan(field string, v any) (*Predicate, error) {
	return b.leaf(GreaterThan, field, v)
}

// GreaterOrEqual matches column >= v.
func (b *Builder) GreaterOrEqual(field string, v any) (*Predicate, error) {
	return b.leaf(GreaterOrEqual, field, v)
}

// IsNull matches NULL columns.
func (b *Builder) IsNull(field string) (*Predicate, error) { return b.leaf(IsNull, field) }

// IsNotNull matches non-NULL columns.
func (b *Builder) IsNotNull(field string) (*Predicate, error) { return b.leaf(IsNotNull, field) }

// In matches a column equal to one of vs; NULL literals never match.
func (b *Builder) In(field string, vs ...any) (*Predicate, error) {
	if len(vs) == 0 {
		return nil, fmt.Errorf("predicate IN on column %q: no values", field)
	}
	return b.leaf(In, field, vs...)
}

// NotIn matches a non-NULL column equal to none of vs; with a NULL among vs
// it matches nothing (SQL: x NOT IN (…, NULL) is never true).
func (b *Builder) NotIn(field string, vs ...any) (*Predicate, error) {
	if len(vs) == 0 {
		return nil, fmt.Errorf("predicate NOT IN on column %q: no values", field)
	}
	return b.leaf(NotIn, field, vs...)
}

// Between matches lo <= column <= hi (inclusive, as SQL).
func (b *Builder) Between(field string, lo, hi any) (*Predicate, error) {
	l, err := b.GreaterOrEqual(field, lo)
	if err != nil {
		return nil, err
	}
	h, err := b.LessOrEqual(field, hi)
	if err != nil {
		return nil, err
	}
	return AndOf(l, h), nil
}

func (b *Builder) pattern(op Op, field, pat string) (*Predicate, error) {
	i := typeutil.FieldByName(b.fields, field)
	if i >= 0 && !b.fields[i].Type.IsString() && !b.fields[i].Type.IsBinary() {
		return nil, fmt.Errorf("predicate %s on column %q: needs a string or binary column, not %s", op, field, b.fields[i].Type)
	}
	return b.leaf(op, field, pat)
}

// StartsWith matches columns beginning with prefix (LIKE 'prefix%').
func (b *Builder) StartsWith(field, prefix string) (*Predicate, error) {
	return b.pattern(StartsWith, field, prefix)
}

// EndsWith matches columns ending with suffix (LIKE '%suffix').
func (b *Builder) EndsWith(field, suffix string) (*Predicate, error) {
	return b.pattern(EndsWith, field, suffix)
}

// Contains matches columns containing infix (LIKE '%infix%').
func (b *Builder) Contains(field, infix string) (*Predicate, error) {
	return b.pattern(Contains, field, infix)
}

// And combines predicates with AND; nil operands are skipped, nested ANDs
// flattened. It returns nil when nothing is left (no filter).
func (b *Builder) And(ps ...*Predicate) *Predicate { return AndOf(ps...) }

// Or combines predicates with OR; nil operands are skipped (they stand for
// "no filter", so an OR with one is no filter either: nil is returned).
func (b *Builder) Or(ps ...*Predicate) *Predicate { return OrOf(ps...) }

// Not negates p (see the package comment for why this is exact).
func (b *Builder) Not(p *Predicate) *Predicate { return Negate(p) }

// AndOf is Builder.And without a builder.
func AndOf(ps ...*Predicate) *Predicate { return combine(And, ps) }

// OrOf is Builder.Or without a builder.
func OrOf(ps ...*Predicate) *Predicate {
	for _, p := range ps {
		if p == nil {
			return nil
		}
	}
	return combine(Or, ps)
}

func combine(op Op, ps []*Predicate) *Predicate {
	var kids []*Predicate
	for _, p := range ps {
		switch {
		case p == nil:
		case p.op == op:
			kids = append(kids, p.children...)
		default:
			kids = append(kids, p)
		}
	}
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	return &Predicate{op: op, index: -1, children: kids}
}

// Negate returns NOT p, with the negation pushed down to the leaves. Negate
// of nil (no filter) is nil.
func Negate(p *Predicate) *Predicate {
	if p == nil {
		return nil
	}
	switch p.op {
	case And, Or:
		kids := make([]*Predicate, len(p.children))
		for i, c := range p.children {
			kids[i] = Negate(c)
		}
		if p.op == And {
			return combine(Or, kids)
		}
		return combine(And, kids)
	}
	q := *p
	q.op = complement(p.op)
	if p.src != nil {
		// NOT of the leaf asked for: what the complement selects in any type.
		q.src = &leafSource{op: complement(p.src.op), lits: p.src.lits}
	}
	return &q
}

// errBadLiteral marks literals that cannot be converted to the column type.
var errBadLiteral = errors.New("literal does not fit the column type")

// number is a numeric literal as written in a filter expression, converted
// per column type so that "1.5" reaches a DECIMAL column exactly.
type number string

// Convert converts a Go literal to the value type of t (package types):
// Go integers to INT/BIGINT/… with a range check, integers and floats to
// FLOAT/DOUBLE, integers, floats, decimal strings and DecimalValue to
// DECIMAL (exactly, at the column's scale — a literal with more fraction
// digits or more digits than the precision is refused rather than rounded),
// strings to CHAR/VARCHAR/BINARY, "yyyy-MM-dd" and time.Time to DATE,
// "HH:mm:ss[.fff]" to TIME, "yyyy-MM-dd[ T]HH:mm:ss[.fffffffff]" and
// time.Time to TIMESTAMP. A nil literal stays nil (SQL NULL).
func Convert(v any, t types.DataType) (any, error) {
	if v == nil {
		return nil, nil
	}
	out, err := convert(v, t)
	if err != nil {
		return nil, fmt.Errorf("literal %v (%T): %w", v, v, err)
	}
	return out, nil
}

func convert(v any, t types.DataType) (any, error) {
	switch t.Root {
	case types.Boolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch strings.ToLower(x) {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		i, err := toInt64(v)
		if err != nil {
			return nil, err
		}
		switch t.Root {
		case types.TinyInt:
			if i < math.MinInt8 || i > math.MaxInt8 {
				return nil, fmt.Errorf("%d out of range for TINYINT: %w", i, errBadLiteral)
			}
			return int8(i), nil
		case types.SmallInt:
			if i < math.MinInt16 || i > math.MaxInt16 {
				return nil, fmt.Errorf("%d out of range for SMALLINT: %w", i, errBadLiteral)
			}
			return int16(i), nil
		case types.Int:
			if i < math.MinInt32 || i > math.MaxInt32 {
				return nil, fmt.Errorf("%d out of range for INT: %w", i, errBadLiteral)
			}
			return int32(i), nil
		}
		return i, nil
	case types.Float, types.Double:
		f, err := toFloat(v)
		if err != nil {
			return nil, err
		}
		if t.Root == types.Float {
			return float32(f), nil
		}
		return f, nil
	case types.Decimal:
		return toDecimal(v, t)
	case types.Char, types.VarChar:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case types.Binary, types.VarBinary:
		switch x := v.(type) {
		case string:
			return []byte(x), nil
		case []byte:
			return append([]byte(nil), x...), nil
		}
	case types.Date:
		switch x := v.(type) {
		case types.DateValue:
			return x, nil
		case time.Time:
			y, m, d := x.Date()
			return types.DateValue(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400), nil
		case string:
			tm, err := time.Parse("2006-01-02", strings.TrimSpace(x))
			if err != nil {
				return nil, fmt.Errorf("not a date yyyy-MM-dd: %w", errBadLiteral)
			}
			return types.DateValue(tm.Unix() / 86400), nil
		}
	case types.Time:
		switch x := v.(type) {
		case types.TimeValue:
			return x, nil
		case string:
			tm, err := time.Parse("15:04:05.999999999", strings.TrimSpace(x))
			if err != nil {
				return nil, fmt.Errorf("not a time HH:mm:ss[.fff]: %w", errBadLiteral)
			}
			// Paimon keeps TIME at millisecond precision.
			ms := tm.Hour()*3600000 + tm.Minute()*60000 + tm.Second()*1000 + tm.Nanosecond()/1e6
			if tm.Nanosecond()%1e6 != 0 {
				return nil, fmt.Errorf("TIME has millisecond precision: %w", errBadLiteral)
			}
			return types.TimeValue(ms), nil
		}
	case types.Timestamp, types.TimestampLTZ:
		switch x := v.(type) {
		case types.TimestampValue:
			return x, nil
		case types.DateValue:
			return types.TimestampValue{Millis: int64(x) * 86400000}, nil
		case time.Time:
			if t.Root == types.Timestamp {
				// TIMESTAMP is a wall-clock value: keep the clock reading.
				x = time.Date(x.Year(), x.Month(), x.Day(), x.Hour(), x.Minute(), x.Second(), x.Nanosecond(), time.UTC)
			}
			return timestampOf(x), nil
		case string:
			tm, err := parseTimestamp(x)
			if err != nil {
				return nil, err
			}
			return timestampOf(tm), nil
		}
	default:
		return nil, fmt.Errorf("type %s: %w", t, types.ErrUnsupported)
	}
	return nil, fmt.Errorf("cannot be a %s value: %w", t.Root, errBadLiteral)
}

// parseTimestamp reads "yyyy-MM-dd HH:mm:ss[.f…]" (or with 'T', or a bare
// date) as a UTC clock reading; for LTZ columns that is the UTC instant.
func parseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a timestamp yyyy-MM-dd HH:mm:ss[.fffffffff]: %w", errBadLiteral)
}

func timestampOf(tm time.Time) types.TimestampValue {
	sec := tm.Unix()
	ns := int64(tm.Nanosecond())
	return types.TimestampValue{Millis: sec*1000 + ns/1e6, NanoOfMilli: int32(ns % 1e6)}
}

func toInt64(v any) (int64, error) {
	if i, ok := arith.SignedInt(v); ok {
		return i, nil
	}
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case uint8, uint16, uint32, uint, uint64:
		// Go integers a caller may pass for any integer column; the case
		// has fixed the type, reflect only widens it.
		if u := reflect.ValueOf(x).Uint(); u <= math.MaxInt64 {
			return int64(u), nil
		}
	case float32:
		return floatToInt(float64(x))
	case float64:
		return floatToInt(x)
	case number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		if err == nil {
			return i, nil
		}
		// 1e3, 10.0: integral values spelled otherwise.
		if r, ok := new(big.Rat).SetString(string(x)); ok && r.IsInt() && r.Num().IsInt64() {
			return r.Num().Int64(), nil
		}
		return 0, fmt.Errorf("not an integer in range: %w", errBadLiteral)
	}
	return 0, fmt.Errorf("not an integer: %w", errBadLiteral)
}

func floatToInt(f float64) (int64, error) {
	if f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		return 0, fmt.Errorf("not an integral value: %w", errBadLiteral)
	}
	return int64(f), nil
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	case number, types.DecimalValue:
		// SQL's cast of the literal to DOUBLE: nearest, ±Inf beyond the range.
		f, ok := nearestDouble(x)
		if !ok {
			return 0, fmt.Errorf("not a number: %w", errBadLiteral)
		}
		return f, nil
	case string:
		// Java's spellings of the special values.
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("not a number: %w", errBadLiteral)
	}
	i, err := toInt64(v)
	if err != nil {
		return 0, err
	}
	return float64(i), nil
}

func toDecimal(v any, t types.DataType) (any, error) {
	var r *big.Rat
	switch x := v.(type) {
	case types.DecimalValue:
		r = new(big.Rat).SetFrac(x.Unscaled.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
	case number:
		var ok bool
		if r, ok = new(big.Rat).SetString(string(x)); !ok {
			return nil, fmt.Errorf("not a decimal number: %w", errBadLiteral)
		}
	case string:
		var ok bool
		if r, ok = new(big.Rat).SetString(strings.TrimSpace(x)); !ok {
			return nil, fmt.Errorf("not a decimal number: %w", errBadLiteral)
		}
	case float32, float64:
		f, _ := toFloat(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("not a finite number: %w", errBadLiteral)
		}
		// The shortest decimal spelling, i.e. what the user typed.
		r, _ = new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		i, err := toInt64(v)
		if err != nil {
			return nil, err
		}
		r = new(big.Rat).SetInt64(i)
	}
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
	if !scaled.IsInt() {
		return nil, fmt.Errorf("has more than %d fraction digits for %s: %w", t.Scale, t, errBadLiteral)
	}
	u := scaled.Num()
	if len(new(big.Int).Abs(u).String()) > t.Precision && u.Sign() != 0 {
		return nil, fmt.Errorf("has more digits than %s holds: %w", t, errBadLiteral)
	}
	return types.DecimalValue{Unscaled: decimal128.FromBigInt(u), Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
}
