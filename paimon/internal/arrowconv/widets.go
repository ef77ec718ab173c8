package arrowconv

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Widens reports whether a read with wide timestamps gives a top-level
// column of type t types.WideTimestampType: TIMESTAMP(7..9) and
// TIMESTAMP_LTZ(7..9), the types whose values Arrow's int64 nanoseconds
// cannot all hold.
func Widens(t types.DataType) bool {
	return (t.Root == types.Timestamp || t.Root == types.TimestampLTZ) && TimeUnitFor(t.Precision) == arrow.Nanosecond
}

// WideSchema returns s (the Arrow schema of fields) with each top-level
// field that Widens as types.WideTimestampType (name, nullability and
// metadata kept), or s itself when none does.
func WideSchema(s *arrow.Schema, fields []types.DataField) *arrow.Schema {
	var out []arrow.Field
	for i, f := range fields {
		if i >= s.NumFields() || !Widens(f.Type) {
			continue
		}
		if out == nil {
			out = s.Fields() // a copy
		}
		out[i].Type = WideTimestamp(f.Type.Root == types.TimestampLTZ)
	}
	if out == nil {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(out, &md)
}

// Widen returns a timestamp array of any unit as wt; every value fits.
func Widen(a *array.Timestamp, wt *types.WideTimestampType, mem memory.Allocator) arrow.Array {
	per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1000, arrow.Microsecond: 1_000_000, arrow.Nanosecond: 1_000_000_000}[a.DataType().(*arrow.TimestampType).Unit]
	b := array.NewExtensionBuilder(mem, wt)
	defer b.Release()
	b.Reserve(a.Len())
	for i, v := range a.TimestampValues() {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		AppendWideTimestamp(b, fromUnits(int64(v), per))
	}
	return b.NewArray()
}

// fromUnits splits v units of 1/per second into milliseconds and the
// nanoseconds within, flooring so that pre-epoch values keep a
// non-negative remainder.
func fromUnits(v, per int64) types.TimestampValue {
	if per <= 1000 {
		return types.TimestampValue{Millis: v * (1000 / per)}
	}
	perMilli := per / 1000
	ms := arith.FloorDiv(v, perMilli)
	return types.TimestampValue{Millis: ms, NanoOfMilli: int32((v - ms*perMilli) * (1_000_000 / perMilli))}
}

// TimestampIn returns v in unit (the Arrow unit of a TIMESTAMP(p),
// TimeUnitFor), flooring digits below the unit; nanoseconds are refused
// beyond what an int64 holds (types.ErrNanosecondRange), as a wrapped value
// would be a wrong row.
func TimestampIn(v types.TimestampValue, unit arrow.TimeUnit) (arrow.Timestamp, error) {
	switch unit {
	case arrow.Second:
		return arrow.Timestamp(arith.FloorDiv(v.Millis, 1000)), nil
	case arrow.Millisecond:
		return arrow.Timestamp(v.Millis), nil
	case arrow.Microsecond:
		return arrow.Timestamp(v.Micros()), nil
	}
	ns, err := v.CheckedNanos()
	return arrow.Timestamp(ns), err
}

// WideTimestamp returns the Arrow type of wide timestamps (ltz: WITH LOCAL
// TIME ZONE), the one types.WideTimestampType's Deserialize also builds.
func WideTimestamp(ltz bool) *types.WideTimestampType {
	return &types.WideTimestampType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.StructOf(
		arrow.Field{Name: "millis", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "nano_of_milli", Type: arrow.PrimitiveTypes.Int32},
	)}, LTZ: ltz}
}

// AppendWideTimestamp appends v to a builder of a wide timestamp type (the
// *array.ExtensionBuilder array.NewBuilder returns for it).
func AppendWideTimestamp(b *array.ExtensionBuilder, v types.TimestampValue) {
	s := b.StorageBuilder().(*array.StructBuilder)
	s.Append(true)
	s.FieldBuilder(0).(*array.Int64Builder).Append(v.Millis)
	s.FieldBuilder(1).(*array.Int32Builder).Append(v.NanoOfMilli)
}
