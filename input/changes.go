package input

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Change-stream metadata for sinks that key and classify rows: the primary
// key as JSON (MetaKey) and Connect's CDC convention (MetaOperation).
const (
	// MetaKey is the JSON object of a primary-key table row's key columns,
	// in key order (`{"id":7}`), set when every key column is read.
	MetaKey = "paimon_key"
	// MetaOperation is Connect's CDC operation: `read` for the rows of a
	// full plan (the table as it was), else `insert`, `update_before`,
	// `update` or `delete` by row kind.
	MetaOperation = "operation"
)

// operation maps a row kind to MetaOperation's value; "" when it is not
// known (a primary-key table read without include_row_kind after the
// first plan: its rows may be any kind).
func operation(kind types.RowKind, full, keyed bool) string {
	if full {
		return "read"
	}
	switch kind {
	case types.Insert:
		return "insert"
	case types.UpdateBefore:
		return "update_before"
	case types.UpdateAfter:
		return "update"
	case types.Delete:
		return "delete"
	case noKind:
		if !keyed {
			return "insert" // append tables only ever add rows
		}
	}
	return ""
}

// keyEncoder renders the key columns of each row as one JSON object, with
// the same encoder (and so the same value spelling) as the bodies.
type keyEncoder struct {
	schema *arrow.Schema
	cols   []int
	enc    *rowjson.Encoder
}

// newKeyEncoder returns nil when the table has no primary key or the
// records lack one of its columns (a `columns` projection without it): no
// key is better than a partial one.
func newKeyEncoder(schema *arrow.Schema, keys []string) (*keyEncoder, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	ke := &keyEncoder{}
	fields := make([]arrow.Field, 0, len(keys))
	for _, k := range keys {
		idx := schema.FieldIndices(k)
		if len(idx) != 1 {
			return nil, nil
		}
		ke.cols = append(ke.cols, idx[0])
		fields = append(fields, schema.Field(idx[0]))
	}
	ke.schema = arrow.NewSchema(fields, nil)
	enc, err := rowjson.NewEncoder(ke.schema)
	if err != nil {
		return nil, err
	}
	ke.enc = enc
	return ke, nil
}

// clone returns a key encoder of its own for another goroutine (nil for
// nil: no key).
func (ke *keyEncoder) clone() (*keyEncoder, error) {
	if ke == nil {
		return nil, nil
	}
	enc, err := rowjson.NewEncoder(ke.schema)
	if err != nil {
		return nil, err
	}
	return &keyEncoder{cols: ke.cols, schema: ke.schema, enc: enc}, nil
}

// encode returns the keys of rec's rows back to back and where each ends;
// rows drop says are dropped get an empty key, as they get no message.
func (ke *keyEncoder) encode(rec arrow.RecordBatch, kinds []types.RowKind, drop func(types.RowKind) bool) ([]byte, []int, error) {
	cols := make([]arrow.Array, len(ke.cols))
	for i, c := range ke.cols {
		cols[i] = rec.Column(c)
	}
	sub := array.NewRecordBatch(ke.schema, cols, rec.NumRows())
	defer sub.Release()
	if err := ke.enc.Reset(sub); err != nil {
		return nil, nil, err
	}
	n := int(rec.NumRows())
	ends := make([]int, n)
	buf := make([]byte, 0, n*16)
	for i := 0; i < n; i++ {
		if kinds == nil || !drop(kinds[i]) {
			buf = ke.enc.AppendRow(buf, i)
		}
		ends[i] = len(buf)
	}
	return buf, ends, nil
}
