package input

import (
	"context"
	"errors"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// fakeRows is a fake split's content: ids with their row kinds, served in
// records of recordSize rows. failAt > 0 makes the first read fail after that
// many rows, as a flaky object store would.
type fakeRows struct {
	ids        []int64
	kinds      []string
	recordSize int
	failAt     int
}

var fakeSchema = arrow.NewSchema([]arrow.Field{
	{Name: types.RowKindColumn, Type: arrow.BinaryTypes.String},
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// fakeSplit is a fake split's description; fakeSplitView is how the input
// sees it (the Split interface).
type fakeSplit struct {
	Partition map[string]any
	Bucket    int32
	File      string
	FileCount int
	Bytes     int64
	Rows      int64
	Handle    fakeRows
}

type fakeSplitView struct{ *fakeSplit }

func (v fakeSplitView) Bucket() int32 { return v.fakeSplit.Bucket }
func (v fakeSplitView) PartitionKeys() []string {
	keys := make([]string, 0, len(v.fakeSplit.Partition))
	for k := range v.fakeSplit.Partition {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
func (v fakeSplitView) Partition() []any {
	var vals []any
	for _, k := range v.PartitionKeys() {
		vals = append(vals, v.fakeSplit.Partition[k])
	}
	return vals
}
func (v fakeSplitView) Files() []string {
	if v.File == "" {
		return nil
	}
	return []string{v.File}
}
func (v fakeSplitView) FileCount() int  { return v.fakeSplit.FileCount }
func (v fakeSplitView) Bytes() int64    { return v.fakeSplit.Bytes }
func (v fakeSplitView) RowCount() int64 { return v.Rows }

// fakePlan is a fake plan's description.
type fakePlan struct {
	SnapshotID       int64
	CommitKind       string
	CommitTime       time.Time
	SchemaID         int64
	LatestSnapshotID int64
	Full             bool
	Splits           []*fakeSplit
}

func (fp *fakePlan) plan() *snapshotPlan {
	p := &snapshotPlan{StreamPlan: &paimon.StreamPlan{SnapshotID: fp.SnapshotID, CommitKind: fp.CommitKind, CommitTime: fp.CommitTime,
		SchemaID: fp.SchemaID, FirstPlan: fp.Full, NextSnapshotID: fp.SnapshotID + 1}, LatestSnapshotID: fp.LatestSnapshotID}
	for _, sp := range fp.Splits {
		p.Splits = append(p.Splits, fakeSplitView{sp})
	}
	return p
}

type fakeSource struct {
	mu      sync.Mutex
	plans   []*fakePlan
	eof     bool // io.EOF after the plans; otherwise Next blocks
	pks     []string
	commits []int64
	reads   map[*fakeSplit]int
	planErr int // Next fails this many times first
	closed  bool
	nextCh  chan struct{} // closed when Next blocks idle
}

func (f *fakeSource) Next(ctx context.Context) (*snapshotPlan, error) {
	f.mu.Lock()
	if f.planErr > 0 {
		f.planErr--
		f.mu.Unlock()
		return nil, errors.New("transient listing error")
	}
	if len(f.plans) > 0 {
		p := f.plans[0]
		f.plans = f.plans[1:]
		f.mu.Unlock()
		return p.plan(), nil
	}
	eof, ch := f.eof, f.nextCh
	f.mu.Unlock()
	if eof {
		return nil, io.EOF
	}
	if ch != nil {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (f *fakeSource) Read(_ context.Context, split planSplit) (array.RecordReader, error) {
	sp := split.(fakeSplitView).fakeSplit
	f.mu.Lock()
	if f.reads == nil {
		f.reads = map[*fakeSplit]int{}
	}
	f.reads[sp]++
	attempt := f.reads[sp]
	f.mu.Unlock()
	rows := sp.Handle
	size := max(rows.recordSize, 1)
	var recs []arrow.RecordBatch
	mem := memory.NewGoAllocator()
	for start := 0; start < len(rows.ids); start += size {
		end := min(start+size, len(rows.ids))
		b := array.NewRecordBuilder(mem, fakeSchema)
		for i := start; i < end; i++ {
			k := "+I"
			if rows.kinds != nil {
				k = rows.kinds[i]
			}
			b.Field(0).(*array.StringBuilder).Append(k)
			b.Field(1).(*array.Int64Builder).Append(rows.ids[i])
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	if rows.failAt > 0 && attempt == 1 {
		return &failingReader{recs: recs, failAt: rows.failAt, size: size}, nil
	}
	rr, err := array.NewRecordReader(fakeSchema, recs)
	for _, r := range recs {
		r.Release()
	}
	return rr, err
}

func (f *fakeSource) Commit(_ context.Context, next int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.commits = append(f.commits, next)
	return nil
}

func (f *fakeSource) PrimaryKeys() []string { return f.pks }

func (f *fakeSource) PartitionSchema() *arrow.Schema { return nil }

func (f *fakeSource) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeSource) commitLog() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.commits...)
}

// failingReader serves records until failAt rows have been handed out, then
// reports an error, like a read that loses its connection mid-file.
type failingReader struct {
	recs   []arrow.RecordBatch
	i      int
	served int
	failAt int
	size   int
	err    error
	cur    arrow.RecordBatch
}

func (r *failingReader) Schema() *arrow.Schema { return fakeSchema }
func (r *failingReader) Next() bool {
	if r.served >= r.failAt || r.i >= len(r.recs) {
		if r.i < len(r.recs) {
			r.err = errors.New("connection reset")
		}
		return false
	}
	r.cur = r.recs[r.i]
	r.i++
	r.served += int(r.cur.NumRows())
	return true
}
func (r *failingReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *failingReader) Record() arrow.RecordBatch      { return r.cur }
func (r *failingReader) Err() error                     { return r.err }
func (r *failingReader) Retain()                        {}
func (r *failingReader) Release() {
	for _, rec := range r.recs {
		rec.Release()
	}
	r.recs = nil
}

func ids(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}
