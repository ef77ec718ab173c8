package input

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/redpanda-data/benthos/v4/public/schema"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// MetaSchema is the metadata key of the typed schema of the message body:
// Benthos' common schema (public/schema, Common.ToAny), which schema-aware
// processors and outputs read from a metadata key they are pointed at (e.g.
// a `schema_metadata: paimon_schema` field).
const MetaSchema = "paimon_schema"

// bodySchema is the common schema of the rows a record schema encodes to:
// an object of the read columns (the row kind column goes to metadata, not
// the body). The types are the table's: decimals with precision and scale,
// timestamps with their unit and whether they are UTC instants (WITH LOCAL
// TIME ZONE) or zoneless date-times, dates, times of day. The body spells
// several of them as JSON strings (decimals, timestamps, dates, times,
// bytes as base64) — lossless, see the message body section — and a
// consumer of the schema parses them by it.
func bodySchema(sch *arrow.Schema) (schema.Common, error) {
	root := schema.Common{Type: schema.Object}
	for _, f := range sch.Fields() {
		if f.Name == types.RowKindColumn {
			continue
		}
		c, err := fieldSchema(f)
		if err != nil {
			return schema.Common{}, err
		}
		root.Children = append(root.Children, c)
	}
	if err := root.Validate(); err != nil {
		return schema.Common{}, fmt.Errorf("schema metadata: %w", err)
	}
	return root, nil
}

func fieldSchema(f arrow.Field) (schema.Common, error) {
	c, err := typeSchema(f.Type)
	if err != nil {
		return schema.Common{}, fmt.Errorf("column %s: %w", f.Name, err)
	}
	c.Name, c.Optional = f.Name, f.Nullable
	return c, nil
}

// plainTypes are the Arrow types whose common schema type takes no
// parameters.
var plainTypes = map[arrow.Type]schema.CommonType{
	arrow.BOOL: schema.Boolean, arrow.INT8: schema.Int32, arrow.INT16: schema.Int32, arrow.INT32: schema.Int32,
	arrow.INT64: schema.Int64, arrow.FLOAT32: schema.Float32, arrow.FLOAT64: schema.Float64,
	arrow.STRING: schema.String, arrow.BINARY: schema.ByteArray, arrow.DATE32: schema.Date,
}

func typeSchema(t arrow.DataType) (schema.Common, error) {
	if c, ok := plainTypes[t.ID()]; ok {
		return schema.Common{Type: c}, nil
	}
	switch x := t.(type) {
	case *arrow.Decimal128Type:
		return schema.Common{Type: schema.Decimal, Logical: &schema.LogicalParams{
			Decimal: &schema.DecimalParams{Precision: x.Precision, Scale: x.Scale}}}, nil
	case *arrow.Time32Type:
		return schema.Common{Type: schema.TimeOfDay, Logical: &schema.LogicalParams{
			TimeOfDay: &schema.TimeOfDayParams{Unit: timeUnit(x.Unit)}}}, nil
	case *arrow.TimestampType:
		return schema.Common{Type: schema.Timestamp, Logical: &schema.LogicalParams{
			Timestamp: &schema.TimestampParams{Unit: timeUnit(x.Unit), AdjustToUTC: x.TimeZone != ""}}}, nil
	case *types.WideTimestampType:
		// The body holds nanosecond digits for TIMESTAMP(7..9) either way.
		return schema.Common{Type: schema.Timestamp, Logical: &schema.LogicalParams{
			Timestamp: &schema.TimestampParams{Unit: schema.TimeUnitNanos, AdjustToUTC: x.LTZ}}}, nil
	case *arrow.ListType:
		return elementSchema(x.ElemField())
	case *arrow.FixedSizeListType:
		return elementSchema(x.ElemField())
	case *arrow.MapType:
		// String keys encode as a JSON object (Map); other keys as a list
		// of {"key", "value"} objects.
		val, err := fieldSchema(x.ItemField())
		if err != nil {
			return schema.Common{}, err
		}
		if _, ok := x.KeyType().(*arrow.StringType); ok {
			return schema.Common{Type: schema.Map, Children: []schema.Common{val}}, nil
		}
		key, err := fieldSchema(x.KeyField())
		if err != nil {
			return schema.Common{}, err
		}
		key.Name, val.Name = "key", "value"
		entry := schema.Common{Type: schema.Object, Children: []schema.Common{key, val}}
		return schema.Common{Type: schema.Array, Children: []schema.Common{entry}}, nil
	case *arrow.StructType:
		out := schema.Common{Type: schema.Object}
		for _, f := range x.Fields() {
			c, err := fieldSchema(f)
			if err != nil {
				return schema.Common{}, err
			}
			out.Children = append(out.Children, c)
		}
		return out, nil
	}
	return schema.Common{}, fmt.Errorf("no common schema type for Arrow type %s", t)
}

func elementSchema(f arrow.Field) (schema.Common, error) {
	el, err := fieldSchema(f)
	if err != nil {
		return schema.Common{}, err
	}
	return schema.Common{Type: schema.Array, Children: []schema.Common{el}}, nil
}

func timeUnit(u arrow.TimeUnit) schema.TimeUnit {
	switch u {
	case arrow.Second:
		return schema.TimeUnitSeconds
	case arrow.Millisecond:
		return schema.TimeUnitMillis
	case arrow.Microsecond:
		return schema.TimeUnitMicros
	}
	return schema.TimeUnitNanos
}

// schemaMeta is the MetaSchema value of a record schema, immutable so every
// message of a split shares it.
func schemaMeta(sch *arrow.Schema) (service.ImmutableAny, error) {
	c, err := bodySchema(sch)
	if err != nil {
		return service.ImmutableAny{}, err
	}
	return service.ImmutableAny{V: c.ToAny()}, nil
}
