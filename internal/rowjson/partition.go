package rowjson

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Partition renders a split's partition values (aligned with keys) as the
// paimon_partition metadata and the CLI show them: values Bloblang
// understands, exact decimals and calendar values as their canonical
// strings, timestamps as the text the body holds for the same column.
// sch is the Arrow schema of the partition columns (nil: timestamps in
// their canonical text).
func Partition(keys []string, vals []any, sch *arrow.Schema) map[string]any {
	out := make(map[string]any, len(keys))
	for i, k := range keys {
		if i >= len(vals) {
			break
		}
		var ts *arrow.TimestampType
		if sch != nil {
			if idx := sch.FieldIndices(k); len(idx) == 1 {
				ts, _ = sch.Field(idx[0]).Type.(*arrow.TimestampType)
			}
		}
		out[k] = partitionValue(vals[i], ts)
	}
	return out
}

// partitionValue renders one value; ts is its column's Arrow type when a
// timestamp (a TIMESTAMP has no zone and gets no "Z", digits per
// precision).
func partitionValue(v any, ts *arrow.TimestampType) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64, []byte:
		return x
	case int8, int16, int32:
		i, _ := arith.SignedInt(x)
		return i
	case float32:
		return float64(x)
	case types.DecimalValue:
		return x.String()
	case types.DateValue:
		return x.String()
	case types.TimeValue:
		return x.String()
	case types.TimestampValue:
		if ts == nil {
			return x.String()
		}
		var e int64
		switch ts.Unit {
		case arrow.Second:
			e = x.Millis / 1000
			if x.Millis%1000 < 0 {
				e--
			}
		case arrow.Millisecond:
			e = x.Millis
		case arrow.Microsecond:
			e = x.Millis*1000 + int64(x.NanoOfMilli)/1000
		default:
			e = x.Millis*1_000_000 + int64(x.NanoOfMilli)
		}
		return TimestampText(e, ts.Unit, ts.TimeZone != "")
	}
	return fmt.Sprint(v)
}
