package mergetree

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon/internal/datafile"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// System columns of key-value data files (paimon-format.md §6.2,
// SpecialFields.java).
const (
	SequenceNumberColumn = "_SEQUENCE_NUMBER"
	ValueKindColumn      = "_VALUE_KIND"
	sequenceNumberID     = 2147483646
	valueKindID          = 2147483645
)

// systemFields are the _SEQUENCE_NUMBER and _VALUE_KIND fields as files
// declare them (looked up by name by package format).
func systemFields() []types.DataField {
	return []types.DataField{
		{ID: sequenceNumberID, Name: SequenceNumberColumn, Type: types.DataType{Root: types.BigInt}},
		{ID: valueKindID, Name: ValueKindColumn, Type: types.DataType{Root: types.TinyInt}},
	}
}

// SchemaSource resolves the schema a data file was written with
// (*schema.Manager implements it).
type SchemaSource = datafile.SchemaSource

// batch is one record batch of one data file, columns already mapped to
// the read schema's needed fields (need order), plus the two system
// columns.
type batch struct {
	rec  arrow.RecordBatch
	cols []arrow.Array
	seq  *array.Int64
	kind *array.Int8
	n    int
	// level is the LSM level of the file the batch came from: the lookup
	// merge (LookupMergeFunction) picks records by it.
	level int32
}

func (b *batch) release() {
	if b.rec != nil {
		b.rec.Release() // owns cols, seq and kind
		b.rec = nil
	}
	b.cols = nil
}

func (b *batch) rowKind(i int) types.RowKind { return types.RowKind(b.kind.Value(i)) }

// fileSource streams one data file as batches of the needed columns
// followed by the two system columns.
type fileSource struct {
	r     *datafile.Reader
	level int32
}

// openFile opens one key-value data file through the one data-file read
// path, with _SEQUENCE_NUMBER and _VALUE_KIND after the needed columns.
func openFile(ctx context.Context, f *split.DataFile, o *datafile.Options) (*fileSource, error) {
	r, err := datafile.Open(ctx, f, o)
	if err != nil {
		return nil, err
	}
	return &fileSource{r: r, level: f.Meta.Level}, nil
}

// next returns the next batch, or io.EOF.
func (fs *fileSource) next(ctx context.Context) (*batch, error) {
	rec, err := fs.r.Next(ctx)
	if err != nil {
		return nil, err // io.EOF, or an error naming the file
	}
	n := int(rec.NumRows())
	nc := int(rec.NumCols())
	b := &batch{rec: rec, n: n, cols: rec.Columns()[:nc-2], level: fs.level}
	seq, ok1 := rec.Column(nc - 2).(*array.Int64)
	kind, ok2 := rec.Column(nc - 1).(*array.Int8)
	path := fs.r.Path()
	if !ok1 || !ok2 {
		b.release()
		return nil, fmt.Errorf("read data file %s: %s/%s are not BIGINT/TINYINT", path, SequenceNumberColumn, ValueKindColumn)
	}
	if seq.NullN() > 0 || kind.NullN() > 0 {
		b.release()
		return nil, fmt.Errorf("read data file %s: NULL in %s or %s", path, SequenceNumberColumn, ValueKindColumn)
	}
	for i := 0; i < n; i++ {
		if k := kind.Value(i); k < 0 || k > 3 {
			b.release()
			return nil, fmt.Errorf("read data file %s: row %d has invalid %s %d (want 0..3)", path, i, ValueKindColumn, k)
		}
	}
	b.seq, b.kind = seq, kind
	return b, nil
}

func (fs *fileSource) close() {
	if fs.r != nil {
		fs.r.Close()
		fs.r = nil
	}
}
