// Package arrowconv maps Paimon types to Arrow types. It is the single place
// that decides how a Paimon column looks in memory, so the data file readers,
// the split reader and the Benthos input agree on it.
package arrowconv

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// FieldIDKey is the Arrow field metadata key carrying the Paimon field id.
const FieldIDKey = "paimon.field_id"

// TimeUnitFor returns the Arrow time unit used for a TIMESTAMP(p): the
// coarsest unit that holds p fraction digits.
func TimeUnitFor(precision int) arrow.TimeUnit {
	switch {
	case precision <= 3:
		return arrow.Millisecond
	case precision <= 6:
		return arrow.Microsecond
	default:
		return arrow.Nanosecond
	}
}

// Type returns the Arrow type of a Paimon type.
func Type(t types.DataType) (arrow.DataType, error) {
	// A type without parameters has one Arrow type.
	fixed := [...]arrow.DataType{
		types.Boolean: arrow.FixedWidthTypes.Boolean, types.TinyInt: arrow.PrimitiveTypes.Int8,
		types.SmallInt: arrow.PrimitiveTypes.Int16, types.Int: arrow.PrimitiveTypes.Int32,
		types.BigInt: arrow.PrimitiveTypes.Int64, types.Float: arrow.PrimitiveTypes.Float32,
		types.Double: arrow.PrimitiveTypes.Float64, types.Date: arrow.FixedWidthTypes.Date32,
		types.Time: arrow.FixedWidthTypes.Time32ms,
	}
	if t.Root >= 0 && int(t.Root) < len(fixed) && fixed[t.Root] != nil {
		return fixed[t.Root], nil
	}
	switch t.Root {
	case types.Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case types.Char, types.VarChar:
		return arrow.BinaryTypes.String, nil
	case types.Binary, types.VarBinary:
		return arrow.BinaryTypes.Binary, nil
	case types.Timestamp:
		return &arrow.TimestampType{Unit: TimeUnitFor(t.Precision)}, nil
	case types.TimestampLTZ:
		return &arrow.TimestampType{Unit: TimeUnitFor(t.Precision), TimeZone: "UTC"}, nil
	case types.Array, types.Vector:
		ef, err := elementField("element", *t.Element, -1)
		if err != nil {
			return nil, err
		}
		if t.Root == types.Vector {
			return arrow.FixedSizeListOfField(int32(t.Length), ef), nil
		}
		return arrow.ListOfField(ef), nil
	case types.Map:
		return mapType(*t.Key, *t.Value)
	case types.Multiset:
		// A multiset is a map from element to its NOT NULL count.
		return mapType(*t.Element, types.DataType{Root: types.Int})
	case types.Row:
		fields, err := Fields(t.Fields)
		if err != nil {
			return nil, err
		}
		return arrow.StructOf(fields...), nil
	}
	return nil, fmt.Errorf("type %s: %w", t, types.ErrUnsupported)
}

func mapType(key, value types.DataType) (arrow.DataType, error) {
	k, err := Type(key)
	if err != nil {
		return nil, err
	}
	v, err := Type(value)
	if err != nil {
		return nil, err
	}
	m := arrow.MapOf(k, v)
	m.SetItemNullable(value.Nullable)
	return m, nil
}

func elementField(name string, t types.DataType, id int) (arrow.Field, error) {
	at, err := Type(t)
	if err != nil {
		return arrow.Field{}, err
	}
	f := arrow.Field{Name: name, Type: at, Nullable: t.Nullable}
	if id >= 0 {
		f.Metadata = arrow.NewMetadata([]string{FieldIDKey}, []string{strconv.Itoa(id)})
	}
	return f, nil
}

// Field returns the Arrow field of a Paimon field, with the field id in its
// metadata.
func Field(f types.DataField) (arrow.Field, error) {
	af, err := elementField(f.Name, f.Type, f.ID)
	if err != nil {
		return arrow.Field{}, fmt.Errorf("column %q: %w", f.Name, err)
	}
	return af, nil
}

// Fields maps a list of Paimon fields.
func Fields(fs []types.DataField) ([]arrow.Field, error) {
	out := make([]arrow.Field, len(fs))
	for i, f := range fs {
		af, err := Field(f)
		if err != nil {
			return nil, err
		}
		out[i] = af
	}
	return out, nil
}

// Schema returns the Arrow schema of a list of Paimon fields.
func Schema(fs []types.DataField) (*arrow.Schema, error) {
	fields, err := Fields(fs)
	if err != nil {
		return nil, err
	}
	return arrow.NewSchema(fields, nil), nil
}

// FieldID returns the Paimon field id stored in an Arrow field's metadata.
func FieldID(f arrow.Field) (int, bool) {
	i := f.Metadata.FindKey(FieldIDKey)
	if i < 0 {
		return 0, false
	}
	id, err := strconv.Atoi(f.Metadata.Values()[i])
	return id, err == nil
}
