package read

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// constArray builds an array of n copies of one value (partition columns).
func constArray(mem memory.Allocator, v any, t types.DataType, n int) (arrow.Array, error) {
	dt, err := arrowconv.Type(t)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return array.MakeArrayOfNull(mem, dt, n), nil
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(n)
	ok := true
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		x, o := v.(bool)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.Int8Builder:
		x, o := v.(int8)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.Int16Builder:
		x, o := v.(int16)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.Int32Builder:
		x, o := v.(int32)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.Int64Builder:
		x, o := v.(int64)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.Float32Builder:
		x, o := v.(float32)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.Float64Builder:
		x, o := v.(float64)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.StringBuilder:
		x, o := v.(string)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.BinaryBuilder:
		x, o := v.([]byte)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(x)
		}
	case *array.Decimal128Builder:
		x, o := v.(types.DecimalValue)
		ok = o
		if o {
			u, fits := x.Rescale(int32(t.Scale))
			if !fits {
				return nil, fmt.Errorf("decimal %s does not fit %s", x, t)
			}
			for i := 0; i < n; i++ {
				bb.Append(u)
			}
		}
	case *array.Date32Builder:
		x, o := v.(types.DateValue)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(arrow.Date32(x))
		}
	case *array.Time32Builder:
		x, o := v.(types.TimeValue)
		ok = o
		for i := 0; i < n && o; i++ {
			bb.Append(arrow.Time32(x))
		}
	case *array.TimestampBuilder:
		x, o := v.(types.TimestampValue)
		ok = o
		if o {
			var ts arrow.Timestamp
			switch arrowconv.TimeUnitFor(t.Precision) {
			case arrow.Millisecond:
				ts = arrow.Timestamp(x.Millis)
			case arrow.Microsecond:
				ts = arrow.Timestamp(x.Micros())
			default:
				ts = arrow.Timestamp(x.Nanos())
			}
			for i := 0; i < n; i++ {
				bb.Append(ts)
			}
		}
	default:
		return nil, fmt.Errorf("constant column of type %s: %w", t, types.ErrUnsupported)
	}
	if !ok {
		return nil, fmt.Errorf("value %v (%T) does not match column type %s", v, v, t)
	}
	return b.NewArray(), nil
}
