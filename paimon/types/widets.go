package types

import (
	"fmt"
	"math"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// wideTimestampName is the Arrow extension name of WideTimestampType.
const wideTimestampName = "paimon.timestamp"

// WideTimestampType is the Arrow type a read with wide timestamps
// (paimon.ReadBuilder.WithWideTimestamps) gives top-level TIMESTAMP(7..9)
// and TIMESTAMP_LTZ(7..9) columns. Arrow's own nanosecond timestamp is an
// int64 of epoch nanoseconds and ends at 1677-09-21 and 2262-04-11, while
// Paimon's Timestamp (and so every value Java writes and reads) spans years
// 0001..9999. The storage is Paimon's own layout, a struct of the epoch
// milliseconds (Int64, "millis") and the nanoseconds within that
// millisecond (Int32, "nano_of_milli", 0..999999), both NOT NULL; the
// struct's validity is the value's. LTZ says WITH LOCAL TIME ZONE (the
// value is a UTC instant) rather than a local date-time encoded as UTC.
//
// The type is not registered with Arrow's extension registry (the library
// keeps no global state): a program that sends such columns through Arrow
// IPC registers it itself (arrow.RegisterExtensionType).
type WideTimestampType struct {
	arrow.ExtensionBase
	LTZ bool
}

// newWideTimestampType returns the wide timestamp type (ltz: WITH LOCAL
// TIME ZONE); the reader's own constructor is arrowconv.WideTimestamp.
func newWideTimestampType(ltz bool) *WideTimestampType {
	return &WideTimestampType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.StructOf(
		arrow.Field{Name: "millis", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "nano_of_milli", Type: arrow.PrimitiveTypes.Int32},
	)}, LTZ: ltz}
}

// ArrayType implements arrow.ExtensionType.
func (*WideTimestampType) ArrayType() reflect.Type { return reflect.TypeOf(WideTimestampArray{}) }

// ExtensionName implements arrow.ExtensionType.
func (*WideTimestampType) ExtensionName() string { return wideTimestampName }

// String names the type as Arrow's timestamp names its zone.
func (t *WideTimestampType) String() string {
	if t.LTZ {
		return "extension<" + wideTimestampName + "[tz=UTC]>"
	}
	return "extension<" + wideTimestampName + ">"
}

// Serialize implements arrow.ExtensionType: the zone, as Arrow's
// timestamp spells it ("UTC" for LTZ, "" otherwise).
func (t *WideTimestampType) Serialize() string {
	if t.LTZ {
		return "UTC"
	}
	return ""
}

// Deserialize implements arrow.ExtensionType.
func (*WideTimestampType) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	want := newWideTimestampType(data == "UTC")
	if data != "" && data != "UTC" {
		return nil, fmt.Errorf("%s: zone %q, want \"\" or \"UTC\"", wideTimestampName, data)
	}
	if !arrow.TypeEqual(storage, want.Storage) {
		return nil, fmt.Errorf("%s: storage %s, want %s", wideTimestampName, storage, want.Storage)
	}
	return want, nil
}

// ExtensionEquals implements arrow.ExtensionType.
func (t *WideTimestampType) ExtensionEquals(o arrow.ExtensionType) bool {
	w, ok := o.(*WideTimestampType)
	return ok && w.LTZ == t.LTZ
}

// WideTimestampArray is an array of WideTimestampType.
type WideTimestampArray struct {
	array.ExtensionArrayBase
}

// Value returns row i (whatever its validity).
func (a *WideTimestampArray) Value(i int) TimestampValue {
	s := a.Storage().(*array.Struct)
	return TimestampValue{
		Millis:      s.Field(0).(*array.Int64).Value(i),
		NanoOfMilli: s.Field(1).(*array.Int32).Value(i),
	}
}

var (
	_ arrow.ExtensionType  = (*WideTimestampType)(nil)
	_ array.ExtensionArray = (*WideTimestampArray)(nil)
)

// ErrNanosecondRange marks a TIMESTAMP(7..9) value outside what an Arrow
// nanosecond timestamp holds (1677-09-21T00:12:43.145224192 ..
// 2262-04-11T23:47:16.854775807). It wraps ErrUnsupported: a read with
// wide timestamps returns such values (WideTimestampType).
var ErrNanosecondRange = fmt.Errorf("outside the range of an Arrow nanosecond timestamp (1677-09-21T00:12:43.145224192..2262-04-11T23:47:16.854775807); a read with wide timestamps (ReadBuilder.WithWideTimestamps, StreamConfig.WideTimestamps) returns it as %s: %w", wideTimestampName, ErrUnsupported)

// CheckedNanos returns t as epoch nanoseconds, or an error wrapping
// ErrNanosecondRange that names the value when an int64 cannot hold it.
func (t TimestampValue) CheckedNanos() (int64, error) {
	const perMilli = 1_000_000
	// The last millisecond at each end is only partly representable.
	hi, lo := int64(math.MaxInt64/perMilli), int64(math.MinInt64/perMilli-1)
	nom := int64(t.NanoOfMilli)
	if t.Millis > hi || t.Millis < lo || (t.Millis == hi && nom > math.MaxInt64%perMilli) ||
		(t.Millis == lo && nom < perMilli+math.MinInt64%perMilli) {
		return 0, fmt.Errorf("timestamp %s: %w", t.Text(), ErrNanosecondRange)
	}
	// At lo the product leaves the int64 range and the sum comes back into
	// it: two's complement wraps both ways, so the result is exact.
	return t.Millis*perMilli + nom, nil
}

// Text renders t as yyyy-MM-ddTHH:mm:ss.nnnnnnnnn (all nine fraction
// digits), the spelling error messages use.
func (t TimestampValue) Text() string {
	return t.Time().Format("2006-01-02T15:04:05.000000000")
}
