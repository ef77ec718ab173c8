package arrowconv

import "github.com/apache/arrow-go/v18/arrow"

// WithDictionaries returns s with the type of each field whose column in
// cols is dictionary-encoded replaced by that column's dictionary type
// (name, nullability and metadata kept), or s itself when no column is.
// Reads that accept dictionary arrays (paimon.ReadOptions.Dictionary)
// build every batch's schema with it: whether a column is a dictionary
// is decided per data file, so it can differ between batches of one read.
func WithDictionaries(s *arrow.Schema, cols []arrow.Array) *arrow.Schema {
	var fields []arrow.Field
	for i, c := range cols {
		if c == nil || c.DataType().ID() != arrow.DICTIONARY || i >= s.NumFields() || arrow.TypeEqual(c.DataType(), s.Field(i).Type) {
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
