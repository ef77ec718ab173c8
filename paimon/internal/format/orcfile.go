package format

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/format/orc"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// orcReader reads an ORC data file stripe by stripe: only the streams of
// the requested columns of the current stripe are in memory.
type orcReader struct {
	path   string
	opts   Options
	f      fileio.File
	of     *orc.File
	schema *arrow.Schema
	fields []orc.Field
	bld    *array.RecordBuilder
	bs     []array.Builder

	stripes []int   // stripes to read, in file order
	starts  []int64 // their first physical row
	next    int
	cur     *orc.StripeReader
	curBase int64 // physical position of cur's first row
	closed  bool
	// err is the first decoding error: the builders may hold part of a
	// batch then, so the reader only reports it again.
	err error
}

func (r *orcReader) open(f fileio.File, path string, opts Options) (err error) {
	r.f, r.path, r.opts = f, path, opts
	defer guardORC(path, &err)
	r.of, err = orc.Open(f, f.Size())
	if err != nil {
		return orcErr(path, err)
	}
	r.schema, err = arrowconv.Schema(opts.Fields)
	if err != nil {
		return fmt.Errorf("orc file %s: %w", path, err)
	}
	if opts.WideTimestamps != nil {
		wide := make([]types.DataField, len(opts.Fields))
		for i, f := range opts.Fields {
			if i < len(opts.WideTimestamps) && opts.WideTimestamps[i] {
				wide[i] = f
			}
		}
		r.schema = arrowconv.WideSchema(r.schema, wide)
	}
	for i, fld := range opts.Fields {
		idx := r.of.FieldIndex(fld.Name)
		if idx < 0 {
			return fmt.Errorf("column %q is not in orc file %s", fld.Name, path)
		}
		r.fields = append(r.fields, orc.Field{Index: idx, Type: fld.Type, Arrow: r.schema.Field(i).Type})
	}
	r.bld = array.NewRecordBuilder(opts.Alloc, r.schema)
	for i := range opts.Fields {
		r.bs = append(r.bs, r.bld.Field(i))
	}
	var start int64
	for s := 0; s < r.of.NumStripes(); s++ {
		n := r.of.StripeRows(s)
		keep := n > 0
		if keep && opts.RowGroupFilter != nil {
			st := r.stripeStats(s)
			keep = opts.RowGroupFilter(st)
		}
		if keep {
			r.stripes = append(r.stripes, s)
			r.starts = append(r.starts, start)
		}
		start += n
	}
	return nil
}

// orcErr names the file once; corrupt data is permanent.
func orcErr(path string, err error) error {
	if errors.Is(err, orc.ErrCorrupt) && !errors.Is(err, types.ErrCorrupt) {
		return fmt.Errorf("read orc file %s: %w (%w)", path, err, types.ErrCorrupt)
	}
	return fmt.Errorf("read orc file %s: %w", path, err)
}

// guardORC turns a panic from Arrow's builders on data our checks missed
// into an error naming the file: corrupt input must never crash the reader.
func guardORC(path string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("read orc file %s: corrupt file (decoder panic: %v): %w", path, r, types.ErrCorrupt)
	}
}

func (r *orcReader) stripeStats(s int) RowGroupStats {
	st := RowGroupStats{Index: s, RowGroup: -1, NumRows: r.of.StripeRows(s)}
	st.Min, st.Max, st.NullCounts = r.of.StripeStats(s, r.fields)
	return st
}

func (r *orcReader) Next(ctx context.Context) (rec arrow.RecordBatch, err error) {
	if r.closed {
		return nil, fmt.Errorf("read orc file %s: reader is closed", r.path)
	}
	if r.err != nil {
		return nil, r.err
	}
	defer func() {
		if err != nil && !errors.Is(err, io.EOF) && ctxErr(ctx) == nil {
			r.err = err
		}
	}()
	defer guardORC(r.path, &err)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.cur == nil || r.cur.Rows() == 0 {
			if r.next >= len(r.stripes) {
				return nil, io.EOF
			}
			s := r.stripes[r.next]
			cur, err := r.of.OpenStripe(s, r.fields, r.orcOptions())
			if err != nil {
				return nil, orcErr(r.path, err)
			}
			r.cur = cur
			r.curBase = r.starts[r.next]
			r.next++
			continue
		}
		// A batch never spans a skipped row group, so its rows have
		// consecutive positions for the deletion vector.
		n := int(min(int64(r.opts.BatchSize), r.cur.Contiguous()))
		if n <= 0 {
			return nil, orcErr(r.path, fmt.Errorf("stripe %d: %d rows left and none readable", r.stripes[r.next-1], r.cur.Rows()))
		}
		start := r.curBase + r.cur.Pos()
		if err := r.cur.Read(r.bs, n); err != nil {
			return nil, orcErr(r.path, fmt.Errorf("stripe %d: %w", r.stripes[r.next-1], err))
		}
		var out arrow.RecordBatch
		if len(r.fields) == 0 {
			out = array.NewRecordBatch(r.schema, nil, int64(n))
		} else {
			out = r.bld.NewRecordBatch()
		}
		out, err = applyDeletes(ctx, out, start, r.opts)
		if err != nil {
			return nil, fmt.Errorf("read orc file %s: %w", r.path, err)
		}
		if out == nil {
			continue
		}
		return out, nil
	}
}

func (r *orcReader) orcOptions() orc.Options {
	o := orc.Options{LegacyTimestampLTZ: !r.opts.ORCTimestampLTZNonLegacy}
	if f := r.opts.RowGroupFilter; f != nil && !r.opts.NoRowIndex {
		// Row groups are decided by the same filter and mapping as stripes
		// and Parquet row groups: only the statistics' source differs.
		o.KeepRowGroup = func(g orc.RowGroup) bool {
			return f(RowGroupStats{Index: g.Stripe, RowGroup: g.Group, NumRows: g.Rows, Min: g.Min, Max: g.Max, NullCounts: g.Nulls})
		}
	}
	return o
}

func (r *orcReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.bld != nil {
		r.bld.Release()
	}
	if r.of != nil {
		r.of.Close()
	}
	if r.f != nil {
		if err := r.f.Close(); err != nil {
			return fmt.Errorf("close orc file %s: %w", r.path, err)
		}
	}
	return nil
}

func ctxErr(ctx context.Context) error { return ctx.Err() }
