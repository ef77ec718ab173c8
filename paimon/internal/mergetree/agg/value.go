package agg

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/compare"
)

// refAgg keeps a reference to one input value: primary-key, last_value,
// last_non_null_value, first_value, first_non_null_value, min, max.
type refAgg struct {
	fn, name string
	cmp      compare.Func
	arr      arrow.Array // nil: NULL accumulator
	idx      int
	init     bool // first_value / first_non_null_value have taken a value
}

func (g *refAgg) Reset() { g.arr, g.init = nil, false }

func (g *refAgg) set(a arrow.Array, i int) {
	if a.IsNull(i) {
		g.arr = nil
		return
	}
	g.arr, g.idx = a, i
}

func (g *refAgg) Add(a arrow.Array, i int) error {
	null := a.IsNull(i)
	switch g.fn {
	case "primary-key", "last_value":
		g.set(a, i)
	case "last_non_null_value":
		if !null {
			g.set(a, i)
		}
	case "first_value":
		if !g.init {
			g.init = true
			g.set(a, i)
		}
	case "first_non_null_value":
		if !g.init && !null {
			g.init = true
			g.set(a, i)
		}
	case "min", "max":
		// FieldMinAgg/FieldMaxAgg: a NULL side yields the other one.
		if null {
			return nil
		}
		if g.arr == nil {
			g.set(a, i)
			return nil
		}
		c := g.cmp(a, i, g.arr, g.idx)
		if (g.fn == "min" && c < 0) || (g.fn == "max" && c > 0) {
			g.set(a, i)
		}
	}
	return nil
}

func (g *refAgg) Clear()                      { g.arr = nil }
func (g *refAgg) SetAcc(a arrow.Array, i int) { g.set(a, i) }

// AddReversed is agg(input, acc) of each function, spelled out: the
// first_* functions then return the *input* once initialised, which is
// what Java does with an older record.
func (g *refAgg) AddReversed(a arrow.Array, i int) error {
	switch g.fn {
	case "primary-key", "last_value":
		// agg(input, acc) = acc.
	case "last_non_null_value":
		if g.arr == nil {
			g.set(a, i)
		}
	case "first_value":
		if !g.init {
			g.init = true // returns acc
		} else {
			g.set(a, i)
		}
	case "first_non_null_value":
		if !g.init && g.arr != nil {
			g.init = true // returns acc
		} else {
			g.set(a, i)
		}
	case "min", "max":
		// Symmetric: ties are equal values.
		return g.Add(a, i)
	}
	return nil
}

func (g *refAgg) Retract(a arrow.Array, i int) error {
	switch g.fn {
	case "primary-key":
		g.set(a, i)
	case "last_value":
		// FieldLastValueAgg.retract returns null.
		g.arr = nil
	case "last_non_null_value":
		// FieldLastNonNullValueAgg.retract: a non-null retract clears
		// the value, a null one keeps it.
		if !a.IsNull(i) {
			g.arr = nil
		}
	default:
		return errNoRetract(g.fn, g.name)
	}
	return nil
}

func (g *refAgg) Emit(w Writer) error {
	if g.arr == nil {
		w.AppendNull()
	} else {
		w.AppendRef(g.arr, g.idx)
	}
	return nil
}
