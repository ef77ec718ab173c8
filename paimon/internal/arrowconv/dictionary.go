package arrowconv

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// WithColumnTypes returns s with the type of each field whose column in
// cols is dictionary-encoded or a types.WideTimestampType replaced by that
// column's type (name, nullability and metadata kept), or s itself when no
// column is. Reads that accept dictionary arrays (paimon.ReadOptions.Dictionary)
// or wide timestamps build every batch's schema with it: whether a column
// is a dictionary is decided per data file, so it can differ between
// batches of one read, and a file reader returns wide timestamps for the
// columns it decodes itself only.
func WithColumnTypes(s *arrow.Schema, cols []arrow.Array) *arrow.Schema {
	var fields []arrow.Field
	for i, c := range cols {
		if c == nil || i >= s.NumFields() || arrow.TypeEqual(c.DataType(), s.Field(i).Type) {
			continue
		}
		if _, wide := c.DataType().(*types.WideTimestampType); !wide && c.DataType().ID() != arrow.DICTIONARY {
			continue
		}
		if fields == nil {
			fields = s.Fields() // a copy
		}
		fields[i].Type = c.DataType()
	}
	if fields == nil {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}
