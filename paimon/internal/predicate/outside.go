package predicate

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A numeric literal that is not a value of its numeric column's type
// (`tinyint_col < 1000`, `bigint_col < 0.5`, `dec_col = 1.005` on
// DECIMAL(10,2), `float_col = 0.1`) is compared the way SQL compares
// numbers: exactly, as if both were widened to a common type. Such a
// comparison is rewritten at build time into one with a literal of the
// column type that selects the same rows — `tinyint_col < 1000` is
// `tinyint_col <= 127`, `bigint_col < 0.5` is `bigint_col <= 0` — so row
// evaluation, Arrow evaluation and every pruning level stay one semantics.
//
// The rewrite keeps the leaf false on NULL, so Negate stays exact: a
// comparison that holds for no value becomes `c > max` (its complement
// `c <= max` holds for every non-NULL value, as SQL's `NOT (c = 1000)` does).
//
// FLOAT follows SQL's FLOAT-vs-DOUBLE comparison: the literal is the
// nearest DOUBLE (DOUBLE columns compare with it directly) and a FLOAT
// value is compared with that DOUBLE exactly, so `float_col = 0.1` holds
// for no FLOAT value, and `float_col < 0.7` holds for 0.7f (0.699999988…).

// bracket holds the values of a column type adjacent to a literal that is
// not one of them: the greatest value below it and the least above it (nil
// when there is none).
type bracket struct{ below, above any }

// bracketLiteral reports whether l is a numeric literal that t cannot
// represent, and if so its bracket in t's values.
func bracketLiteral(l any, t types.DataType) (bracket, bool) {
	switch t.Root {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		r, ok := exactRat(l)
		if !ok {
			return bracket{}, false
		}
		lo, hi := intRange(t.Root)
		return intBracket(r, big.NewInt(lo), big.NewInt(hi), func(n *big.Int) any { return intValue(t.Root, n.Int64()) })
	case types.Decimal:
		r, ok := exactRat(l)
		if s, isStr := l.(string); isStr {
			// DECIMAL columns take decimal strings too (Convert does).
			r, ok = new(big.Rat).SetString(strings.TrimSpace(s))
		}
		if !ok {
			return bracket{}, false
		}
		u := new(big.Rat).Mul(r, new(big.Rat).SetInt(arith.Pow10(t.Scale)))
		max := new(big.Int).Sub(arith.Pow10(t.Precision), big.NewInt(1))
		min := new(big.Int).Neg(max)
		return intBracket(u, min, max, func(n *big.Int) any {
			return types.DecimalValue{Unscaled: decimal128.FromBigInt(n), Precision: int32(t.Precision), Scale: int32(t.Scale)}
		})
	case types.Float:
		d, ok := nearestDouble(l)
		if !ok || math.IsNaN(d) {
			return bracket{}, false
		}
		f := float32(d)
		if float64(f) == d {
			return bracket{}, false
		}
		var b bracket
		if float64(f) > d {
			b.above, b.below = f, math.Nextafter32(f, float32(math.Inf(-1)))
		} else {
			b.below, b.above = f, math.Nextafter32(f, float32(math.Inf(1)))
		}
		return b, true
	}
	return bracket{}, false
}

// intBracket brackets the rational r in the integers [min, max] (values
// built by mk); ok is false when r is such an integer.
func intBracket(r *big.Rat, min, max *big.Int, mk func(*big.Int) any) (bracket, bool) {
	if r.IsInt() && r.Num().Cmp(min) >= 0 && r.Num().Cmp(max) <= 0 {
		return bracket{}, false
	}
	fl := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floor for a positive denominator
	ce := new(big.Int).Set(fl)
	if !r.IsInt() {
		ce.Add(ce, big.NewInt(1))
	}
	var b bracket
	switch {
	case fl.Cmp(max) > 0:
		b.below = mk(max)
	case fl.Cmp(min) >= 0:
		b.below = mk(fl)
	}
	switch {
	case ce.Cmp(min) < 0:
		b.above = mk(min)
	case ce.Cmp(max) <= 0:
		b.above = mk(ce)
	}
	return b, true
}

// maxValue is the greatest value of a numeric type in the predicate order
// (NaN for FLOAT/DOUBLE, which Java orders above +Inf).
func maxValue(t types.DataType) any {
	switch t.Root {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		_, hi := intRange(t.Root)
		return intValue(t.Root, hi)
	case types.Decimal:
		max := new(big.Int).Sub(arith.Pow10(t.Precision), big.NewInt(1))
		return types.DecimalValue{Unscaled: decimal128.FromBigInt(max), Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case types.Float:
		return float32(math.NaN())
	case types.Double:
		return math.NaN()
	}
	return nil
}

// rewriteOutside maps a comparison with a literal outside t to an
// equivalent comparison with a value of t (see the comment at the top).
func rewriteOutside(op Op, t types.DataType, b bracket) (Op, any) {
	never := func() (Op, any) { return GreaterThan, maxValue(t) }
	always := func() (Op, any) { return LessOrEqual, maxValue(t) }
	switch op {
	case LessThan, LessOrEqual:
		if b.below == nil {
			return never()
		}
		return LessOrEqual, b.below
	case GreaterThan, GreaterOrEqual:
		if b.above == nil {
			return never()
		}
		return GreaterOrEqual, b.above
	case Equal:
		return never()
	}
	return always() // NotEqual
}

func intRange(r types.Root) (int64, int64) {
	switch r {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func intValue(r types.Root, v int64) any {
	switch r {
	case types.TinyInt:
		return int8(v)
	case types.SmallInt:
		return int16(v)
	case types.Int:
		return int32(v)
	}
	return v
}

// exactRat is the exact value of a numeric literal: a number as written, a
// Go integer or finite float, a DecimalValue. Anything else (strings,
// NaN, infinities) is not a number SQL would compare this way.
func exactRat(l any) (*big.Rat, bool) {
	switch x := l.(type) {
	case number:
		r, ok := new(big.Rat).SetString(string(x))
		return r, ok
	case types.DecimalValue:
		return new(big.Rat).SetFrac(x.Unscaled.BigInt(), arith.Pow10(int(x.Scale))), true
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(float64(x)), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(x), true
	case uint:
		return new(big.Rat).SetInt(new(big.Int).SetUint64(uint64(x))), true
	case uint64:
		return new(big.Rat).SetInt(new(big.Int).SetUint64(x)), true
	}
	if i, err := toInt64(l); err == nil {
		return new(big.Rat).SetInt64(i), true
	}
	return nil, false
}

// nearestDouble is SQL's cast of a numeric literal to DOUBLE (round to
// nearest; beyond the range ±Inf).
func nearestDouble(l any) (float64, bool) {
	switch x := l.(type) {
	case number:
		f, err := strconv.ParseFloat(strings.TrimSpace(string(x)), 64)
		var ne *strconv.NumError
		if err != nil && !(errors.As(err, &ne) && ne.Err == strconv.ErrRange) {
			return 0, false
		}
		return f, true
	case types.DecimalValue:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil || errors.Is(err, strconv.ErrRange)
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	r, ok := exactRat(l)
	if !ok {
		return 0, false
	}
	f, _ := r.Float64()
	return f, true
}
