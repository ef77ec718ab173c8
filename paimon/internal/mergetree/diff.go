package mergetree

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/compare"
	"github.com/connect-paimon/connect-paimon/paimon/internal/recordreader"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
)

// diffReader is Java's IncrementalDiffSplitRead without forceKeepDelete
// (a plain batch read of an incremental diff): the merged view of the
// split's files (the later snapshot) against the merged view of its
// Before files (the earlier one), both with deletes dropped, returning per
// key the later row when the key is new or its row (every column of the
// read schema) differs. Keys only the earlier view
// has are dropped, as Java drops their -D without forceKeepDelete.
type diffReader struct {
	recordreader.Base
	ctx           context.Context
	before, after *Reader
	keyIdx        []int // columns of the inner readers' batches (kind first)
	keyCmp        []compare.Func
	outIdx        []int // inner column of each output column
	kinds         bool

	cur  arrow.RecordBatch // the before view's current batch, retained
	row  int
	done bool
}

// NewDiffReader returns the incremental diff of a split planned with
// Before files. Its batches are what NewMergeReader's would be: the row
// kind column when opts.RowKinds, then opts.Fields.
func NewDiffReader(ctx context.Context, fio fileio.FileIO, sp *split.Split, opts Options) (array.RecordReader, error) {
	inner := opts
	inner.Fields = opts.Schema.Fields
	inner.RowKinds = true
	beforeSplit := *sp
	beforeSplit.Files, beforeSplit.Before = sp.Before, nil
	afterSplit := *sp
	afterSplit.Before = nil
	before, err := NewMergeReader(ctx, fio, &beforeSplit, inner)
	if err != nil {
		return nil, err
	}
	after, err := NewMergeReader(ctx, fio, &afterSplit, inner)
	if err != nil {
		before.Release()
		return nil, err
	}
	d := &diffReader{ctx: ctx, before: before, after: after, kinds: opts.RowKinds}
	for _, f := range opts.Schema.TrimmedPrimaryKeyFields() {
		c, err := compare.For(f.Type)
		if err != nil {
			d.free()
			return nil, fmt.Errorf("primary key %q: %w", f.Name, err)
		}
		d.keyIdx = append(d.keyIdx, 1+typeutil.FieldByID(inner.Fields, f.ID))
		d.keyCmp = append(d.keyCmp, c)
	}
	if opts.RowKinds {
		d.outIdx = append(d.outIdx, 0)
	}
	for _, f := range opts.Fields {
		i := typeutil.FieldByID(inner.Fields, f.ID)
		if i < 0 {
			d.free()
			return nil, fmt.Errorf("output column %q (id %d) is not in schema %d", f.Name, f.ID, opts.Schema.ID)
		}
		d.outIdx = append(d.outIdx, 1+i)
	}
	fs := make([]arrow.Field, len(d.outIdx))
	for i, c := range d.outIdx {
		fs[i] = after.Schema().Field(c)
	}
	d.Init(arrow.NewSchema(fs, nil), d.free)
	return d, nil
}

func (d *diffReader) free() {
	if d.cur != nil {
		d.cur.Release()
		d.cur = nil
	}
	d.before.Release()
	d.after.Release()
}

func (d *diffReader) Next() bool {
	if !d.Begin() {
		return false
	}
	for {
		if err := d.ctx.Err(); err != nil {
			return d.Fail(err)
		}
		if !d.after.Next() {
			return d.Fail(d.after.Err())
		}
		rec := d.after.RecordBatch()
		keep := array.NewBooleanBuilder(d.after.mem)
		n := 0
		for i := 0; i < int(rec.NumRows()); i++ {
			changed, err := d.changed(rec, i)
			if err != nil {
				keep.Release()
				return d.Fail(err)
			}
			keep.Append(changed)
			if changed {
				n++
			}
		}
		mask := keep.NewBooleanArray()
		keep.Release()
		if n == 0 {
			mask.Release()
			continue
		}
		out, err := d.project(rec, mask, n)
		mask.Release()
		if err != nil {
			return d.Fail(err)
		}
		return d.Set(out)
	}
}

// changed moves the before view up to row i's key and reports whether row
// i is new or differs from the before view's row of that key.
func (d *diffReader) changed(rec arrow.RecordBatch, i int) (bool, error) {
	for {
		if d.cur == nil || d.row >= int(d.cur.NumRows()) {
			if d.done {
				return true, nil
			}
			if d.cur != nil {
				d.cur.Release()
				d.cur = nil
			}
			if !d.before.Next() {
				if err := d.before.Err(); err != nil {
					return false, err
				}
				d.done = true
				return true, nil
			}
			d.cur = d.before.RecordBatch()
			d.cur.Retain()
			d.row = 0
			continue
		}
		c := d.compareKey(d.cur, d.row, rec, i)
		switch {
		case c < 0:
			d.row++ // a key only the before view has: Java drops its -D
		case c > 0:
			return true, nil
		default:
			// Java compares the rows and whether both are adds; the merged
			// views hold adds only, so +I and +U of equal rows are the same.
			same := true
			for col := 1; col < int(rec.NumCols()) && same; col++ {
				same = sameValue(d.cur.Column(col), d.row, rec.Column(col), i)
			}
			d.row++
			return !same, nil
		}
	}
}

func (d *diffReader) compareKey(a arrow.RecordBatch, i int, b arrow.RecordBatch, j int) int {
	for k, col := range d.keyIdx {
		if c := d.keyCmp[k](a.Column(col), i, b.Column(col), j); c != 0 {
			return c
		}
	}
	return 0
}

// project keeps the masked rows of rec's output columns.
func (d *diffReader) project(rec arrow.RecordBatch, mask *array.Boolean, n int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(d.outIdx))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	ctx := compute.WithAllocator(d.ctx, d.after.mem)
	for k, c := range d.outIdx {
		if n == int(rec.NumRows()) {
			cols[k] = rec.Column(c)
			cols[k].Retain()
			continue
		}
		out, err := compute.FilterArray(ctx, rec.Column(c), mask, *compute.DefaultFilterOptions())
		if err != nil {
			return nil, fmt.Errorf("incremental diff: %w", err)
		}
		cols[k] = out
	}
	return array.NewRecordBatch(d.Schema(), cols, int64(n)), nil
}

// sameValue is Java's equality of two serialized rows' fields: FLOAT and
// DOUBLE compare by their bits (-0.0 differs from 0.0, NaN equals NaN),
// nested values element by element, everything else by value.
func sameValue(a arrow.Array, i int, b arrow.Array, j int) bool {
	if a.IsNull(i) || b.IsNull(j) {
		return a.IsNull(i) && b.IsNull(j)
	}
	switch x := a.(type) {
	case *array.Float32:
		y, ok := b.(*array.Float32)
		return ok && math.Float32bits(x.Value(i)) == math.Float32bits(y.Value(j))
	case *array.Float64:
		y, ok := b.(*array.Float64)
		return ok && math.Float64bits(x.Value(i)) == math.Float64bits(y.Value(j))
	case *array.Struct:
		y, ok := b.(*array.Struct)
		if !ok || x.NumField() != y.NumField() {
			return false
		}
		for f := 0; f < x.NumField(); f++ {
			if !sameValue(x.Field(f), i, y.Field(f), j) {
				return false
			}
		}
		return true
	case array.ListLike: // lists and maps (a map is a list of key/value structs)
		y, ok := b.(array.ListLike)
		if !ok {
			return false
		}
		s1, e1 := x.ValueOffsets(i)
		s2, e2 := y.ValueOffsets(j)
		if e1-s1 != e2-s2 {
			return false
		}
		for k := int64(0); k < e1-s1; k++ {
			if !sameValue(x.ListValues(), int(s1+k), y.ListValues(), int(s2+k)) {
				return false
			}
		}
		return true
	}
	return array.SliceEqual(a, int64(i), int64(i+1), b, int64(j), int64(j+1))
}
