package datafile

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// ConstArray builds an array of n copies of one value of type t (partition
// columns, constant row kinds).
func ConstArray(mem memory.Allocator, v any, t types.DataType, n int) (arrow.Array, error) {
	dt, err := arrowconv.Type(t)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return array.MakeArrayOfNull(mem, dt, n), nil
	}
	if str, ok := v.(string); ok && dt.ID() == arrow.STRING && int64(n)*int64(len(str)) <= math.MaxInt32 {
		return constString(mem, str, n), nil
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(n)
	var ok bool
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		ok = fill[bool](bb, v, n)
	case *array.Int8Builder:
		ok = fill[int8](bb, v, n)
	case *array.Int16Builder:
		ok = fill[int16](bb, v, n)
	case *array.Int32Builder:
		ok = fill[int32](bb, v, n)
	case *array.Int64Builder:
		ok = fill[int64](bb, v, n)
	case *array.Float32Builder:
		ok = fill[float32](bb, v, n)
	case *array.Float64Builder:
		ok = fill[float64](bb, v, n)
	case *array.StringBuilder:
		ok = fill[string](bb, v, n)
	case *array.BinaryBuilder:
		ok = fill[[]byte](bb, v, n)
	case *array.Decimal128Builder:
		x, o := v.(types.DecimalValue)
		if ok = o; ok {
			u, fits := x.Rescale(int32(t.Scale))
			if !fits {
				return nil, fmt.Errorf("decimal %s does not fit %s", x, t)
			}
			ok = fill[decimal128.Num](bb, u, n)
		}
	case *array.Date32Builder:
		if x, o := v.(types.DateValue); o {
			ok = fill[arrow.Date32](bb, arrow.Date32(x), n)
		}
	case *array.Time32Builder:
		if x, o := v.(types.TimeValue); o {
			ok = fill[arrow.Time32](bb, arrow.Time32(x), n)
		}
	case *array.TimestampBuilder:
		if x, o := v.(types.TimestampValue); o {
			ts, err := arrowconv.TimestampIn(x, arrowconv.TimeUnitFor(t.Precision))
			if err != nil {
				return nil, err
			}
			ok = fill[arrow.Timestamp](bb, ts, n)
		}
	default:
		return nil, fmt.Errorf("constant column of type %s: %w", t, types.ErrUnsupported)
	}
	if !ok {
		return nil, fmt.Errorf("value %v (%T) does not match column type %s", v, v, t)
	}
	return b.NewArray(), nil
}

// fill appends n copies of v to b when v has b's value type.
func fill[T any](b interface{ Append(T) }, v any, n int) bool {
	x, ok := v.(T)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		b.Append(x)
	}
	return true
}

// constString is n copies of s as a string array, written straight into its
// offset and data buffers. Every record batch read with row kinds carries
// such a column ("+I"), and string partition columns are one too; a builder
// appending value by value was visible in the end-to-end profile. The caller
// guarantees n·len(s) fits the int32 offsets.
func constString(mem memory.Allocator, s string, n int) arrow.Array {
	offsets := memory.NewResizableBuffer(mem)
	offsets.Resize((n + 1) * arrow.Int32SizeBytes)
	offs := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	data := memory.NewResizableBuffer(mem)
	data.Resize(n * len(s))
	d := data.Bytes()
	for i := 0; i < n; i++ {
		offs[i] = int32(i * len(s))
		copy(d[i*len(s):], s)
	}
	offs[n] = int32(n * len(s))
	ad := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{nil, offsets, data}, nil, 0, 0)
	offsets.Release()
	data.Release()
	defer ad.Release()
	return array.NewStringData(ad)
}
