package agg

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// sumAgg is FieldSumAgg. Integer sums wrap at the column's width like
// Java's (byte)/(short)/int/long arithmetic; FLOAT sums in float32;
// a DECIMAL sum that overflows the precision becomes NULL
// (DecimalUtils.add → Decimal.fromBigDecimal returns null).
type sumAgg struct {
	name string
	t    types.DataType
	acc  any // nil, int64, float64, float32 or *big.Int (unscaled decimal)
}

func (g *sumAgg) Reset() { g.acc = nil }

func (g *sumAgg) value(a arrow.Array, i int) (any, error) {
	switch x := a.(type) {
	case *array.Int8:
		return int64(x.Value(i)), nil
	case *array.Int16:
		return int64(x.Value(i)), nil
	case *array.Int32:
		return int64(x.Value(i)), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Float32:
		return x.Value(i), nil
	case *array.Float64:
		return x.Value(i), nil
	case *array.Decimal128:
		return x.Value(i).BigInt(), nil
	}
	return nil, fmt.Errorf("sum on column %q: Arrow type %s: %w", g.name, a.DataType(), types.ErrUnsupported)
}

func (g *sumAgg) wrap(v int64) int64 {
	switch g.t.Root {
	case types.TinyInt:
		return int64(int8(v))
	case types.SmallInt:
		return int64(int16(v))
	case types.Int:
		return int64(int32(v))
	}
	return v
}

func (g *sumAgg) combine(x, y any, neg bool) any {
	switch a := x.(type) {
	case int64:
		b := y.(int64)
		if neg {
			return g.wrap(a - b)
		}
		return g.wrap(a + b)
	case float32:
		b := y.(float32)
		if neg {
			return a - b
		}
		return a + b
	case float64:
		b := y.(float64)
		if neg {
			return a - b
		}
		return a + b
	case *big.Int:
		r := new(big.Int)
		if neg {
			r.Sub(a, y.(*big.Int))
		} else {
			r.Add(a, y.(*big.Int))
		}
		if decimalOverflows(r, g.t.Precision) {
			return nil
		}
		return r
	}
	return nil
}

func negate(v any, wrap func(int64) int64) any {
	switch x := v.(type) {
	case int64:
		return wrap(-x)
	case float32:
		return -x
	case float64:
		return -x
	case *big.Int:
		return new(big.Int).Neg(x)
	}
	return nil
}

// take reads value i of a for Add; fold is false when Add is done with
// it: a NULL input is ignored, and the first value becomes the
// accumulator as it is.
func (g *sumAgg) take(a arrow.Array, i int) (v any, fold bool, err error) {
	if a.IsNull(i) {
		return nil, false, nil
	}
	v, err = g.value(a, i)
	if err != nil {
		return nil, false, err
	}
	if g.acc == nil {
		g.acc = v
		return nil, false, nil
	}
	return v, true, nil
}

func (g *sumAgg) Add(a arrow.Array, i int) error {
	v, fold, err := g.take(a, i)
	if fold {
		g.acc = g.combine(g.acc, v, false)
	}
	return err
}

// AddReversed: addition commutes (a decimal overflow is NULL either way).
func (g *sumAgg) AddReversed(a arrow.Array, i int) error { return g.Add(a, i) }
func (g *sumAgg) Clear()                                 { g.acc = nil }

func (g *sumAgg) SetAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		g.acc, _ = g.value(a, i) // the column's own type: value cannot fail
	}
}

func (g *sumAgg) Retract(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	v, err := g.value(a, i)
	if err != nil {
		return err
	}
	if g.acc == nil {
		g.acc = negate(v, g.wrap)
		return nil
	}
	g.acc = g.combine(g.acc, v, true)
	return nil
}

func (g *sumAgg) Emit(w Writer) error {
	switch x := g.acc.(type) {
	case nil:
		w.AppendNull()
		return nil
	case *big.Int:
		return w.AppendVal(decimal128.FromBigInt(x))
	case float32:
		return w.AppendVal(x)
	case float64:
		if g.t.Root == types.Float {
			return w.AppendVal(float32(x))
		}
		return w.AppendVal(x)
	}
	return w.AppendVal(g.acc)
}

func decimalOverflows(u *big.Int, precision int) bool {
	return new(big.Int).Abs(u).Cmp(arith.Pow10(precision)) >= 0
}

// productAgg is FieldProductAgg: integer products wrap at the column's
// width, a DECIMAL product is rounded HALF_UP to the column's scale and is
// NULL beyond its precision (Decimal.fromBigDecimal); retract divides.
type productAgg struct{ sumAgg }

func (g *productAgg) Add(a arrow.Array, i int) error {
	v, fold, err := g.take(a, i)
	if !fold {
		return err
	}
	switch x := g.acc.(type) {
	case int64:
		g.acc = g.wrap(x * v.(int64))
	case float32:
		g.acc = x * v.(float32)
	case float64:
		g.acc = x * v.(float64)
	case *big.Int:
		// Unscaled a·b has twice the scale.
		p := new(big.Int).Mul(x, v.(*big.Int))
		g.acc = g.decimal(new(big.Rat).SetFrac(p, arith.Pow10(2*g.t.Scale)))
	}
	return nil
}

// AddReversed: multiplication commutes (rounding included).
func (g *productAgg) AddReversed(a arrow.Array, i int) error { return g.Add(a, i) }

func (g *productAgg) Retract(a arrow.Array, i int) error {
	if a.IsNull(i) || g.acc == nil {
		return nil
	}
	v, err := g.value(a, i)
	if err != nil {
		return err
	}
	switch x := g.acc.(type) {
	case int64:
		d := v.(int64)
		if d == 0 {
			return fmt.Errorf("product on column %q: retract divides by zero (Java: ArithmeticException)", g.name)
		}
		g.acc = g.wrap(x / d)
	case float32:
		g.acc = x / v.(float32)
	case float64:
		g.acc = x / v.(float64)
	case *big.Int:
		d := v.(*big.Int)
		if d.Sign() == 0 {
			return fmt.Errorf("product on column %q: retract divides by zero (Java: ArithmeticException)", g.name)
		}
		q := new(big.Rat).SetFrac(x, d) // unscaled quotient: the scales cancel
		if !terminating(q) {
			return fmt.Errorf("product on column %q: retract gives a non-terminating decimal expansion (Java: BigDecimal.divide throws ArithmeticException)", g.name)
		}
		g.acc = g.decimal(q)
	}
	return nil
}

// decimal turns an exact value into the column's unscaled DECIMAL, rounded
// HALF_UP, or nil (NULL) when it needs more than the precision.
func (g *productAgg) decimal(v *big.Rat) any {
	s := new(big.Rat).Mul(v, new(big.Rat).SetInt(arith.Pow10(g.t.Scale)))
	num, den := new(big.Int).Abs(s.Num()), s.Denom()
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(r, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if s.Sign() < 0 {
		q.Neg(q)
	}
	if decimalOverflows(q, g.t.Precision) {
		return nil
	}
	return q
}

// terminating reports whether q has a finite decimal expansion.
func terminating(q *big.Rat) bool {
	d := new(big.Int).Set(q.Denom())
	for _, p := range []int64{2, 5} {
		bp := big.NewInt(p)
		m := new(big.Int)
		for {
			qq, r := new(big.Int).QuoRem(d, bp, m)
			if r.Sign() != 0 {
				break
			}
			d = qq
		}
	}
	return d.Cmp(big.NewInt(1)) == 0
}
