package mergetree

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/binrow"
	"github.com/connect-paimon/connect-paimon/paimon/internal/datafile"
	"github.com/connect-paimon/connect-paimon/paimon/internal/format"
	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/agg"
	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/compare"
	"github.com/connect-paimon/connect-paimon/paimon/internal/recordreader"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Options configures a merge or raw reader of one split.
type Options struct {
	// Schema is the read schema (the table's latest, or the one being
	// time-travelled to). Its options select the merge engine.
	Schema *schema.TableSchema
	// Schemas resolves the schemas older files were written with; it may
	// be nil when every file has Schema's id.
	Schemas SchemaSource
	// Fields are the output columns, a projection of Schema.Fields.
	Fields []types.DataField
	// BatchSize is the number of rows per batch, read and returned
	// (format.DefaultBatchSize when zero).
	BatchSize int
	// Alloc allocates Arrow memory; nil means the Go allocator.
	Alloc memory.Allocator
	// Scratch allocates what never leaves the file readers
	// (format.Options.Scratch); nil means Alloc.
	Scratch memory.Allocator
	// RowKinds prepends an Int8 column ValueKindColumn holding each row's
	// kind (types.RowKind values): the library's form of row kinds, turned
	// into +I/-U/+U/-D strings only at its edge (package read).
	// holding each row's kind (+I, -U, +U, -D), for streaming reads.
	RowKinds bool
}

// layout is the column plan shared by the merge and raw readers.
type layout struct {
	need    []types.DataField // read-schema columns read from files
	outSrc  []int             // per output field: need index, or -1-partIdx
	keyIdx  []int             // need indices of the trimmed primary key
	keyCmp  []compare.Func
	seqIdx  []int // need indices of sequence.field
	seqCmp  []compare.Func
	out     *arrow.Schema
	outCols []int // need indices of the non-partition output fields
}

func newLayout(o *Options, c *schema.MergeOptions) (*layout, error) {
	l := &layout{}
	s := o.Schema
	needIdx := func(f types.DataField) int {
		if i := typeutil.FieldByID(l.need, f.ID); i >= 0 {
			return i
		}
		l.need = append(l.need, f)
		return len(l.need) - 1
	}
	for _, f := range o.Fields {
		if typeutil.FieldByID(s.Fields, f.ID) < 0 {
			return nil, fmt.Errorf("output column %q (id %d) is not in schema %d", f.Name, f.ID, s.ID)
		}
		if pi := indexOf(s.PartitionKeys, f.Name); pi >= 0 {
			l.outSrc = append(l.outSrc, -1-pi)
			continue
		}
		j := needIdx(f)
		l.outSrc = append(l.outSrc, j)
		l.outCols = append(l.outCols, j)
	}
	for _, f := range s.TrimmedPrimaryKeyFields() {
		c, err := compare.For(f.Type)
		if err != nil {
			return nil, fmt.Errorf("primary key %q: %w", f.Name, err)
		}
		l.keyIdx = append(l.keyIdx, needIdx(f))
		l.keyCmp = append(l.keyCmp, c)
	}
	if c != nil {
		for _, name := range c.SequenceFields {
			if indexOf(s.PartitionKeys, name) >= 0 {
				continue // constant within a split
			}
			f, _ := s.Field(name)
			cf, err := compare.For(f.Type)
			if err != nil {
				return nil, fmt.Errorf("sequence.field %q: %w", name, err)
			}
			l.seqIdx = append(l.seqIdx, needIdx(f))
			l.seqCmp = append(l.seqCmp, cf)
		}
		// Sequence-group fields are read even when not output: every
		// member's update depends on them (Java's adjustProjection).
		for _, g := range c.SequenceGroups {
			for _, name := range g.SequenceFields {
				f, _ := s.Field(name)
				needIdx(f)
			}
		}
	}
	fs, err := arrowconv.Fields(o.Fields)
	if err != nil {
		return nil, err
	}
	if o.RowKinds {
		fs = append([]arrow.Field{{Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8}}, fs...)
	}
	l.out = arrow.NewSchema(fs, nil)
	return l, nil
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// run is one sorted run: a level-0 file, or the key-ordered,
// non-overlapping files of one level ≥ 1, streamed batch by batch.
type run struct {
	files []*split.DataFile
	next  int
	src   *fileSource
	cur   *batch
	row   int
}

func (r *run) ref() rowRef { return rowRef{r.cur, r.row} }

// Reader returns the merged (or raw) rows of one split as Arrow record
// batches. It implements array.RecordReader; its schema is the row kind
// column if requested, then Options.Fields.
type Reader struct {
	recordreader.Base
	ctx    context.Context
	files  datafile.Options // how every file of the split is opened
	opts   Options
	cfg    *schema.MergeOptions
	l      *layout
	sp     *split.Split
	mem    memory.Allocator
	batchN int

	// merge state
	heap    runHeap
	group   []rowRef // the records of the key being merged, in merge order
	mf      mergeFunc
	writers []*colWriter
	kinds   *array.Int8Builder
	pending int
	pinned  []*batch
	started bool

	// raw state: every file of the split, in split order, as one run
	raw    bool
	rawRun *run
}

// NewMergeReader returns a reader of the merged view of one split (files
// of one partition and bucket): for each primary key the merge engine's
// result, with -U/-D results dropped. The planner decides which files the
// split holds (level-0 files hidden per SkipLevel0; postpone buckets
// skipped); every file is merged. Memory is bounded by the number of
// sorted runs times the batch size.
func NewMergeReader(ctx context.Context, fio fileio.FileIO, sp *split.Split, opts Options) (*Reader, error) {
	cfg, err := opts.Schema.MergeOptions()
	if err != nil {
		return nil, err
	}
	r, err := newReader(ctx, fio, sp, opts, cfg)
	if err != nil {
		return nil, err
	}
	switch cfg.Engine {
	case schema.MergeEngineDeduplicate:
		r.mf = &dedupe{ignoreDelete: cfg.IgnoreDelete}
	case schema.MergeEngineFirstRow:
		r.mf = &firstRow{ignoreDelete: cfg.IgnoreDelete}
	case schema.MergeEnginePartialUpdate:
		pu, err := newPartialUpdate(cfg, r.l.need)
		if err != nil {
			r.Release()
			return nil, err
		}
		r.mf = pu
	case schema.MergeEngineAggregation:
		a := &aggregate{removeOnDelete: cfg.AggregationRemoveOnDelete}
		pks := map[string]bool{}
		for _, k := range opts.Schema.PrimaryKeys {
			pks[k] = true
		}
		for _, f := range r.l.need {
			fn := cfg.Aggregates[f.Name]
			if pks[f.Name] {
				fn = "primary-key"
			}
			g, err := agg.New(fn, f, cfg)
			if err != nil {
				r.Release()
				return nil, err
			}
			a.aggs = append(a.aggs, g)
			a.nullable = append(a.nullable, f.Type.Nullable)
		}
		r.mf = a
	}
	for _, f := range r.l.outCols {
		w, err := newColWriter(r.l.need[f].Type, r.mem)
		if err != nil {
			r.Release()
			return nil, err
		}
		r.writers = append(r.writers, w)
	}
	if opts.RowKinds {
		r.kinds = array.NewInt8Builder(r.mem)
	}
	return r, nil
}

// NewRawReader returns a reader of the split's records as they are, file
// after file in split order, each with its _VALUE_KIND as row kind and
// retracts kept: the streaming view of delta files (changelog-producer
// none) and of changelog files. Deletion vectors still apply.
func NewRawReader(ctx context.Context, fio fileio.FileIO, sp *split.Split, opts Options) (*Reader, error) {
	if len(opts.Schema.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("table (schema %d) has no primary key; the raw key-value reader is for primary-key tables", opts.Schema.ID)
	}
	r, err := newReader(ctx, fio, sp, opts, nil)
	if err != nil {
		return nil, err
	}
	r.raw = true
	r.rawRun = &run{files: make([]*split.DataFile, len(sp.Files))}
	for i := range sp.Files {
		r.rawRun.files[i] = &sp.Files[i]
	}
	return r, nil
}

func newReader(ctx context.Context, fio fileio.FileIO, sp *split.Split, opts Options, cfg *schema.MergeOptions) (*Reader, error) {
	if opts.Schema == nil {
		return nil, errors.New("mergetree: Options.Schema is required")
	}
	if len(sp.PartitionValues) < len(opts.Schema.PartitionKeys) {
		return nil, fmt.Errorf("split of bucket %d has %d partition values, schema %d has %d partition keys",
			sp.Bucket, len(sp.PartitionValues), opts.Schema.ID, len(opts.Schema.PartitionKeys))
	}
	l, err := newLayout(&opts, cfg)
	if err != nil {
		return nil, err
	}
	r := &Reader{ctx: ctx, opts: opts, cfg: cfg, l: l, sp: sp, mem: opts.Alloc, batchN: opts.BatchSize}
	if r.mem == nil {
		r.mem = memory.DefaultAllocator
	}
	if r.batchN <= 0 {
		r.batchN = format.DefaultBatchSize
	}
	r.files = datafile.Options{
		FIO: fio, ReadSchema: opts.Schema, Schemas: opts.Schemas, Fields: l.need, System: systemFields(),
		PartitionValues: sp.PartitionValues,
		BatchSize:       r.batchN, Alloc: r.mem, Scratch: opts.Scratch,
	}
	r.Init(l.out, r.free)
	return r, nil
}

// free closes the runs and files and releases the batches and builders
// when the last reference goes.
func (r *Reader) free() {
	for _, ru := range r.heap {
		ru.close()
	}
	r.heap = nil
	r.releasePinned()
	for _, w := range r.writers {
		w.release()
	}
	r.writers = nil
	if r.kinds != nil {
		r.kinds.Release()
		r.kinds = nil
	}
	if r.rawRun != nil {
		r.rawRun.close()
		r.rawRun = nil
	}
}

func (r *Reader) releasePinned() {
	for _, b := range r.pinned {
		b.release()
	}
	r.pinned = r.pinned[:0]
}

// Next advances to the next non-empty batch.
func (r *Reader) Next() bool {
	if !r.Begin() {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		return r.Fail(err)
	}
	var (
		rec arrow.RecordBatch
		err error
	)
	if r.raw {
		rec, err = r.nextRaw()
	} else {
		rec, err = r.nextMerged()
	}
	if err != nil {
		return r.Fail(err)
	}
	return r.Set(rec)
}

func (r *Reader) openRunFile(f *split.DataFile) (*fileSource, error) {
	return openFile(r.ctx, f, &r.files)
}

// advance moves a run to its next record, loading batches and files as
// needed; ok is false when the run is exhausted. A finished batch is
// pinned, not released, because the current merge group and pending
// output rows may still reference it.
func (r *Reader) advance(ru *run) (bool, error) {
	if ru.cur != nil {
		ru.row++
		if ru.row < ru.cur.n {
			return true, nil
		}
		r.pinned = append(r.pinned, ru.cur)
		ru.cur = nil
	}
	b, err := r.nextBatch(ru)
	if err != nil || b == nil {
		return false, err
	}
	ru.cur, ru.row = b, 0
	return true, nil
}

// nextBatch returns the run's next non-empty batch, opening its files in
// turn, or nil after its last file.
func (r *Reader) nextBatch(ru *run) (*batch, error) {
	for {
		if ru.src == nil {
			if ru.next >= len(ru.files) {
				return nil, nil
			}
			f := ru.files[ru.next]
			ru.next++
			src, err := r.openRunFile(f)
			if err != nil {
				return nil, err
			}
			ru.src = src
		}
		b, err := ru.src.next(r.ctx)
		if errors.Is(err, io.EOF) {
			ru.src.close()
			ru.src = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		if b.n == 0 {
			b.release()
			continue
		}
		return b, nil
	}
}

func (ru *run) close() {
	if ru.cur != nil {
		ru.cur.release()
		ru.cur = nil
	}
	if ru.src != nil {
		ru.src.close()
		ru.src = nil
	}
}

// buildRuns groups the split's files into sorted runs: each level-0 file
// is a run of its own (level-0 key ranges overlap); the files of a level
// ≥ 1 form one run ordered by their min keys when the manifest keys decode
// and do not overlap, else (defensively) each file is its own run.
func (r *Reader) buildRuns() []*run {
	byLevel := map[int32][]*split.DataFile{}
	var levels []int32
	for i := range r.sp.Files {
		f := &r.sp.Files[i]
		if _, ok := byLevel[f.Meta.Level]; !ok {
			levels = append(levels, f.Meta.Level)
		}
		byLevel[f.Meta.Level] = append(byLevel[f.Meta.Level], f)
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i] < levels[j] })
	var keyTypes []types.DataType
	for _, f := range r.opts.Schema.TrimmedPrimaryKeyFields() {
		keyTypes = append(keyTypes, f.Type)
	}
	var runs []*run
	for _, lv := range levels {
		files := byLevel[lv]
		if lv > 0 && len(files) > 1 {
			if ordered, ok := orderByKey(files, keyTypes); ok {
				runs = append(runs, &run{files: ordered})
				continue
			}
		}
		for _, f := range files {
			runs = append(runs, &run{files: []*split.DataFile{f}})
		}
	}
	return runs
}

// orderByKey sorts a level's files by min key and checks that key ranges
// are disjoint, using the manifest's _MIN_KEY/_MAX_KEY rows.
func orderByKey(files []*split.DataFile, keyTypes []types.DataType) ([]*split.DataFile, bool) {
	type span struct {
		f        *split.DataFile
		min, max []any
	}
	spans := make([]span, len(files))
	for i, f := range files {
		mn, err1 := binrow.Decode(f.Meta.MinKey, keyTypes)
		mx, err2 := binrow.Decode(f.Meta.MaxKey, keyTypes)
		if err1 != nil || err2 != nil || len(mn) != len(keyTypes) || len(mx) != len(keyTypes) {
			return nil, false
		}
		spans[i] = span{f, mn, mx}
	}
	cmpKeys := func(a, b []any) (int, bool) {
		for i := range a {
			c, ok := compare.Values(a[i], b[i])
			if !ok {
				return 0, false
			}
			if c != 0 {
				return c, true
			}
		}
		return 0, true
	}
	okAll := true
	sort.SliceStable(spans, func(i, j int) bool {
		c, ok := cmpKeys(spans[i].min, spans[j].min)
		if !ok {
			okAll = false
		}
		return c < 0
	})
	if !okAll {
		return nil, false
	}
	out := make([]*split.DataFile, len(spans))
	for i, s := range spans {
		if i > 0 {
			c, ok := cmpKeys(spans[i-1].max, s.min)
			if !ok || c >= 0 {
				return nil, false
			}
		}
		out[i] = s.f
	}
	return out, true
}

// compareKey orders two records by primary key only.
func (r *Reader) compareKey(a, b rowRef) int {
	for k, idx := range r.l.keyIdx {
		if c := r.l.keyCmp[k](a.b.cols[idx], a.i, b.b.cols[idx], b.i); c != 0 {
			return c
		}
	}
	return 0
}

// compare is the merge order: key, then sequence.field values, then
// _SEQUENCE_NUMBER (SortMergeReaderWithMinHeap), then retracts before
// adds so that an add with the same sequence wins.
func (r *Reader) compare(a, b rowRef) int {
	if c := r.compareKey(a, b); c != 0 {
		return c
	}
	for k, idx := range r.l.seqIdx {
		if c := r.l.seqCmp[k](a.b.cols[idx], a.i, b.b.cols[idx], b.i); c != 0 {
			return c
		}
	}
	sa, sb := a.b.seq.Value(a.i), b.b.seq.Value(b.i)
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	ra, rb := a.kind().IsRetract(), b.kind().IsRetract()
	switch {
	case ra && !rb:
		return -1
	case rb && !ra:
		return 1
	}
	return 0
}

// runHeap holds the runs that still have records; mergeHeap orders it.
type runHeap []*run

func (h runHeap) Len() int      { return len(h) }
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*run)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeHeap is the min-heap of runs by their current record's merge
// order; it wraps runHeap because the comparison needs the Reader.
type mergeHeap struct {
	runs *runHeap
	r    *Reader
}

func (m mergeHeap) Len() int      { return m.runs.Len() }
func (m mergeHeap) Swap(i, j int) { m.runs.Swap(i, j) }
func (m mergeHeap) Push(x any)    { m.runs.Push(x) }
func (m mergeHeap) Pop() any      { return m.runs.Pop() }
func (m mergeHeap) Less(i, j int) bool {
	return m.r.compare((*m.runs)[i].ref(), (*m.runs)[j].ref()) < 0
}

// maxPinned bounds the finished batches kept alive between output
// flushes: beyond it a smaller batch is returned so memory stays
// proportional to the number of runs even when most records are deleted.
func (r *Reader) maxPinned() int { return 2*len(r.heap) + 8 }

func (r *Reader) nextMerged() (arrow.RecordBatch, error) {
	// A pointer: heap.Fix takes a heap.Interface, and a struct value
	// converted to one is copied to the heap on every call (one allocation
	// per merged key, 95 % of the merge's allocations).
	mh := &mergeHeap{runs: &r.heap, r: r}
	if !r.started {
		r.started = true
		for _, ru := range r.buildRuns() {
			ok, err := r.advance(ru)
			if err != nil {
				ru.close()
				return nil, err
			}
			if ok {
				r.heap = append(r.heap, ru)
			}
		}
		heap.Init(mh)
	}
	for {
		for r.pending < r.batchN && len(r.heap) > 0 && len(r.pinned) <= r.maxPinned() {
			if err := r.mergeOneKey(mh); err != nil {
				return nil, err
			}
		}
		if r.pending > 0 {
			return r.flush()
		}
		r.releasePinned()
		if len(r.heap) == 0 {
			return nil, nil
		}
	}
}

// mergeOneKey folds all records of the smallest key and appends the
// result, if any, to the pending output.
//
// It does what Java's read stack does with one key: a key with a single
// record returns that record as it is (ReducerMergeFunctionWrapper never
// calls the merge function then; a retract is dropped by DropDeleteReader);
// in lookup mode (MergeOptions.LookupLevels) only the level-0 records and
// the record of the lowest level above 0 reach the merge function
// (LookupMergeFunction.getResult), in merge order.
func (r *Reader) mergeOneKey(mh *mergeHeap) error {
	first := r.heap[0].ref()
	r.group = r.group[:0]
	for len(r.heap) > 0 {
		top := r.heap[0]
		ref := top.ref()
		if r.compareKey(ref, first) != 0 {
			break
		}
		r.group = append(r.group, ref)
		ok, err := r.advance(top)
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(mh, 0)
		} else {
			heap.Pop(mh)
			top.close()
		}
	}
	var (
		kind types.RowKind
		ok   bool
		err  error
	)
	if len(r.group) == 1 {
		kind, ok = r.emitAsIs(r.group[0])
	} else {
		kind, ok, err = r.mergeGroup()
		if err != nil {
			return fmt.Errorf("merge bucket %d: %w", r.sp.Bucket, err)
		}
	}
	if ok {
		r.pending++
		if r.kinds != nil {
			r.kinds.Append(int8(kind))
		}
	}
	return nil
}

// emitAsIs appends a key's only record unmerged, unless it is a retract.
func (r *Reader) emitAsIs(ref rowRef) (types.RowKind, bool) {
	if ref.kind().IsRetract() {
		return 0, false
	}
	return ref.emit(r.writers, r.l.outCols), true
}

// mergeGroup folds the records of r.group with the merge engine.
func (r *Reader) mergeGroup() (types.RowKind, bool, error) {
	hi := -1 // LookupMergeFunction.pickHighLevel: the first of the lowest level > 0
	if r.cfg.LookupLevels {
		for i, ref := range r.group {
			if lv := ref.b.level; lv > 0 && (hi < 0 || lv < r.group[hi].b.level) {
				hi = i
			}
		}
	}
	r.mf.reset()
	for i, ref := range r.group {
		if r.cfg.LookupLevels && ref.b.level > 0 && i != hi {
			continue
		}
		if err := r.mf.add(ref); err != nil {
			return 0, false, err
		}
	}
	return r.mf.emit(r.writers, r.l.outCols)
}

// flush turns the pending rows into a record batch and releases the
// batches they were copied from.
func (r *Reader) flush() (arrow.RecordBatch, error) {
	n := r.pending
	r.pending = 0
	cols := make([]arrow.Array, 0, len(r.l.out.Fields()))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if r.kinds != nil {
		cols = append(cols, r.kinds.NewArray())
	}
	outs := make([]arrow.Array, len(r.writers))
	for i, w := range r.writers {
		a, err := w.finish()
		if err != nil {
			for _, o := range outs {
				if o != nil {
					o.Release()
				}
			}
			return nil, err
		}
		outs[i] = a
	}
	wi := 0
	for j, src := range r.l.outSrc {
		if src >= 0 {
			cols = append(cols, outs[wi])
			wi++
			continue
		}
		c, err := datafile.ConstArray(r.mem, r.sp.PartitionValues[-1-src], r.opts.Fields[j].Type, n)
		if err != nil {
			for _, o := range outs[wi:] {
				o.Release()
			}
			return nil, fmt.Errorf("partition column %q: %w", r.opts.Fields[j].Name, err)
		}
		cols = append(cols, c)
	}
	r.releasePinned()
	return array.NewRecordBatch(r.l.out, cols, int64(n)), nil
}

func (r *Reader) nextRaw() (arrow.RecordBatch, error) {
	b, err := r.nextBatch(r.rawRun)
	if err != nil || b == nil {
		return nil, err
	}
	rec, err := r.rawBatch(b)
	b.release()
	return rec, err
}

func (r *Reader) rawBatch(b *batch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, len(r.l.out.Fields()))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if r.opts.RowKinds {
		b.kind.Retain() // the file's _VALUE_KIND is the row kind
		cols = append(cols, b.kind)
	}
	for j, src := range r.l.outSrc {
		if src >= 0 {
			c := b.cols[src]
			c.Retain()
			cols = append(cols, c)
			continue
		}
		c, err := datafile.ConstArray(r.mem, r.sp.PartitionValues[-1-src], r.opts.Fields[j].Type, b.n)
		if err != nil {
			return nil, fmt.Errorf("partition column %q: %w", r.opts.Fields[j].Name, err)
		}
		cols = append(cols, c)
	}
	return array.NewRecordBatch(r.l.out, cols, int64(b.n)), nil
}
