package mergetree

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// colWriter accumulates one output column. Scalar columns are copied value
// by value into a builder (the merge picks single rows from many runs);
// nested columns are assembled from slices of the source arrays, which
// copies whole contiguous runs at once and needs no per-type code.
type colWriter struct {
	t   types.DataType
	dt  arrow.DataType
	mem memory.Allocator
	b   array.Builder // nil for nested types

	pieces   []arrow.Array
	runArr   arrow.Array
	runStart int
	runEnd   int
	n        int
}

func newColWriter(t types.DataType, mem memory.Allocator) (*colWriter, error) {
	dt, err := arrowconv.Type(t)
	if err != nil {
		return nil, err
	}
	w := &colWriter{t: t, dt: dt, mem: mem}
	if schema.Orderable(t) {
		w.b = array.NewBuilder(mem, dt)
	}
	return w, nil
}

// Alloc is the allocator the column is built with.
func (w *colWriter) Alloc() memory.Allocator { return w.mem }

// ArrowType is the column's Arrow type.
func (w *colWriter) ArrowType() arrow.DataType { return w.dt }

func (w *colWriter) AppendNull() {
	w.n++
	if w.b != nil {
		w.b.AppendNull()
		return
	}
	w.flushRun()
	w.pieces = append(w.pieces, array.MakeArrayOfNull(w.mem, w.dt, 1))
}

// AppendRef appends value i of a (an array of the column's Arrow type).
func (w *colWriter) AppendRef(a arrow.Array, i int) {
	if w.b == nil {
		w.n++
		if w.runArr == a && w.runEnd == i {
			w.runEnd++
			return
		}
		w.flushRun()
		w.runArr, w.runStart, w.runEnd = a, i, i+1
		return
	}
	if a.IsNull(i) {
		w.AppendNull()
		return
	}
	w.n++
	switch b := w.b.(type) {
	case *array.BooleanBuilder:
		b.Append(a.(*array.Boolean).Value(i))
	case *array.Int8Builder:
		b.Append(a.(*array.Int8).Value(i))
	case *array.Int16Builder:
		b.Append(a.(*array.Int16).Value(i))
	case *array.Int32Builder:
		b.Append(a.(*array.Int32).Value(i))
	case *array.Int64Builder:
		b.Append(a.(*array.Int64).Value(i))
	case *array.Float32Builder:
		b.Append(a.(*array.Float32).Value(i))
	case *array.Float64Builder:
		b.Append(a.(*array.Float64).Value(i))
	case *array.StringBuilder:
		b.Append(a.(*array.String).Value(i))
	case *array.BinaryBuilder:
		b.Append(a.(*array.Binary).Value(i))
	case *array.Decimal128Builder:
		b.Append(a.(*array.Decimal128).Value(i))
	case *array.Date32Builder:
		b.Append(a.(*array.Date32).Value(i))
	case *array.Time32Builder:
		b.Append(a.(*array.Time32).Value(i))
	case *array.TimestampBuilder:
		b.Append(a.(*array.Timestamp).Value(i))
	default:
		// newColWriter only makes builders for the types above.
		b.AppendNull()
	}
}

// AppendVal appends a computed Go value (aggregation results, partition
// values); nil is NULL.
func (w *colWriter) AppendVal(v any) error {
	if v == nil {
		w.AppendNull()
		return nil
	}
	if w.b == nil {
		return fmt.Errorf("computed value for nested column of type %s: %w", w.t, types.ErrUnsupported)
	}
	if err := appendGo(w.b, w.t, v); err != nil {
		return err
	}
	w.n++
	return nil
}

// AppendPiece appends a computed one-row value of a nested column, taking
// ownership of v.
func (w *colWriter) AppendPiece(v arrow.Array) {
	w.n++
	w.flushRun()
	w.pieces = append(w.pieces, v)
}

func (w *colWriter) flushRun() {
	if w.runArr == nil {
		return
	}
	w.pieces = append(w.pieces, array.NewSlice(w.runArr, int64(w.runStart), int64(w.runEnd)))
	w.runArr = nil
}

// finish returns the accumulated column and resets the writer.
func (w *colWriter) finish() (arrow.Array, error) {
	w.n = 0
	if w.b != nil {
		return w.b.NewArray(), nil
	}
	w.flushRun()
	defer func() {
		for _, p := range w.pieces {
			p.Release()
		}
		w.pieces = w.pieces[:0]
	}()
	switch len(w.pieces) {
	case 0:
		return array.MakeArrayOfNull(w.mem, w.dt, 0), nil
	case 1:
		w.pieces[0].Retain()
		return w.pieces[0], nil
	}
	return array.Concatenate(w.pieces, w.mem)
}

func (w *colWriter) release() {
	if w.b != nil {
		w.b.Release()
		w.b = nil
	}
	w.runArr = nil
	for _, p := range w.pieces {
		p.Release()
	}
	w.pieces = nil
}

// appendGo appends one Go value of the types paimon/types documents (and
// the int64/float64/decimal128.Num accumulators of the aggregators) to a
// scalar builder of column type t.
func appendGo(b array.Builder, t types.DataType, v any) error {
	bad := func() error { return fmt.Errorf("value %v (%T) does not fit column type %s", v, v, t) }
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		bb.Append(x)
	case *array.Int8Builder:
		switch x := v.(type) {
		case int8:
			bb.Append(x)
		case int64:
			bb.Append(int8(x))
		default:
			return bad()
		}
	case *array.Int16Builder:
		switch x := v.(type) {
		case int16:
			bb.Append(x)
		case int64:
			bb.Append(int16(x))
		default:
			return bad()
		}
	case *array.Int32Builder:
		switch x := v.(type) {
		case int32:
			bb.Append(x)
		case int64:
			bb.Append(int32(x))
		default:
			return bad()
		}
	case *array.Int64Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		bb.Append(x)
	case *array.Float32Builder:
		switch x := v.(type) {
		case float32:
			bb.Append(x)
		case float64:
			bb.Append(float32(x))
		default:
			return bad()
		}
	case *array.Float64Builder:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		bb.Append(x)
	case *array.StringBuilder:
		x, ok := v.(string)
		if !ok {
			return bad()
		}
		bb.Append(x)
	case *array.BinaryBuilder:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		bb.Append(x)
	case *array.Decimal128Builder:
		switch x := v.(type) {
		case decimal128.Num:
			bb.Append(x)
		case types.DecimalValue:
			u, fits := x.Rescale(int32(t.Scale))
			if !fits {
				return fmt.Errorf("decimal %s does not fit %s", x, t)
			}
			bb.Append(u)
		default:
			return bad()
		}
	case *array.Date32Builder:
		x, ok := v.(types.DateValue)
		if !ok {
			return bad()
		}
		bb.Append(arrow.Date32(x))
	case *array.Time32Builder:
		x, ok := v.(types.TimeValue)
		if !ok {
			return bad()
		}
		bb.Append(arrow.Time32(x))
	case *array.TimestampBuilder:
		x, ok := v.(types.TimestampValue)
		if !ok {
			return bad()
		}
		ts, err := arrowconv.TimestampIn(x, arrowconv.TimeUnitFor(t.Precision))
		if err != nil {
			return err
		}
		bb.Append(ts)
	default:
		return bad()
	}
	return nil
}
