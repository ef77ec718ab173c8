// Package read reads the splits planned by package scan into Arrow record
// batches of the read schema: each data file's columns are mapped from the
// schema it was written with to the read schema by field id (added columns
// read as null, dropped ones disappear, renamed ones follow their id, changed
// types are cast), partition columns are filled from the partition row,
// deletion vectors drop rows by physical position, and the filter is applied
// exactly to the remaining rows.
package read

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/datafile"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/recordreader"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Reader reads splits of one table. It is safe for concurrent use by
// several goroutines reading different splits.
type Reader struct {
	FIO fileio.FileIO
	// Schema is the read schema; Schemas resolves the schemas files were
	// written with.
	Schema  *schema.TableSchema
	Schemas *schema.Manager
	// Fields are the output columns, a projection of Schema.Fields.
	Fields []types.DataField
	// Filter, over Schema.Fields, is applied exactly to every row.
	Filter *predicate.Predicate
	// BatchSize is the number of rows per batch read from files.
	BatchSize int
	// Alloc allocates Arrow memory; nil means the Go allocator.
	Alloc memory.Allocator
	// Scratch allocates what never leaves the file readers
	// (format.Options.Scratch); nil means Alloc.
	Scratch memory.Allocator
	// Stats, when set, counts files, bytes and rows read.
	Stats *Stats
	// IncludeRowKind prepends a string column RowKindColumn holding each
	// row's kind: +I, -U, +U or -D.
	IncludeRowKind bool
	// Dictionary lets append-table reads return string and binary columns
	// as Arrow dictionary arrays where a data file's encoding makes that
	// cheaper (datafile.Options.Dictionary). Primary-key tables are always
	// read plain: the merge compares and copies values row by row.
	Dictionary bool
	// WideTimestamps gives append-table reads their top-level
	// TIMESTAMP(7..9) columns as types.WideTimestampType
	// (datafile.Options.WideTimestamps). Primary-key tables keep Arrow
	// nanosecond timestamps: the merge compares and copies them as such.
	WideTimestamps bool
}

// RowKindColumn is the name of the row kind column (pypaimon's name).
const RowKindColumn = types.RowKindColumn

// Stats are counters a caller can read while reads run.
type Stats struct {
	FilesRead atomic.Int64
	BytesRead atomic.Int64
	RowsRead  atomic.Int64
	// RowGroupsSkipped counts the Parquet row groups and ORC stripes of
	// opened files that the filter skipped by their statistics.
	RowGroupsSkipped atomic.Int64
	// RowIndexGroupsSkipped counts the ORC row-index groups (of
	// orc.row.index.stride rows) skipped inside the stripes read: rows
	// neither decoded nor returned.
	RowIndexGroupsSkipped atomic.Int64
}

// OutputSchema is the Arrow schema of the records Read returns.
func (r *Reader) OutputSchema() (*arrow.Schema, error) {
	s, err := arrowconv.Schema(r.Fields)
	if err != nil {
		return nil, err
	}
	if r.WideTimestamps && r.Schema != nil && len(r.Schema.PrimaryKeys) == 0 {
		s = arrowconv.WideSchema(s, r.Fields)
	}
	if !r.IncludeRowKind {
		return s, nil
	}
	fields := append([]arrow.Field{{Name: RowKindColumn, Type: arrow.BinaryTypes.String}}, s.Fields()...)
	return arrow.NewSchema(fields, nil), nil
}

// Read returns a record reader over one split. The caller must Release it.
func (r *Reader) Read(ctx context.Context, sp *split.Split) (array.RecordReader, error) {
	out, err := r.OutputSchema()
	if err != nil {
		return nil, err
	}
	// The columns needed: the output ones plus those only the filter uses.
	need := append([]types.DataField(nil), r.Fields...)
	if r.Filter != nil {
		// By field id, as the filter was bound: a column the read schema no
		// longer has (dropped while a stream ran) reads as NULL in Remap.
		for _, f := range r.Filter.Columns() {
			if typeutil.FieldByID(need, f.ID) >= 0 {
				continue
			}
			if i := typeutil.FieldByID(r.Schema.Fields, f.ID); i >= 0 {
				need = append(need, r.Schema.Fields[i])
			}
		}
	}
	var filter *predicate.Predicate
	if r.Filter != nil {
		filter, err = predicate.Remap(r.Filter, need)
		if err != nil {
			return nil, err
		}
	}
	mem := r.Alloc
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if len(r.Schema.PrimaryKeys) > 0 {
		return r.readPK(ctx, sp, need, filter, out, mem)
	}
	rr := &splitReader{
		ctx: ctx, r: r, sp: sp, out: out, filter: filter, mem: mem,
		files: datafile.Options{
			FIO: r.FIO, ReadSchema: r.Schema, Fields: need, PartitionValues: sp.PartitionValues,
			Filter: filter, BatchSize: r.BatchSize, Alloc: mem, Scratch: r.Scratch, Dictionary: r.Dictionary,
			WideTimestamps: r.WideTimestamps,
		},
	}
	if r.Stats != nil {
		rr.files.Skipped, rr.files.IndexSkipped = &r.Stats.RowGroupsSkipped, &r.Stats.RowIndexGroupsSkipped
	}
	if r.Schemas != nil {
		rr.files.Schemas = r.Schemas
	}
	rr.Init(out, rr.free)
	return rr, nil
}

// splitReader walks the split's files one after another.
type splitReader struct {
	recordreader.Base
	ctx    context.Context
	r      *Reader
	sp     *split.Split
	files  datafile.Options
	out    *arrow.Schema
	filter *predicate.Predicate
	mem    memory.Allocator

	fileIdx int
	cur     fileReader
	// groups are the split's files as they are read: one file each, or
	// a data-evolution table's files of one first row id together.
	groups [][]*split.DataFile
}

// free closes the open file when the last reference goes.
func (s *splitReader) free() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}

func (s *splitReader) Next() bool {
	if !s.Begin() {
		return false
	}
	for {
		if err := s.ctx.Err(); err != nil {
			return s.Fail(err)
		}
		if s.cur == nil {
			fr, ok, err := s.nextFile()
			if err != nil {
				return s.Fail(err)
			}
			if !ok {
				return false
			}
			s.cur = fr
		}
		rec, err := s.cur.Next(s.ctx)
		if errors.Is(err, io.EOF) {
			s.cur.Close()
			s.cur = nil
			continue
		}
		if err != nil {
			return s.Fail(err) // names the file
		}
		out, err := s.finish(rec)
		rec.Release()
		if err != nil {
			return s.Fail(fmt.Errorf("read data file %s: %w", s.cur.Path(), err))
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		if st := s.r.Stats; st != nil {
			st.RowsRead.Add(out.NumRows())
		}
		return s.Set(out)
	}
}

// nextFile opens the split's next file, or next group of files of a
// data-evolution table; false after the last.
func (s *splitReader) nextFile() (fileReader, bool, error) {
	if s.groups == nil {
		g, err := fileGroups(s.sp.Files, s.r.Schema.DataEvolutionEnabled())
		if err != nil {
			return nil, false, err
		}
		s.groups = g
	}
	if s.fileIdx >= len(s.groups) {
		return nil, false, nil
	}
	g := s.groups[s.fileIdx]
	s.fileIdx++
	if len(g) == 1 {
		fr, err := s.openFile(g[0])
		return fr, err == nil, err
	}
	fr, err := s.openUnion(g)
	return fr, err == nil, err
}

// finish applies the residual filter to a record of the needed columns and
// projects it to the output columns.
func (s *splitReader) finish(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	return s.post().apply(s.ctx, rec, false)
}

func (s *splitReader) post() *post {
	return &post{filter: s.filter, mem: s.mem, out: s.out, nFields: len(s.r.Fields), rowKind: s.r.IncludeRowKind, retract: s.sp.Retract}
}

// post is the last stage of every split read: the exact filter, the row
// kind column and the projection to the output columns.
type post struct {
	filter  *predicate.Predicate
	mem     memory.Allocator
	out     *arrow.Schema
	nFields int
	rowKind bool
	retract bool
	// insertOnly labels every row +I whatever its stored kind (splits Java
	// reads without merging).
	insertOnly bool
}

// apply takes a batch of the needed columns, preceded by the merge
// reader's Int8 row kind column when hasKind, and returns the output batch.
func (p *post) apply(ctx context.Context, rec arrow.RecordBatch, hasKind bool) (arrow.RecordBatch, error) {
	if p.filter != nil {
		filtered, err := predicate.FilterRecord(ctx, p.filter, rec, p.mem)
		if err != nil {
			return nil, err
		}
		rec = filtered
	} else {
		rec.Retain()
	}
	defer rec.Release()
	first := 0
	if hasKind {
		first = 1
	}
	cols := make([]arrow.Array, 0, p.nFields+1)
	if p.rowKind {
		if hasKind && !p.retract && !p.insertOnly {
			kc, err := rowKindStrings(p.mem, rec.Column(0))
			if err != nil {
				return nil, err
			}
			defer kc.Release()
			cols = append(cols, kc)
		} else {
			kind := types.Insert.String()
			if p.retract {
				kind = types.Delete.String()
			}
			kc, err := datafile.ConstArray(p.mem, kind, types.DataType{Root: types.VarChar, Length: types.MaxLength}, int(rec.NumRows()))
			if err != nil {
				return nil, err
			}
			defer kc.Release()
			cols = append(cols, kc)
		}
	}
	for i := 0; i < p.nFields; i++ {
		cols = append(cols, rec.Column(first+i))
	}
	return array.NewRecordBatch(arrowconv.WithColumnTypes(p.out, cols), cols, rec.NumRows()), nil
}

// rowKindStrings is the edge where the library's Int8 row kinds
// (types.RowKind) become the +I/-U/+U/-D strings of RowKindColumn. Every
// spelling is two bytes, so the column is written straight into its buffers.
func rowKindStrings(mem memory.Allocator, col arrow.Array) (arrow.Array, error) {
	kinds, ok := col.(*array.Int8)
	if !ok || kinds.NullN() > 0 {
		return nil, fmt.Errorf("row kind column is %s with %d nulls, want non-null INT8", col.DataType(), col.NullN())
	}
	n := kinds.Len()
	offsets := memory.NewResizableBuffer(mem)
	offsets.Resize((n + 1) * arrow.Int32SizeBytes)
	offs := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	data := memory.NewResizableBuffer(mem)
	data.Resize(2 * n)
	d := data.Bytes()
	for i, k := range kinds.Int8Values() {
		s := types.RowKind(k).String()
		if len(s) != 2 {
			offsets.Release()
			data.Release()
			return nil, fmt.Errorf("invalid row kind %d", k)
		}
		offs[i] = int32(2 * i)
		d[2*i], d[2*i+1] = s[0], s[1]
	}
	offs[n] = int32(2 * n)
	ad := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{nil, offsets, data}, nil, 0, 0)
	offsets.Release()
	data.Release()
	defer ad.Release()
	return array.NewStringData(ad), nil
}
