// Package datafile reads one data file of a split in the read schema: the
// file's columns are found by field id in the schema the file was written
// with (renamed columns follow their id, added ones read as NULL, dropped
// ones disappear, changed types are cast with Paimon's rules), partition
// columns come from the split's partition row, and the file's deletion
// vector drops rows by physical position. It is the one data-file read path:
// the append reader (package read) and the key-value merge reader (package
// mergetree, which also asks for the _SEQUENCE_NUMBER/_VALUE_KIND system
// columns) both open files through Open.
package datafile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/cast"
	"github.com/connect-paimon/connect-paimon/paimon/internal/deletionvector"
	"github.com/connect-paimon/connect-paimon/paimon/internal/format"
	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// SchemaSource resolves the schema a data file was written with
// (*schema.Manager implements it).
type SchemaSource interface {
	Schema(ctx context.Context, id int64) (*schema.TableSchema, error)
}

// Options says how to read the data files of one split. One Options serves
// every file of the split.
type Options struct {
	FIO fileio.FileIO
	// ReadSchema is the schema the rows are returned in; Schemas resolves
	// the schemas older files were written with (it may be nil when every
	// file has ReadSchema's id).
	ReadSchema *schema.TableSchema
	Schemas    SchemaSource
	// Fields are the read-schema columns returned, in this order. Partition
	// columns among them are filled from PartitionValues, as in Java
	// (PartitionUtils), never read from the file.
	Fields []types.DataField
	// PartitionValues are the split's typed partition values, aligned with
	// ReadSchema.PartitionKeys.
	PartitionValues []any
	// System are columns read from every file as they are, after Fields
	// (key-value files' _SEQUENCE_NUMBER and _VALUE_KIND).
	System []types.DataField
	// Filter, over Fields, skips Parquet row groups whose statistics show
	// that no row can match. Nil reads every row group (primary-key files
	// must be: a row group that doesn't match may hold a key's newest
	// version).
	Filter *predicate.Predicate
	// BatchSize is the number of rows per batch (format.DefaultBatchSize
	// when zero).
	BatchSize int
	// Alloc allocates Arrow memory; nil means the Go allocator.
	Alloc memory.Allocator
	// Scratch allocates what never leaves the file readers
	// (format.Options.Scratch); nil means Alloc.
	Scratch memory.Allocator
	// Dictionary lets string and binary columns read from the file as they
	// are (no cast) come back as Arrow dictionary arrays where the format
	// reader finds that cheaper (format.Options.Dictionary); batch schemas
	// then carry the dictionary types.
	Dictionary bool
	// WideTimestamps gives the top-level TIMESTAMP(7..9) columns of Fields
	// as types.WideTimestampType (paimon.ReadOptions.WideTimestamps).
	WideTimestamps bool
	// Skipped and IndexSkipped, when set, count what Filter skipped:
	// Parquet row groups and ORC stripes, and ORC row-index groups inside
	// the stripes read.
	Skipped, IndexSkipped *atomic.Int64
}

// column sources of an output column for one file.
const (
	srcFile = iota
	srcPartition
	srcNull
)

// colPlan says where one output column comes from in one file.
type colPlan struct {
	src      int
	fileIdx  int // index into the format reader's columns (srcFile)
	partIdx  int // index into the partition values (srcPartition)
	from, to types.DataType
	cast     bool
}

// Reader streams one data file as record batches of Options.Fields
// followed by Options.System.
type Reader struct {
	o      *Options
	path   string
	fr     format.Reader
	cols   []colPlan
	nFile  int // columns the format reader returns
	schema *arrow.Schema
}

// FileFields returns the columns a data file holds: those of the schema it
// was written with, or of a data-evolution file (_WRITE_COLS) the ones it
// names, which the file alone stores.
func FileFields(ctx context.Context, meta *manifest.DataFileMeta, read *schema.TableSchema, schemas SchemaSource) ([]types.DataField, error) {
	fileSchema := read
	if meta.SchemaID != read.ID {
		if schemas == nil {
			return nil, fmt.Errorf("written with schema %d, and no schema source was given to resolve it", meta.SchemaID)
		}
		s, err := schemas.Schema(ctx, meta.SchemaID)
		if err != nil {
			return nil, fmt.Errorf("schema %d: %w", meta.SchemaID, err)
		}
		fileSchema = s
	}
	if meta.WriteCols == nil {
		return fileSchema.Fields, nil
	}
	out := make([]types.DataField, 0, len(meta.WriteCols))
	for _, name := range meta.WriteCols {
		j := slices.IndexFunc(fileSchema.Fields, func(f types.DataField) bool { return f.Name == name })
		if j < 0 {
			return nil, fmt.Errorf("_WRITE_COLS names column %q, which schema %d does not have: %w", name, fileSchema.ID, types.ErrCorrupt)
		}
		out = append(out, fileSchema.Fields[j])
	}
	return out, nil
}

// Open opens one data file.
func Open(ctx context.Context, f *split.DataFile, o *Options) (*Reader, error) {
	meta := &f.Meta
	fileFieldList, err := FileFields(ctx, meta, o.ReadSchema, o.Schemas)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", f.Path, err)
	}
	partKeys := o.ReadSchema.PartitionKeys
	r := &Reader{o: o, path: f.Path}
	var fileFields []types.DataField
	for _, nf := range o.Fields {
		cp := colPlan{to: nf.Type}
		if pi := indexOf(partKeys, nf.Name); pi >= 0 {
			if pi >= len(o.PartitionValues) {
				return nil, fmt.Errorf("data file %s: partition column %q has no value in the split (%d values)", f.Path, nf.Name, len(o.PartitionValues))
			}
			cp.src, cp.partIdx = srcPartition, pi
		} else if j := typeutil.FieldByID(fileFieldList, nf.ID); j >= 0 {
			ff := fileFieldList[j]
			cp.src, cp.fileIdx, cp.from = srcFile, len(fileFields), ff.Type
			cp.cast = !typeutil.SameIgnoringNullability(ff.Type, nf.Type)
			fileFields = append(fileFields, ff)
		} else {
			cp.src = srcNull // added after the file was written
		}
		r.cols = append(r.cols, cp)
	}
	for _, sf := range o.System {
		r.cols = append(r.cols, colPlan{src: srcFile, fileIdx: len(fileFields), from: sf.Type, to: sf.Type})
		fileFields = append(fileFields, sf)
	}
	r.nFile = len(fileFields)
	out, err := arrowconv.Schema(append(append([]types.DataField(nil), o.Fields...), o.System...))
	if err != nil {
		return nil, err
	}
	if o.WideTimestamps {
		out = arrowconv.WideSchema(out, o.Fields)
	}
	r.schema = out
	fo := format.Options{Fields: fileFields, BatchSize: o.BatchSize, Alloc: o.Alloc, Scratch: o.Scratch, FileSize: meta.FileSize}
	if o.Dictionary {
		// Cast columns stay plain: cast works on plain arrays.
		fo.Dictionary = make([]bool, len(fileFields))
		for _, cp := range r.cols[:len(o.Fields)] {
			if cp.src == srcFile && !cp.cast {
				fo.Dictionary[cp.fileIdx] = true
			}
		}
	}
	if o.WideTimestamps {
		// Cast columns are read in their file type and widened after the cast.
		fo.WideTimestamps = make([]bool, len(fileFields))
		for i, cp := range r.cols[:len(o.Fields)] {
			if cp.src == srcFile && !cp.cast && arrowconv.Widens(o.Fields[i].Type) {
				fo.WideTimestamps[cp.fileIdx] = true
			}
		}
	}
	// Java reads ORC LTZ values by the table's current option.
	legacyLTZ, err := o.ReadSchema.BoolOption("orc.timestamp-ltz.legacy.type", true)
	if err != nil {
		return nil, err
	}
	fo.ORCTimestampLTZNonLegacy = !legacyLTZ
	if o.Filter != nil {
		fo.RowGroupFilter = func(rg format.RowGroupStats) bool {
			ok := r.rowGroupMayMatch(rg)
			c := o.Skipped
			if rg.RowGroup >= 0 {
				c = o.IndexSkipped
			}
			if !ok && c != nil {
				c.Add(1)
			}
			return ok
		}
	}
	if f.Deletion != nil {
		dv, err := deletionvector.ReadRange(ctx, o.FIO, f.Deletion.Path, f.Deletion.Offset, f.Deletion.Length)
		if err != nil {
			return nil, fmt.Errorf("deletion vector of data file %s: %w", f.Path, err)
		}
		// The index manifest records how many rows the vector deletes: a
		// vector that says otherwise would return deleted rows, or drop live
		// ones, without an error.
		if c := f.Deletion.Cardinality; c != nil && dv.Cardinality() != *c {
			return nil, fmt.Errorf("deletion vector of data file %s in %s: %d deleted rows, the index manifest records %d: %w",
				f.Path, f.Deletion.Path, dv.Cardinality(), *c, types.ErrCorrupt)
		}
		fo.Deleted = dv
	}
	fr, err := format.Open(ctx, o.FIO, f.Path, fo)
	if err != nil {
		return nil, err // names the file
	}
	r.fr = fr
	return r, nil
}

// Path is the file's path.
func (r *Reader) Path() string { return r.path }

// Schema is the Arrow schema of the batches: Fields then System.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// rowGroupMayMatch evaluates the filter on a row group's statistics, mapped
// to the output columns the same way the data is. A statistic it cannot
// trust for the read type (a cast column's, in the old type) is left
// unknown: pruning may only ever save work.
func (r *Reader) rowGroupMayMatch(rg format.RowGroupStats) bool {
	n := len(r.o.Fields)
	minV, maxV := make([]any, n), make([]any, n)
	nulls := make([]*int64, n)
	for i, cp := range r.cols[:n] {
		switch cp.src {
		case srcPartition:
			v := r.o.PartitionValues[cp.partIdx]
			minV[i], maxV[i] = v, v
			var z int64
			if v == nil {
				z = rg.NumRows
			}
			nulls[i] = &z
		case srcNull:
			all := rg.NumRows
			nulls[i] = &all
		case srcFile:
			if cp.cast {
				continue // stats in the old type would compare wrongly
			}
			if cp.fileIdx < len(rg.Min) {
				minV[i] = rg.Min[cp.fileIdx]
			}
			if cp.fileIdx < len(rg.Max) {
				maxV[i] = rg.Max[cp.fileIdx]
			}
			if cp.fileIdx < len(rg.NullCounts) {
				nulls[i] = rg.NullCounts[cp.fileIdx]
			}
		}
	}
	return r.o.Filter.TestStats(rg.NumRows, minV, maxV, nulls)
}

// Next returns the next batch, or io.EOF after the last one. The caller
// owns the batch.
func (r *Reader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := r.fr.Next(ctx)
	if errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("read data file %s: %w", r.path, err)
	}
	defer rec.Release()
	if got := int(rec.NumCols()); got != r.nFile {
		return nil, fmt.Errorf("read data file %s: %d columns returned, want %d", r.path, got, r.nFile)
	}
	n := int(rec.NumRows())
	mem := r.o.Alloc
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cols := make([]arrow.Array, len(r.cols))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, cp := range r.cols {
		var c arrow.Array
		switch cp.src {
		case srcFile:
			c = rec.Column(cp.fileIdx)
			if cp.cast {
				c, err = cast.Cast(ctx, c, cp.from, cp.to, mem)
			} else {
				c.Retain()
			}
		case srcPartition:
			c, err = ConstArray(mem, r.o.PartitionValues[cp.partIdx], cp.to, n)
		case srcNull:
			c = array.MakeArrayOfNull(mem, r.schema.Field(i).Type, n)
		}
		if wt, ok := r.schema.Field(i).Type.(*types.WideTimestampType); ok && err == nil {
			c, err = widen(c, wt, mem)
		}
		if err != nil {
			release()
			return nil, fmt.Errorf("read data file %s: column %q: %w", r.path, r.schema.Field(i).Name, err)
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(arrowconv.WithColumnTypes(r.schema, cols), cols, int64(n))
	release()
	return out, nil
}

// widen returns c as wt: c itself when a format reader decoded it so,
// otherwise (Avro, Parquet INT64, casts, partition values) converted from
// the nanosecond timestamp that holds every value those can produce. It
// releases c when it converts.
func widen(c arrow.Array, wt *types.WideTimestampType, mem memory.Allocator) (arrow.Array, error) {
	ts, ok := c.(*array.Timestamp)
	if !ok {
		if _, wide := c.DataType().(*types.WideTimestampType); !wide {
			c.Release()
			return nil, fmt.Errorf("column of Arrow type %s read as %s", c.DataType(), wt)
		}
		return c, nil
	}
	defer c.Release()
	return arrowconv.Widen(ts, wt, mem), nil
}

// Close releases the file.
func (r *Reader) Close() {
	if r.fr != nil {
		r.fr.Close()
		r.fr = nil
	}
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}
