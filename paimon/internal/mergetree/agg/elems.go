package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// elemRef is one element of a nested input value: index i of a list's
// values, a map's entries or an array's rows.
type elemRef struct {
	a arrow.Array
	i int
}

// listElems returns the elements of value i of a list or map array.
func listElems(a arrow.Array, i int) []elemRef {
	var child arrow.Array
	var lo, hi int64
	switch x := a.(type) {
	case *array.Map:
		child = x.ListValues()
		lo, hi = x.ValueOffsets(i)
	case *array.List:
		child = x.ListValues()
		lo, hi = x.ValueOffsets(i)
	default:
		return nil
	}
	out := make([]elemRef, 0, hi-lo)
	for k := lo; k < hi; k++ {
		out = append(out, elemRef{child, int(k)})
	}
	return out
}

// buildNested materialises one list or map value of Arrow type dt from its
// elements.
func buildNested(mem memory.Allocator, dt arrow.DataType, elems []elemRef) (arrow.Array, error) {
	var elemType arrow.DataType
	switch t := dt.(type) {
	case *arrow.MapType:
		elemType = t.Elem()
	case *arrow.ListType:
		elemType = t.Elem()
	default:
		return nil, fmt.Errorf("nested aggregate result of Arrow type %s: %w", dt, types.ErrUnsupported)
	}
	var child arrow.Array
	if len(elems) == 0 {
		child = array.MakeArrayOfNull(mem, elemType, 0)
	} else {
		pieces := make([]arrow.Array, 0, len(elems))
		for k := 0; k < len(elems); {
			// Contiguous elements of one array are one slice.
			e := elems[k]
			end := k + 1
			for end < len(elems) && elems[end].a == e.a && elems[end].i == e.i+(end-k) {
				end++
			}
			pieces = append(pieces, array.NewSlice(e.a, int64(e.i), int64(e.i+end-k)))
			k = end
		}
		var err error
		child, err = array.Concatenate(pieces, mem)
		for _, p := range pieces {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
	}
	defer child.Release()
	offs := memory.NewResizableBuffer(mem)
	offs.Resize(8)
	ob := arrow.Int32Traits.CastFromBytes(offs.Bytes())
	ob[0], ob[1] = 0, int32(len(elems))
	data := array.NewData(dt, 1, []*memory.Buffer{nil, offs}, []arrow.ArrayData{child.Data()}, 0, 0)
	offs.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// nestedAcc is the accumulator of the nested aggregators: NULL, or the
// elements of the current value.
type nestedAcc struct {
	has   bool // false: NULL
	elems []elemRef
}

func (n *nestedAcc) Reset()                      { n.has, n.elems = false, nil }
func (n *nestedAcc) Clear()                      { n.Reset() }
func (n *nestedAcc) SetAcc(a arrow.Array, i int) { n.set(a, i) }
func (n *nestedAcc) set(a arrow.Array, i int) {
	if a.IsNull(i) {
		n.Reset()
		return
	}
	n.has, n.elems = true, listElems(a, i)
}

// take reads value i of a for Add and AddReversed; fold is false when
// they are done with it: a NULL input is ignored, and the first value
// becomes the accumulator as it is.
func (n *nestedAcc) take(a arrow.Array, i int) (in []elemRef, fold bool) {
	if a.IsNull(i) {
		return nil, false
	}
	if !n.has {
		n.set(a, i)
		return nil, false
	}
	return listElems(a, i), true
}

// retracted reads value i of a for Retract; ok is false when there is
// nothing to retract: a NULL accumulator or a NULL input.
func (n *nestedAcc) retracted(a arrow.Array, i int) (ret []elemRef, ok bool) {
	if !n.has || a.IsNull(i) {
		return nil, false
	}
	return listElems(a, i), true
}

func (n *nestedAcc) Emit(w Writer) error {
	if !n.has {
		w.AppendNull()
		return nil
	}
	v, err := buildNested(w.Alloc(), w.ArrowType(), n.elems)
	if err != nil {
		return err
	}
	w.AppendPiece(v)
	return nil
}
