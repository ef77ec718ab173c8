package mergetree

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/cast"
	"github.com/connect-paimon/connect-paimon/paimon/internal/deletionvector"
	"github.com/connect-paimon/connect-paimon/paimon/internal/format"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/schema"
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

// RowKind is the change kind of a row; it is types.RowKind.
type RowKind = types.RowKind

// The row kinds, as in package types.
const (
	Insert       = types.Insert
	UpdateBefore = types.UpdateBefore
	UpdateAfter  = types.UpdateAfter
	Delete       = types.Delete
)

// SchemaSource resolves the schema a data file was written with
// (*schema.Manager implements it).
type SchemaSource interface {
	Schema(ctx context.Context, id int64) (*schema.TableSchema, error)
}

// batch is one record batch of one data file, columns already mapped to
// the read schema's needed fields (need order), plus the two system
// columns.
type batch struct {
	rec  arrow.RecordBatch
	cols []arrow.Array
	seq  *array.Int64
	kind *array.Int8
	n    int
}

func (b *batch) release() {
	for _, c := range b.cols {
		if c != nil {
			c.Release()
		}
	}
	b.cols = nil
	if b.rec != nil {
		b.rec.Release()
		b.rec = nil
	}
}

func (b *batch) rowKind(i int) RowKind { return RowKind(b.kind.Value(i)) }

// colMap says where a needed column comes from in one file.
type colMap struct {
	fileIdx  int // index in the format reader's fields; -1: absent (NULL)
	from, to types.DataType
	cast     bool
}

// fileSource streams one data file as batches of the needed columns.
type fileSource struct {
	path string
	fr   format.Reader
	// nFile is the number of columns the format reader returns: the file
	// columns of cols (added columns are not read) plus the two system ones.
	nFile int
	cols  []colMap
	need  []types.DataField
	mem   memory.Allocator
}

// openFile opens one key-value data file, reading the needed read-schema
// fields by field id from the file's own schema (renamed columns follow
// their id, added ones read as NULL, changed types are cast), plus
// _SEQUENCE_NUMBER and _VALUE_KIND. The file's deletion vector, if any,
// drops rows by physical position.
func openFile(ctx context.Context, fio fileio.FileIO, schemas SchemaSource, readSchema *schema.TableSchema,
	f *split.DataFile, need []types.DataField, batchSize int, mem memory.Allocator) (*fileSource, error) {
	if f.Meta.WriteCols != nil {
		return nil, fmt.Errorf("data file %s has _WRITE_COLS (data evolution): %w", f.Path, types.ErrUnsupported)
	}
	fileSchema := readSchema
	if f.Meta.SchemaID != readSchema.ID {
		if schemas == nil {
			return nil, fmt.Errorf("data file %s was written with schema %d, and no schema source was given to resolve it", f.Path, f.Meta.SchemaID)
		}
		s, err := schemas.Schema(ctx, f.Meta.SchemaID)
		if err != nil {
			return nil, fmt.Errorf("schema %d of data file %s: %w", f.Meta.SchemaID, f.Path, err)
		}
		fileSchema = s
	}
	fs := &fileSource{path: f.Path, need: need, mem: mem}
	var fileFields []types.DataField
	for _, nf := range need {
		cm := colMap{fileIdx: -1, to: nf.Type}
		if j := types.FieldByID(fileSchema.Fields, nf.ID); j >= 0 {
			ff := fileSchema.Fields[j]
			cm.fileIdx, cm.from = len(fileFields), ff.Type
			cm.cast = !types.SameIgnoringNullability(ff.Type, nf.Type)
			fileFields = append(fileFields, ff)
		}
		fs.cols = append(fs.cols, cm)
	}
	fileFields = append(fileFields, systemFields()...)
	fs.nFile = len(fileFields)
	opts := format.Options{Fields: fileFields, BatchSize: batchSize, Alloc: mem, FileSize: f.Meta.FileSize}
	if f.Deletion != nil {
		dv, err := deletionvector.ReadRange(ctx, fio, f.Deletion.Path, f.Deletion.Offset, f.Deletion.Length)
		if err != nil {
			return nil, fmt.Errorf("deletion vector of data file %s: %w", f.Path, err)
		}
		opts.Deleted = dv
	}
	r, err := format.Open(ctx, fio, f.Path, opts)
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", f.Path, err)
	}
	fs.fr = r
	return fs, nil
}

// next returns the next batch, or io.EOF.
func (fs *fileSource) next(ctx context.Context) (*batch, error) {
	rec, err := fs.fr.Next(ctx)
	if errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("read data file %s: %w", fs.path, err)
	}
	n := int(rec.NumRows())
	nf := len(fs.cols)
	if got := int(rec.NumCols()); got != fs.nFile {
		rec.Release()
		return nil, fmt.Errorf("read data file %s: %d columns returned, want %d", fs.path, got, fs.nFile)
	}
	b := &batch{rec: rec, n: n, cols: make([]arrow.Array, nf)}
	seq, ok1 := rec.Column(int(rec.NumCols()) - 2).(*array.Int64)
	kind, ok2 := rec.Column(int(rec.NumCols()) - 1).(*array.Int8)
	if !ok1 || !ok2 {
		b.release()
		return nil, fmt.Errorf("read data file %s: %s/%s are not BIGINT/TINYINT", fs.path, SequenceNumberColumn, ValueKindColumn)
	}
	if seq.NullN() > 0 || kind.NullN() > 0 {
		b.release()
		return nil, fmt.Errorf("read data file %s: NULL in %s or %s", fs.path, SequenceNumberColumn, ValueKindColumn)
	}
	for i := 0; i < n; i++ {
		if k := kind.Value(i); k < 0 || k > 3 {
			b.release()
			return nil, fmt.Errorf("read data file %s: row %d has invalid %s %d (want 0..3)", fs.path, i, ValueKindColumn, k)
		}
	}
	b.seq, b.kind = seq, kind
	for i, cm := range fs.cols {
		switch {
		case cm.fileIdx < 0:
			dt, err := arrowconv.Type(cm.to)
			if err != nil {
				b.release()
				return nil, fmt.Errorf("column %q: %w", fs.need[i].Name, err)
			}
			b.cols[i] = array.MakeArrayOfNull(fs.mem, dt, n)
		case cm.cast:
			c, err := cast.Cast(ctx, rec.Column(cm.fileIdx), cm.from, cm.to, fs.mem)
			if err != nil {
				b.release()
				return nil, fmt.Errorf("read data file %s: column %q: %w", fs.path, fs.need[i].Name, err)
			}
			b.cols[i] = c
		default:
			c := rec.Column(cm.fileIdx)
			c.Retain()
			b.cols[i] = c
		}
	}
	return b, nil
}

func (fs *fileSource) close() {
	if fs.fr != nil {
		fs.fr.Close()
		fs.fr = nil
	}
}
