package paimon

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/read"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// readOptions are the options a batch read (ReadBuilder) and a streaming
// read (StreamReadBuilder) share: what to read from each split and how to
// hand it out. Both builders embed one value and build their readers from
// it, so an option added here reaches both kinds of read.
type readOptions struct {
	// Projection selects the output columns, in this order; nil reads all.
	Projection []string
	// Filter keeps only matching rows; it is also pushed down to prune
	// partitions, files and row groups. It is resolved in the read schema
	// when a snapshot is planned, and each split carries the result.
	Filter *predicate.Predicate
	// BatchSize is the rows per record batch (0: 4,096).
	BatchSize int
	// Allocator allocates the Arrow buffers (nil: the catalog's
	// WithAllocator, else the Go allocator). paimon/arrowpool.New is a
	// pooled one that cuts the garbage of a read. With neither set, the
	// buffers that never reach the caller (pages as read and decompressed,
	// dictionary indices) come from a pool of the catalog's, bounded by
	// ScratchRetained, and the record batches from the Go allocator.
	Allocator memory.Allocator
	// BucketFilter keeps only the buckets it accepts (nil: all).
	BucketFilter func(bucket int32) bool
	// IncludeRowKind adds a leading types.RowKindColumn (+I, -U, +U, -D).
	IncludeRowKind bool
	// Stats, when set, counts the files, bytes and rows reads opened.
	Stats *ReadStats
	// Dictionary (default false: every column is a plain array of the
	// type ArrowSchema gives it) lets a read return a STRING/CHAR/VARCHAR
	// or BYTES/BINARY/VARBINARY column as an Arrow dictionary array
	// (dictionary<int32, string|binary>) where a Parquet data file holds
	// it dictionary-encoded throughout: the dictionary is decoded once per
	// column chunk and no value is copied per row. It is decided per data
	// file, so the batches of one read may mix dictionary and plain arrays
	// for the same column, and a batch's schema (RecordBatch.Schema) then
	// differs from the reader's (array.RecordReader.Schema) in exactly
	// those column types. Columns of ORC and Avro files, columns cast by
	// schema evolution, nested columns and every column of a primary-key
	// table are always plain.
	Dictionary bool
	// WideTimestamps (default false: Arrow nanosecond timestamps) gives a
	// top-level TIMESTAMP(7..9) or TIMESTAMP_LTZ(7..9) column of an
	// append table as types.WideTimestampType (epoch milliseconds and the
	// nanoseconds within), which holds every value Paimon can store (years
	// 0001..9999). An Arrow nanosecond timestamp ends at 1677-09-21 and
	// 2262-04-11: without this option a value beyond either end fails the
	// read with an error wrapping types.ErrNanosecondRange that names the
	// column and the value. Nested TIMESTAMP(7..9) values and those of
	// primary-key tables stay nanosecond timestamps either way.
	WideTimestamps bool
}

// readerFor builds the split reader of these options for one split.
func (o *readOptions) readerFor(t *Table, sp *Split) (*read.Reader, error) {
	fields, err := projectFields(sp.schema, o.Projection)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	mem := o.Allocator
	if mem == nil {
		mem = t.alloc
	}
	// A chosen allocator serves the scratch buffers too, so that a checking
	// allocator (arrowpool.NewChecked) sees every buffer of the read.
	scratch := mem
	if scratch == nil && t.scratch != nil {
		scratch = t.scratch
	}
	return &read.Reader{
		FIO: t.fio, Schema: sp.schema, Schemas: t.schemas, Fields: fields,
		Filter: sp.filter, BatchSize: o.BatchSize, Alloc: mem, Scratch: scratch, IncludeRowKind: o.IncludeRowKind,
		Stats: o.Stats, Dictionary: o.Dictionary, WideTimestamps: o.WideTimestamps,
	}, nil
}

// ArrowSchema returns the Arrow schema the library reads fields as (the
// mapping in docs/ARCHITECTURE.md), without the row kind column. Types the
// reader refuses fail with an error wrapping types.ErrUnsupported.
func ArrowSchema(fields []types.DataField) (*arrow.Schema, error) {
	return arrowconv.Schema(fields)
}
