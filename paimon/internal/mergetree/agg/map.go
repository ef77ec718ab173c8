package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// mergeMapAgg is FieldMergeMapAgg: a HashMap of the accumulated entries
// then the input's (newer values win, positions stay), in its iteration
// order; retract removes the retracted keys.
type mergeMapAgg struct {
	nestedAcc
	name string
	t    types.DataType
}

func (g *mergeMapAgg) Reset() { g.nestedAcc.Reset() }

func mapKey(e elemRef) (arrow.Array, int) { return e.a.(*array.Struct).Field(0), e.i }

func (g *mergeMapAgg) rehash(all []elemRef, keep func(elemRef) bool) error {
	var in []elemRef
	for _, e := range all {
		if keep == nil || keep(e) {
			in = append(in, e)
		}
	}
	first, last, err := hashDistinct(in, mapKey)
	if err != nil {
		return fmt.Errorf("merge_map on column %q: %w", g.name, err)
	}
	out := make([]elemRef, len(first))
	for k := range first {
		// The key object is the first one put, the value the last.
		out[k] = in[last[k]]
	}
	g.has, g.elems = true, out
	return nil
}

func (g *mergeMapAgg) Add(a arrow.Array, i int) error {
	in, fold := g.take(a, i)
	if !fold {
		return nil
	}
	return g.rehash(append(append([]elemRef(nil), g.elems...), in...), nil)
}

// AddReversed is agg(input, acc).
func (g *mergeMapAgg) AddReversed(a arrow.Array, i int) error {
	in, fold := g.take(a, i)
	if !fold {
		return nil
	}
	return g.rehash(append(in, g.elems...), nil)
}

func (g *mergeMapAgg) Retract(a arrow.Array, i int) error {
	ret, ok := g.retracted(a, i)
	if !ok || len(ret) == 0 {
		return nil
	}
	return g.rehash(g.elems, func(e elemRef) bool {
		ka, ki := mapKey(e)
		for _, r := range ret {
			ra, ri := mapKey(r)
			if javaEquals(ra, ri, ka, ki) {
				return false
			}
		}
		return true
	})
}
