package types

import (
	"fmt"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/internal/arith"
)

// Go representation of single Paimon values (partition values, statistics,
// predicate literals). Row data itself travels as Arrow arrays; these types
// are for the few places where one value is handled at a time.
//
//	BOOLEAN            bool
//	TINYINT            int8
//	SMALLINT           int16
//	INT                int32
//	BIGINT             int64
//	FLOAT              float32
//	DOUBLE             float64
//	DECIMAL(p, s)      DecimalValue
//	CHAR / VARCHAR     string
//	BINARY / VARBINARY []byte
//	DATE               DateValue (days since 1970-01-01)
//	TIME(p)            TimeValue (milliseconds of the day)
//	TIMESTAMP(p)       TimestampValue (local date-time encoded as if UTC)
//	TIMESTAMP_LTZ(p)   TimestampValue (a UTC instant)
//
// A nil interface value is SQL NULL.

// DecimalValue is an exact decimal: Unscaled × 10^-Scale. Precision ≤ 38
// always fits the 128-bit unscaled value.
type DecimalValue struct {
	Unscaled  decimal128.Num
	Precision int32
	Scale     int32
}

// String renders the decimal in plain notation (Java's toPlainString).
func (d DecimalValue) String() string {
	return arith.FormatUnscaled(d.Unscaled.BigInt(), int(d.Scale))
}

// Rescale returns the unscaled value of d at another scale, reporting false
// when the result does not fit 38 digits. Scaling down truncates toward zero
// is never wanted by callers comparing values, so they compare at the larger
// scale.
func (d DecimalValue) Rescale(scale int32) (decimal128.Num, bool) {
	if scale == d.Scale {
		return d.Unscaled, true
	}
	out, err := d.Unscaled.Rescale(d.Scale, scale)
	if err != nil {
		return decimal128.Num{}, false
	}
	return out, true
}

// Cmp compares two decimals numerically, whatever their scales.
func (d DecimalValue) Cmp(o DecimalValue) int {
	a := new(big.Rat).SetFrac(d.Unscaled.BigInt(), arith.Pow10(int(d.Scale)))
	b := new(big.Rat).SetFrac(o.Unscaled.BigInt(), arith.Pow10(int(o.Scale)))
	return a.Cmp(b)
}

// DateValue is a DATE: days since 1970-01-01.
type DateValue int32

// String renders yyyy-MM-dd.
func (d DateValue) String() string {
	return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
}

// TimeValue is a TIME: milliseconds of the day (Paimon stores TIME with
// millisecond precision whatever p says).
type TimeValue int32

// String renders HH:mm:ss[.SSS].
func (t TimeValue) String() string {
	ms := int64(t)
	s := fmt.Sprintf("%02d:%02d:%02d", ms/3600000, ms/60000%60, ms/1000%60)
	if ms%1000 != 0 {
		s += fmt.Sprintf(".%03d", ms%1000)
	}
	return s
}

// TimestampValue mirrors Paimon's Timestamp: epoch milliseconds plus the
// nanoseconds within that millisecond (0..999999). For TIMESTAMP without
// time zone the value is a local date-time encoded as if it were UTC.
type TimestampValue struct {
	Millis      int64
	NanoOfMilli int32
}

// Time returns the value as a UTC time.Time.
func (t TimestampValue) Time() time.Time {
	return time.UnixMilli(t.Millis).UTC().Add(time.Duration(t.NanoOfMilli))
}

// Compare orders two timestamps.
func (t TimestampValue) Compare(o TimestampValue) int {
	switch {
	case t.Millis < o.Millis:
		return -1
	case t.Millis > o.Millis:
		return 1
	case t.NanoOfMilli < o.NanoOfMilli:
		return -1
	case t.NanoOfMilli > o.NanoOfMilli:
		return 1
	}
	return 0
}

// Micros returns epoch microseconds (truncating sub-microsecond digits).
func (t TimestampValue) Micros() int64 { return t.Millis*1000 + int64(t.NanoOfMilli)/1000 }

// Nanos returns epoch nanoseconds; valid for years 1678..2262.
func (t TimestampValue) Nanos() int64 { return t.Millis*1e6 + int64(t.NanoOfMilli) }

// String renders an ISO-8601 local date-time with the fraction trimmed.
func (t TimestampValue) String() string {
	return t.Time().Format("2006-01-02T15:04:05.999999999")
}
