package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// collectAgg is FieldCollectAgg: concatenation, or with distinct a
// HashSet of both sides (also when one is NULL) in its iteration order.
// Retract removes one accumulated element per retracted one.
type collectAgg struct {
	nestedAcc
	name     string
	t        types.DataType
	distinct bool
}

func (g *collectAgg) Reset() { g.nestedAcc.Reset() }

func (g *collectAgg) Add(a arrow.Array, i int) error {
	inNull := a.IsNull(i)
	if !g.has && inNull {
		return nil
	}
	if !g.distinct && (!g.has || inNull) {
		if !g.has {
			g.set(a, i)
		}
		return nil
	}
	all := append([]elemRef(nil), g.elems...)
	if !inNull {
		all = append(all, listElems(a, i)...)
	}
	if g.distinct {
		first, _, err := hashDistinct(all, func(e elemRef) (arrow.Array, int) { return e.a, e.i })
		if err != nil {
			return fmt.Errorf("collect on column %q with distinct: %w", g.name, err)
		}
		d := make([]elemRef, len(first))
		for k, e := range first {
			d[k] = all[e]
		}
		all = d
	}
	g.has, g.elems = true, all
	return nil
}

// AddReversed: FieldCollectAgg.aggReversed is agg(acc, input).
func (g *collectAgg) AddReversed(a arrow.Array, i int) error { return g.Add(a, i) }

func (g *collectAgg) Retract(a arrow.Array, i int) error {
	ret, ok := g.retracted(a, i)
	if !ok || len(ret) == 0 {
		return nil
	}
	if g.t.Element.IsComposite() {
		// Java compares ColumnarRow/array elements with equals, which
		// they do not support.
		return fmt.Errorf("collect on column %q: retracting elements of type %s: %w", g.name, *g.t.Element, types.ErrUnsupported)
	}
	var kept []elemRef
	for _, e := range g.elems {
		hit := -1
		for k, r := range ret {
			if javaEquals(r.a, r.i, e.a, e.i) {
				hit = k
				break
			}
		}
		if hit >= 0 {
			ret = append(ret[:hit:hit], ret[hit+1:]...)
			continue
		}
		kept = append(kept, e)
	}
	g.elems = kept
	return nil
}
