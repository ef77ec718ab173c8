package input

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A split is read by goroutines in a pipeline: one decodes record batches
// (Parquet/Avro, merging, filters), encoders render them as JSON bodies,
// while the input's ReadBatch builds messages from the bodies. Run one after
// the other on a single goroutine, decoding and encoding became the critical
// path and left part of the second core idle (issue 4). With several rows
// per message, encoding is half of what the binary does, so one encoder
// would bound a split at the rows one core encodes: record batches are
// encoded by up to encodeWorkers goroutines, each with its own encoder, and
// handed on in order.

// prefetchDepth is how many encoded record batches may wait beyond the one
// being delivered: one keeps the stages busy, the second absorbs jitter.
const prefetchDepth = 2

// decodeDepth is how many decoded record batches may wait for an encoder.
// Memory stays bounded by a few record batches per input.
const decodeDepth = 1

// maxEncodeWorkers bounds the encoders of one split: more than the cores
// only adds record batches in memory.
const maxEncodeWorkers = 4

// encodeWorkers is how many goroutines encode one split's record batches.
func encodeWorkers() int { return min(runtime.GOMAXPROCS(0), maxEncodeWorkers) }

// encodeJob is one record batch on its way through an encoder; done
// receives its result, once.
type encodeJob struct {
	rec  arrow.RecordBatch
	done chan encodeResult
}

type encodeResult struct {
	rows *encodedRows
	err  error
}

// prefetcher owns one split's record reader and the encoders until stop.
// The reader is only touched by the decoding goroutine and each encoder only
// by its own goroutine (the first is the cursor's, the others copies), and
// Arrow records never leave the prefetcher: only encoded bytes do, so no
// record outlives its reader.
type prefetcher struct {
	out  chan *encodedRows
	quit chan struct{}
	done chan struct{}
	rr   array.RecordReader
	// err is why the split ended early, nil at its end. encodeErr tells a
	// record the encoder refused from a failed read, because the two are
	// reported differently. Both are written before out is closed, which
	// publishes them to next.
	err       error
	encodeErr bool
}

// encodedRows is one record batch of a split as JSON bodies, back to back in
// one buffer: one allocation per record batch instead of one per row. Each
// encoded row is followed by a newline, so that consecutive rows are already
// a newline-delimited body (rows_per_message) without a copy.
type encodedRows struct {
	n     int
	body  []byte
	ends  []int           // ends[i] is the end of row i in body, past its newline; rows start where the previous ends; a dropped row is empty
	kinds []types.RowKind // row kinds, nil when the records have no row kind column
	// keys and keyEnds hold each row's primary key as JSON (MetaKey), nil
	// when the table has none or the records lack a key column.
	keys    []byte
	keyEnds []int
	// base is the index in its split of row 0 (set by the cursor), for the
	// rows' positions in exactly-once reads keyed by position.
	base int64
}

// key returns row i's key JSON, nil when rows carry none.
func (c *encodedRows) key(i int) []byte {
	if c.keys == nil {
		return nil
	}
	start := 0
	if i > 0 {
		start = c.keyEnds[i-1]
	}
	return c.keys[start:c.keyEnds[i]]
}

func (c *encodedRows) kind(i int) types.RowKind {
	if c.kinds == nil {
		return noKind
	}
	return c.kinds[i]
}

// row returns row i's body, capped so that a processor appending to it
// reallocates instead of overwriting the next row.
func (c *encodedRows) row(i int) []byte {
	return c.rows(i, i+1)
}

// rows returns the rows [from, to) as one newline-delimited body, without
// the last row's newline, capped like row. The rows must not have been
// dropped by upsert_mode (an empty row has no newline).
func (c *encodedRows) rows(from, to int) []byte {
	start := 0
	if from > 0 {
		start = c.ends[from-1]
	}
	end := c.ends[to-1] - 1
	return c.body[start:end:end]
}

// startPrefetch starts reading rr. Rows drop reports as dropped are not
// encoded (upsert_mode), but still occupy their position so that skipping
// and counting stay positional. ctx is the input's stop context: Close
// cancels it, which also interrupts a reader blocked on I/O.
func startPrefetch(ctx context.Context, rr array.RecordReader, enc *rowjson.Encoder, keys *keyEncoder, drop func(types.RowKind) bool) *prefetcher {
	pf := &prefetcher{
		out:  make(chan *encodedRows, prefetchDepth),
		quit: make(chan struct{}),
		done: make(chan struct{}),
		rr:   rr,
	}
	go pf.run(ctx, enc, keys, drop)
	return pf
}

// run encodes what decode produces, and returns only once decode and the
// encoders have returned too, so that stop may release the reader.
//
// decode → recs → dispatch → jobs → encoders; dispatch also queues each job
// in order, which run follows, waiting for each job's result in turn. Every
// record batch is released exactly once: by the encoder that took its job,
// or by dispatch when the split stops before it was handed on.
func (pf *prefetcher) run(ctx context.Context, enc *rowjson.Encoder, keys *keyEncoder, drop func(types.RowKind) bool) {
	defer close(pf.done)
	defer close(pf.out)
	recs := make(chan arrow.RecordBatch, decodeDepth)
	stop := make(chan struct{})
	var readErr error
	decoded := make(chan struct{})
	go func() {
		defer close(decoded)
		defer close(recs)
		readErr = pf.decode(ctx, recs, stop)
	}()

	n := encodeWorkers()
	jobs := make(chan *encodeJob)
	order := make(chan *encodeJob, n)
	var workers sync.WaitGroup
	for w := 0; w < n; w++ {
		wenc, wkeys := enc, keys
		if w > 0 {
			// Encoders keep per-batch state (bound columns, caches): one each.
			var err error
			if wenc, err = rowjson.NewEncoder(enc.Schema()); err == nil {
				wkeys, err = keys.clone()
			}
			if err != nil {
				n = w
				break
			}
		}
		workers.Add(1)
		go func() {
			defer workers.Done()
			bytesPerRow := 128
			for j := range jobs {
				c, err := encodeRecord(wenc, j.rec, drop, bytesPerRow)
				if err == nil && wkeys != nil {
					c.keys, c.keyEnds, err = wkeys.encode(j.rec, c.kinds, drop)
				}
				j.rec.Release()
				if err == nil && c.n > 0 && len(c.body) > 0 {
					bytesPerRow = len(c.body)/c.n + 1
				}
				j.done <- encodeResult{c, err}
			}
		}()
	}
	dispatched := make(chan struct{})
	go func() {
		defer close(dispatched)
		defer close(jobs)
		defer close(order)
		for rec := range recs {
			j := &encodeJob{rec: rec, done: make(chan encodeResult, 1)}
			select {
			case order <- j:
				jobs <- j // encoders take every job until jobs is closed
			case <-stop:
				rec.Release()
				for rec := range recs { // decode closes recs once it sees stop
					rec.Release()
				}
				return
			}
		}
	}()
	defer func() {
		close(stop)
		<-dispatched
		workers.Wait()
		<-decoded
	}()

	for j := range order {
		res := <-j.done
		if res.err != nil {
			pf.err, pf.encodeErr = res.err, true
			return
		}
		select {
		case pf.out <- res.rows:
		case <-pf.quit:
			pf.err = errPrefetchStopped
			return
		case <-ctx.Done():
			// Never let an interrupted split look finished: the input
			// would move past rows it has not delivered.
			pf.err = ctx.Err()
			return
		}
	}
	// order is closed: recs was, so decode has returned and readErr is set.
	<-decoded
	pf.err = readErr
	if pf.err == nil && ctx.Err() != nil {
		pf.err = ctx.Err()
	}
}

// decode sends each record batch of the split, retained, until the reader
// ends or stop is closed; it returns the reader's error.
func (pf *prefetcher) decode(ctx context.Context, recs chan<- arrow.RecordBatch, stop <-chan struct{}) error {
	for pf.rr.Next() {
		rec := pf.rr.RecordBatch()
		rec.Retain()
		select {
		case recs <- rec:
		case <-stop:
			rec.Release()
			return errPrefetchStopped
		case <-ctx.Done():
			rec.Release()
			return ctx.Err()
		}
	}
	return pf.rr.Err()
}

// encodeRecord renders one record batch as JSON bodies back to back, sizing
// the buffer from the previous batch's rows so it rarely grows (each growth
// copies everything encoded so far).
func encodeRecord(enc *rowjson.Encoder, rec arrow.RecordBatch, drop func(types.RowKind) bool, bytesPerRow int) (*encodedRows, error) {
	c := &encodedRows{n: int(rec.NumRows())}
	if err := enc.Reset(rec); err != nil {
		return nil, err
	}
	if enc.HasRowKind() {
		c.kinds = make([]types.RowKind, c.n)
	}
	c.ends = make([]int, c.n)
	c.body = rowjson.NewBuffer(c.n * (bytesPerRow + bytesPerRow/8))
	for i := 0; i < c.n; i++ {
		if c.kinds != nil {
			k, ok := enc.RowKind(i)
			if !ok {
				return nil, fmt.Errorf("row %d: no valid row kind in column %s", i, types.RowKindColumn)
			}
			c.kinds[i] = k
			if drop(c.kinds[i]) {
				c.ends[i] = len(c.body)
				continue
			}
		}
		c.body = append(enc.AppendRow(c.body, i), '\n')
		c.ends[i] = len(c.body)
	}
	return c, nil
}

// errPrefetchStopped is only seen if next is called after stop, which the
// input never does; it keeps such a misuse from reading as a finished split.
var errPrefetchStopped = errors.New("split reader stopped")

// next returns the next encoded record batch, or nil and the reason the
// split ended: a nil error at its end, the read or encode error otherwise.
func (pf *prefetcher) next() (rows *encodedRows, encodeErr bool, err error) {
	if c, ok := <-pf.out; ok {
		return c, false, nil
	}
	return nil, pf.encodeErr, pf.err
}

// stop ends both goroutines, waits for them, then releases the reader: the
// reader must not be released while the decoding goroutine may still call
// it.
func (pf *prefetcher) stop() {
	close(pf.quit)
	<-pf.done
	pf.rr.Release()
}
