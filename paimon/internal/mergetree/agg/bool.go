package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// boolAgg is FieldBoolAndAgg / FieldBoolOrAgg: a NULL side yields the
// other one.
type boolAgg struct {
	and  bool
	name string
	acc  *bool
}

func (g *boolAgg) Reset() { g.acc = nil }

func (g *boolAgg) Add(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	v := a.(*array.Boolean).Value(i)
	if g.acc != nil {
		if g.and {
			v = *g.acc && v
		} else {
			v = *g.acc || v
		}
	}
	g.acc = &v
	return nil
}

// AddReversed: AND/OR commute.
func (g *boolAgg) AddReversed(a arrow.Array, i int) error { return g.Add(a, i) }
func (g *boolAgg) Clear()                                 { g.acc = nil }

func (g *boolAgg) SetAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		v := a.(*array.Boolean).Value(i)
		g.acc = &v
	}
}

func (g *boolAgg) Retract(arrow.Array, int) error {
	if g.and {
		return errNoRetract("bool_and", g.name)
	}
	return errNoRetract("bool_or", g.name)
}

func (g *boolAgg) Emit(w Writer) error {
	if g.acc == nil {
		w.AppendNull()
		return nil
	}
	return w.AppendVal(*g.acc)
}
