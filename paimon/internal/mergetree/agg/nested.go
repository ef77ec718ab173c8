package agg

import (
	"bytes"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon/internal/binrow"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// nestedUpdateAgg is FieldNestedUpdateAgg: the non-null rows of the
// accumulator then of the input, up to count-limit; retract removes every
// row equal to a retracted one. With nested-key the rows are keyed by the
// BinaryRow of those fields in a HashMap (a later row replaces an earlier
// one of its key, in place) and come out in its iteration order; retract
// removes the retracted keys.
type nestedUpdateAgg struct {
	nestedAcc
	name     string
	t        types.DataType
	limit    int
	keyIdx   []int // fields of the element row forming the nested key
	keyTypes []types.DataType
}

func newNestedUpdate(name string, t types.DataType, limit int, key []string) (*nestedUpdateAgg, error) {
	g := &nestedUpdateAgg{name: name, t: t, limit: limit}
	for _, k := range key {
		i := typeutil.FieldByName(t.Element.Fields, k)
		if i < 0 {
			return nil, fmt.Errorf("nested_update on column %q: nested-key %q is no field of %s", name, k, *t.Element)
		}
		g.keyIdx = append(g.keyIdx, i)
		g.keyTypes = append(g.keyTypes, t.Element.Fields[i].Type)
	}
	return g, nil
}

func (g *nestedUpdateAgg) Reset() { g.nestedAcc.Reset() }

func nonNull(es []elemRef, max int) []elemRef {
	var out []elemRef
	for _, e := range es {
		if len(out) >= max {
			break
		}
		if !e.a.IsNull(e.i) {
			out = append(out, e)
		}
	}
	return out
}

// keyOf is the BinaryRow bytes of row e's nested key (Java's
// keyProjection.apply(row).copy()).
func (g *nestedUpdateAgg) keyOf(e elemRef) ([]byte, error) {
	st := e.a.(*array.Struct)
	vals := make([]any, len(g.keyIdx))
	for k, fi := range g.keyIdx {
		v, err := goValue(st.Field(fi), e.i)
		if err != nil {
			return nil, fmt.Errorf("nested_update on column %q: nested key: %w", g.name, err)
		}
		vals[k] = v
	}
	b, err := binrow.Encode(vals, g.keyTypes)
	if err != nil {
		return nil, fmt.Errorf("nested_update on column %q: nested key: %w", g.name, err)
	}
	return b[4:], nil // without SerializationUtils' arity prefix
}

// byKey is `new ArrayList<>(map.values())` of a HashMap<BinaryRow,
// InternalRow> filled with rows in order (BinaryRow.hashCode is
// MurmurHashUtils.hashBytesByWords: Paimon's Murmur3 over whole words).
func (g *nestedUpdateAgg) byKey(rows []elemRef, drop [][]byte) ([]elemRef, error) {
	keys := make([][]byte, len(rows))
	for k, e := range rows {
		b, err := g.keyOf(e)
		if err != nil {
			return nil, err
		}
		keys[k] = b
	}
	var uniq []int // first row index of each key, insertion order
	last := map[string]int{}
	for k := range rows {
		if _, ok := last[string(keys[k])]; !ok {
			uniq = append(uniq, k)
		}
		last[string(keys[k])] = k
	}
	var live []int
	for _, k := range uniq {
		removed := false
		for _, d := range drop {
			if bytes.Equal(d, keys[k]) {
				removed = true
				break
			}
		}
		if !removed {
			live = append(live, k)
		}
	}
	order, err := hashOrder(len(live), func(k int) int32 { return murmurPaimon(keys[live[k]]) })
	if err != nil {
		return nil, fmt.Errorf("nested_update on column %q: %w", g.name, err)
	}
	out := make([]elemRef, len(order))
	for k, o := range order {
		out[k] = rows[last[string(keys[live[o]])]]
	}
	return out, nil
}

func (g *nestedUpdateAgg) merge(acc, in []elemRef) ([]elemRef, error) {
	if len(acc) >= g.limit {
		return acc, nil
	}
	rows := nonNull(acc, math.MaxInt)
	rows = append(rows, nonNull(in, g.limit-len(acc))...)
	if len(g.keyIdx) == 0 {
		return rows, nil
	}
	return g.byKey(rows, nil)
}

func (g *nestedUpdateAgg) Add(a arrow.Array, i int) error { return g.fold(a, i, false) }

// AddReversed is FieldAggregator's default, agg(input, acc).
func (g *nestedUpdateAgg) AddReversed(a arrow.Array, i int) error { return g.fold(a, i, true) }

// fold merges value i of a into the accumulator: merge(acc, input), or
// merge(input, acc) when reversed.
func (g *nestedUpdateAgg) fold(a arrow.Array, i int, reversed bool) error {
	in, fold := g.take(a, i)
	if !fold {
		return nil
	}
	acc, input := g.elems, in
	if reversed {
		acc, input = in, g.elems
	}
	rows, err := g.merge(acc, input)
	g.elems = rows
	return err
}

func (g *nestedUpdateAgg) Retract(a arrow.Array, i int) error {
	ret, ok := g.retracted(a, i)
	if !ok {
		return nil
	}
	ret = nonNull(ret, math.MaxInt)
	if len(g.keyIdx) > 0 {
		drop := make([][]byte, len(ret))
		for k, r := range ret {
			b, err := g.keyOf(r)
			if err != nil {
				return err
			}
			drop[k] = b
		}
		rows, err := g.byKey(nonNull(g.elems, math.MaxInt), drop)
		g.elems = rows
		return err
	}
	var kept []elemRef
	for _, e := range nonNull(g.elems, math.MaxInt) {
		hit := false
		for _, r := range ret {
			if array.SliceEqual(r.a, int64(r.i), int64(r.i+1), e.a, int64(e.i), int64(e.i+1)) {
				hit = true
				break
			}
		}
		if !hit {
			kept = append(kept, e)
		}
	}
	g.elems = kept
	return nil
}

// goValue is value i of a as the Go type package binrow encodes (the
// schema.JavaHashable types); nil for NULL.
func goValue(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Boolean, *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Float32, *array.Float64, *array.String:
		// Arrow's own Go value of these is already binrow's.
		return array.ValueAsAny(x, i), nil
	case *array.Date32:
		return types.DateValue(x.Value(i)), nil
	case *array.Time32:
		return types.TimeValue(x.Value(i)), nil
	}
	return nil, fmt.Errorf("Arrow type %s: %w", a.DataType(), types.ErrUnsupported)
}
