package format

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// statValues converts typed Parquet min/max statistics to the paimon/types
// value of the column's Paimon type. Anything it cannot convert exactly
// yields nil (unknown): a wrong bound would prune row groups that hold
// matching rows, a missing one only costs reading them.
func statValues(ts metadata.TypedStatistics, t types.DataType, col *schema.Column) (any, any) {
	conv := func(v any) any { return statValue(v, t, col) }
	var lo, hi any
	switch s := ts.(type) {
	case *metadata.BooleanStatistics:
		lo, hi = conv(s.Min()), conv(s.Max())
	case *metadata.Int32Statistics:
		lo, hi = conv(s.Min()), conv(s.Max())
	case *metadata.Int64Statistics:
		lo, hi = conv(s.Min()), conv(s.Max())
	case *metadata.Float32Statistics:
		lo, hi = conv(s.Min()), conv(s.Max())
	case *metadata.Float64Statistics:
		lo, hi = conv(s.Min()), conv(s.Max())
	case *metadata.ByteArrayStatistics:
		lo, hi = conv([]byte(s.Min())), conv([]byte(s.Max()))
	case *metadata.FixedLenByteArrayStatistics:
		lo, hi = conv([]byte(s.Min())), conv([]byte(s.Max()))
	default:
		// INT96 (Java TIMESTAMP(7..9)) statistics have no defined sort
		// order; parquet-mr does not write them, and none are trusted.
		return nil, nil
	}
	if lo == nil || hi == nil {
		return nil, nil
	}
	return lo, hi
}

func statValue(v any, t types.DataType, col *schema.Column) any {
	switch x := v.(type) {
	case bool:
		if t.Root == types.Boolean {
			return x
		}
	case int32:
		switch t.Root {
		case types.TinyInt:
			return int8(x)
		case types.SmallInt:
			return int16(x)
		case types.Int:
			return x
		case types.BigInt:
			return int64(x)
		case types.Date:
			return types.DateValue(x)
		case types.Time:
			if tl, ok := col.LogicalType().(*schema.TimeLogicalType); ok && tl.TimeUnit() == schema.TimeUnitMillis {
				return types.TimeValue(x)
			}
		case types.Decimal:
			return decimalStat(decimal128.FromI64(int64(x)), t, col)
		}
	case int64:
		switch t.Root {
		case types.BigInt:
			return x
		case types.Timestamp, types.TimestampLTZ:
			tl, ok := col.LogicalType().(*schema.TimestampLogicalType)
			if !ok {
				return nil
			}
			switch tl.TimeUnit() {
			case schema.TimeUnitMillis:
				return types.TimestampValue{Millis: x}
			case schema.TimeUnitMicros:
				return typeutil.TimestampFromMicros(x)
			case schema.TimeUnitNanos:
				return typeutil.TimestampFromNanos(x)
			}
		case types.Decimal:
			return decimalStat(decimal128.FromI64(x), t, col)
		}
	case float32:
		if t.Root == types.Float && !math.IsNaN(float64(x)) {
			return x
		}
	case float64:
		if t.Root == types.Double && !math.IsNaN(x) {
			return x
		}
	case []byte:
		switch t.Root {
		case types.Char, types.VarChar:
			return string(x)
		case types.Binary, types.VarBinary:
			return append([]byte(nil), x...)
		case types.Decimal:
			n, ok := decimalFromBigEndian(x)
			if !ok {
				return nil
			}
			return decimalStat(n, t, col)
		}
	}
	return nil
}

// decimalStat builds a DecimalValue when the file's decimal scale is the
// Paimon scale (it always is for files written under that schema).
func decimalStat(n decimal128.Num, t types.DataType, col *schema.Column) any {
	dl, ok := col.LogicalType().(*schema.DecimalLogicalType)
	if !ok || int(dl.Scale()) != t.Scale {
		return nil
	}
	return types.DecimalValue{Unscaled: n, Precision: int32(t.Precision), Scale: int32(t.Scale)}
}

// decimalFromBigEndian decodes a big-endian two's complement integer of at
// most 16 bytes, the Parquet/Avro encoding of decimal unscaled values.
func decimalFromBigEndian(b []byte) (decimal128.Num, bool) {
	if len(b) == 0 || len(b) > 16 {
		return decimal128.Num{}, false
	}
	var buf [16]byte
	fill := byte(0)
	if b[0]&0x80 != 0 {
		fill = 0xff
	}
	for i := 0; i < 16-len(b); i++ {
		buf[i] = fill
	}
	copy(buf[16-len(b):], b)
	hi := int64(binary.BigEndian.Uint64(buf[:8]))
	lo := binary.BigEndian.Uint64(buf[8:])
	return decimal128.New(hi, lo), true
}
