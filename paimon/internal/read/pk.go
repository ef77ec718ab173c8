package read

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/recordreader"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// readPK reads a split of a primary-key table: merged (Java's merge-on-read
// view, deletes dropped) for batch and first plans, raw (every record with
// its own row kind, deletes kept) for streaming delta and changelog splits.
// The filter runs after the merge: filtering before it could drop a key's
// newest version and resurrect an older one.
func (r *Reader) readPK(ctx context.Context, sp *split.Split, need []types.DataField, filter *predicate.Predicate, out *arrow.Schema, mem memory.Allocator) (array.RecordReader, error) {
	opts := mergetree.Options{
		Schema: r.Schema, Schemas: r.Schemas, Fields: need, BatchSize: r.BatchSize, Alloc: mem, Scratch: r.Scratch,
		RowKinds: true,
	}
	var (
		mr  array.RecordReader
		err error
	)
	switch {
	case sp.Raw:
		mr, err = mergetree.NewRawReader(ctx, r.FIO, sp, opts)
	case sp.Diff && len(sp.Before) > 0:
		mr, err = mergetree.NewDiffReader(ctx, r.FIO, sp, opts)
	default:
		mr, err = mergetree.NewMergeReader(ctx, r.FIO, sp, opts)
	}
	if err != nil {
		return nil, err
	}
	if st := r.Stats; st != nil {
		for _, f := range append(sp.Files[:len(sp.Files):len(sp.Files)], sp.Before...) {
			st.FilesRead.Add(1)
			st.BytesRead.Add(f.Meta.FileSize)
		}
	}
	// Java reads a diff split through its merge reader, never raw: the
	// stored row kinds stay.
	pr := &pkReader{ctx: ctx, in: mr, stats: r.Stats,
		post: &post{filter: filter, mem: mem, out: out, nFields: len(r.Fields), rowKind: r.IncludeRowKind, retract: sp.Retract,
			insertOnly: !sp.Raw && !sp.Diff && rawConvertible(sp, r.Schema)}}
	pr.Init(out, mr.Release)
	return pr, nil
}

// pkReader applies the post stage to a merge tree reader's batches.
type pkReader struct {
	recordreader.Base
	ctx   context.Context
	in    array.RecordReader
	post  *post
	stats *Stats
}

func (p *pkReader) Next() bool {
	if !p.Begin() {
		return false
	}
	for {
		if !p.in.Next() {
			return p.Fail(p.in.Err())
		}
		out, err := p.post.apply(p.ctx, p.in.RecordBatch(), true)
		if err != nil {
			return p.Fail(err)
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		if p.stats != nil {
			p.stats.RowsRead.Add(out.NumRows())
		}
		return p.Set(out)
	}
}

// rawConvertible is Java's test for reading a batch split without merging
// (MergeTreeSplitGenerator.splitForBatch, PrimaryKeyTableRawFileSplitReadProvider):
// every file above level 0 with no delete rows, and deletion vectors on or
// first-row or a single level; or a single file with no delete rows. The
// merge returns the same rows either way, but a raw read labels every row +I
// where the merge keeps the stored kind (+U), which a streaming first plan
// with row kinds shows.
func rawConvertible(sp *split.Split, s *schema.TableSchema) bool {
	files := sp.Files
	if len(files) == 0 {
		return false
	}
	noDeletes := func(f split.DataFile) bool { return f.Meta.DeleteRowCount != nil && *f.Meta.DeleteRowCount == 0 }
	above0, clean, oneLevel := true, true, true
	for _, f := range files {
		above0 = above0 && f.Meta.Level > 0
		clean = clean && noDeletes(f)
		oneLevel = oneLevel && f.Meta.Level == files[0].Meta.Level
	}
	if above0 && clean && (s.DeletionVectorsEnabled() || s.MergeEngine() == schema.MergeEngineFirstRow || oneLevel) {
		return true
	}
	return len(files) == 1 && clean
}
