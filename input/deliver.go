package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"go.opentelemetry.io/otel/trace"

	"github.com/connect-paimon/connect-paimon/input/internal/checkpoint"
	"github.com/connect-paimon/connect-paimon/internal/clock"
	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Delivery: ReadBatch hands out batches, replaying rejected ones first
// (below), and readBatch, on a background goroutine, cuts new batches from
// the splits of each plan through the cursor (cursor.go).

// The input replays rejected batches itself instead of wrapping itself in
// service.AutoRetryNacksBatched. The wrapper copies every message of every
// batch before it leaves the input and tags each with a sort group so that
// it can later replay exactly the messages an output rejected: eight
// allocations per row, which cost a sixth of the CPU of a `paimon → drop`
// pipeline (issue 4's throughput target). The input already keeps what it
// needs to build a batch again — the encoded bodies are immutable and the
// metadata lives in per-split templates — so a batch is remembered as a few
// row ranges and rebuilt from them when it is rejected.
//
// Precision is kept where it matters: the first delivery of a batch is not
// indexed (that is the cost avoided), so a rejection sends the whole batch
// again; every replay is indexed, so when an output rejects only some
// messages of a replayed batch, only those are sent again. A poison row thus
// duplicates its batch's good rows at most once, and then retries alone.

// rowRange is the rows [from, to) of one encoded record batch of a split.
type rowRange struct {
	rows     *encodedRows
	from, to int
}

// splitTemplates are the metadata templates of one split's messages, by
// row kind. Every message of a split copies the template of its kind
// (Benthos shares the template's metadata copy-on-write), so metadata is
// built once per split and kind rather than once per row.
type splitTemplates struct {
	byKind [5]*service.Message // by kind+1: noKind first, then the four kinds
}

func (t *splitTemplates) get(kind types.RowKind) *service.Message { return t.byKind[kind+1] }

func (t *splitTemplates) put(kind types.RowKind, msg *service.Message) { t.byKind[kind+1] = msg }

// sentBatch is a batch as the input keeps it until the pipeline
// acknowledges it: where its rows sit in the split's encoded record batches
// and the templates of their metadata. That is enough to build its messages
// again after a rejection, without holding copies of them.
type sentBatch struct {
	ranges []rowRange
	tmpls  *splitTemplates
	// perMsg is rows_per_message: how many rows of a range one message holds
	// at most (0 or 1: one row per message).
	perMsg int
	// ack tells the checkpoint tracker the batch is done; called once, on the
	// first delivery the pipeline acknowledges (or drops, without replays).
	ack func()
	// tries counts deliveries, for the back-off of a batch that keeps failing.
	tries int
	// end is the read position after the batch (exactly-once reads only).
	end exactlyonce.Position
	// posPrefix, when set (exactly once into an output that keys its
	// writes by position), starts every message's paimon_position: the
	// plan and split; the message's first row completes it.
	posPrefix string
}

// add appends row i of c, extending the last range when the row follows it.
func (b *sentBatch) add(c *encodedRows, i int) {
	if n := len(b.ranges); n > 0 && b.ranges[n-1].rows == c && b.ranges[n-1].to == i {
		b.ranges[n-1].to++
		return
	}
	b.ranges = append(b.ranges, rowRange{rows: c, from: i, to: i + 1})
}

// rowCount is the number of rows of the batch.
func (b *sentBatch) rowCount() int {
	n := 0
	for _, r := range b.ranges {
		n += r.to - r.from
	}
	return n
}

// eachMessage calls fn with the rows [from, to) of c of every message of
// the batch, in order. Rows upsert_mode drops are never added, so every row
// is in a message. A message holds up to perMsg consecutive rows of one
// range and one row kind, so that the kind's template is the metadata of
// each of its rows; grouping is deterministic from a range's start, which
// is what lets a replay rebuild exactly the messages it narrows to (only).
func (b *sentBatch) eachMessage(fn func(c *encodedRows, from, to int)) {
	per := max(1, b.perMsg)
	for _, r := range b.ranges {
		for i := r.from; i < r.to; {
			j, k := i+1, r.rows.kind(i)
			for j < r.to && j-i < per && r.rows.kind(j) == k {
				j++
			}
			fn(r.rows, i, j)
			i = j
		}
	}
}

// messages builds the batch's messages: a shallow copy of the row kind's
// template with the body of the message's rows (and, one row per message,
// the row's key).
func (b *sentBatch) messages() service.MessageBatch {
	n := b.rowCount()
	if b.perMsg > 1 {
		n = n/b.perMsg + len(b.ranges)
	}
	out := make(service.MessageBatch, 0, n)
	b.eachMessage(func(c *encodedRows, from, to int) {
		msg := b.tmpls.get(c.kind(from)).Copy()
		msg.SetBytes(c.rows(from, to))
		if b.posPrefix != "" {
			msg.MetaSetMut(exactlyonce.MetaPosition, b.posPrefix+exactlyonce.RowKey(c.base+int64(from)))
		}
		if b.perMsg <= 1 {
			if k := c.key(from); k != nil {
				msg.MetaSetMut(MetaKey, string(k))
			}
		}
		out = append(out, msg)
	})
	return out
}

// only returns the batch narrowed to the messages at the given positions.
// With several rows per message each chosen message becomes a range of its
// own, so the narrowed batch is built of exactly those messages again.
func (b *sentBatch) only(positions map[int]bool) *sentBatch {
	nb := &sentBatch{tmpls: b.tmpls, perMsg: b.perMsg, ack: b.ack, tries: b.tries, end: b.end, posPrefix: b.posPrefix}
	pos := 0
	b.eachMessage(func(c *encodedRows, from, to int) {
		if positions[pos] {
			if b.perMsg > 1 {
				nb.ranges = append(nb.ranges, rowRange{rows: c, from: from, to: to})
			} else {
				nb.add(c, from)
			}
		}
		pos++
	})
	return nb
}

// rejected returns what to replay after err rejected the delivery of b
// built as batch. With an index (replays), a batch error that names the
// failed messages narrows the replay to them; anything else replays b whole.
func (b *sentBatch) rejected(err error, idx *service.Indexer) *sentBatch {
	var bErr *service.BatchError
	if idx == nil || !errors.As(err, &bErr) || bErr.IndexedErrors() == 0 {
		return b
	}
	failed := map[int]bool{}
	bErr.WalkMessagesIndexedBy(idx, func(i int, _ *service.Message, err error) bool {
		if err != nil && i >= 0 {
			failed[i] = true
		}
		return true
	})
	nb := b.only(failed)
	if len(nb.ranges) == 0 {
		// Positions outside the batch: trust nothing and send it all.
		return b
	}
	return nb
}

// replayBackoff is the pause before the third and later deliveries of a
// batch that keeps being rejected, so a persistently failing output does not
// spin the input; the first retry is immediate, as a transient failure is
// the common case.
func replayBackoff(tries int) time.Duration {
	if tries < 2 {
		return 0
	}
	return min(time.Second, 10*time.Millisecond<<min(tries-2, 10))
}

// replayQueue holds rejected batches until ReadBatch sends them again, and
// wakes ReadBatch when acknowledgements arrive (it may be waiting for the
// last in-flight batches before ending the input).
type replayQueue struct {
	mu      sync.Mutex
	pending []*sentBatch
	wake    chan struct{} // capacity 1: a pending wake-up is never lost
}

func newReplayQueue() *replayQueue {
	return &replayQueue{wake: make(chan struct{}, 1)}
}

func (q *replayQueue) push(b *sentBatch) {
	q.mu.Lock()
	q.pending = append(q.pending, b)
	q.mu.Unlock()
	q.signal()
}

func (q *replayQueue) pop() *sentBatch {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return nil
	}
	b := q.pending[0]
	q.pending[0] = nil
	q.pending = q.pending[1:]
	return b
}

// pushFront puts back a batch whose replay was interrupted, keeping its turn.
func (q *replayQueue) pushFront(b *sentBatch) {
	q.mu.Lock()
	q.pending = append([]*sentBatch{b}, q.pending...)
	q.mu.Unlock()
}

func (q *replayQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// readResult is what the background read of the next batch produced.
type readResult struct {
	batch *sentBatch
	err   error
}

// ReadBatch returns the next batch: a rejected batch first, else new rows.
// New rows are read on a goroutine that outlives the call, so that a
// rejection arriving while the read waits (for a new snapshot, for
// back-pressure to clear) is replayed at once instead of after the wait,
// and a wait interrupted by the caller's context loses no read.
func (p *paimonInput) ReadBatch(ctx context.Context) (service.MessageBatch, service.AckFunc, error) {
	for {
		if p.stopCtx.Err() != nil || p.stoppedOn() != nil {
			return nil, nil, service.ErrEndOfInput
		}
		if b := p.replays.pop(); b != nil {
			if d := replayBackoff(b.tries); d > 0 {
				_ = clock.Sleep(ctx, d) // ctx's end is handled below
			}
			if err := ctx.Err(); err != nil {
				// The caller gave up: keep the batch's turn for the next call.
				p.replays.pushFront(b)
				return nil, nil, err
			}
			return p.deliver(b, true)
		}
		if p.readEnded {
			// The source is exhausted: end once nothing can be rejected
			// any more, replaying whatever is until then.
			if tr := p.currentTracker(); tr == nil || tr.InFlight() == 0 {
				return nil, nil, service.ErrEndOfInput
			}
		} else if p.reading == nil {
			ch := make(chan readResult, 1)
			p.reading = ch
			go func() {
				b, err := p.readBatch()
				ch <- readResult{b, err}
			}()
		}
		select {
		case r := <-p.reading:
			p.reading = nil
			switch {
			case r.err == nil:
				return p.deliver(r.batch, false)
			case p.stopCtx.Err() != nil:
				// Whatever failed, it failed because Close interrupted it.
				return nil, nil, service.ErrEndOfInput
			case errors.Is(r.err, service.ErrEndOfInput):
				p.readEnded = true
			default:
				return nil, nil, p.stopOnPermanent(r.err)
			}
		case <-p.replays.wake:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// deliver builds b's messages and the ack that completes or replays it.
func (p *paimonInput) deliver(b *sentBatch, replay bool) (service.MessageBatch, service.AckFunc, error) {
	b.tries++
	batch := b.messages()
	if eo := p.eo; eo != nil {
		eo.deliveredTo(b.end, b.rowCount())
	}
	var idx *service.Indexer
	if replay {
		p.m.replayed.Incr(int64(b.rowCount()))
		idx = batch.Index()
	}
	var once sync.Once
	return batch, func(_ context.Context, err error) error {
		once.Do(func() {
			switch {
			case err == nil:
				b.ack()
			case p.eo != nil:
				// The transaction lost these rows: it is aborted and read
				// again (exactlyonce.go), never patched by a replay.
				p.eo.reject(err)
				b.ack()
			case p.cfg.AutoReplayNacks:
				p.replays.push(b.rejected(err, idx))
				return
			default:
				p.m.dropped.Incr(1)
				p.log.Warnf("paimon input: rows rejected downstream are dropped (auto_replay_nacks is false): %v", err)
				b.ack()
			}
			p.replays.signal()
		})
		return nil
	}, nil
}

// readBatch reads the next non-empty batch of rows of one split, blocking
// while the table has nothing new. It runs on ReadBatch's background read
// goroutine and waits under the input's stop context only: a caller giving
// up on ReadBatch does not abandon the read, Close does.
func (p *paimonInput) readBatch() (*sentBatch, error) {
	ctx := p.stopCtx
	select {
	case p.readSem <- struct{}{}:
	case <-ctx.Done():
		return nil, service.ErrEndOfInput
	}
	defer func() { <-p.readSem }()

	src := p.source()
	if src == nil {
		if ctx.Err() != nil {
			return nil, service.ErrEndOfInput
		}
		return nil, service.ErrNotConnected
	}
	for {
		if ctx.Err() != nil {
			return nil, service.ErrEndOfInput
		}
		if p.cur.plan == nil {
			if p.ended {
				return nil, service.ErrEndOfInput
			}
			if err := p.nextPlan(ctx, src); err != nil {
				if errors.Is(err, io.EOF) {
					if err != io.EOF {
						// A normal end, but an empty read: the error says why.
						p.log.Infof("paimon input: %v", err)
					}
					p.ended = true
					return nil, service.ErrEndOfInput
				}
				return nil, err
			}
			continue
		}
		if p.eo != nil {
			if err := p.eoStep(ctx, p.cur.planDone()); err != nil {
				return nil, err
			}
		}
		if !p.cur.open() {
			if p.cur.planDone() {
				p.syncReadCounts(src)
				p.endProgress()
				if err := p.tracker.End(p.cur.plan.SnapshotID); err != nil {
					return nil, fmt.Errorf("snapshot %d: %w", p.cur.plan.SnapshotID, err)
				}
				p.cur.setPlan(nil)
				continue
			}
			if err := p.openSplit(ctx, src); err != nil {
				return nil, err
			}
		}
		// Back-pressure before reading, so no built batch is ever abandoned.
		if err := p.win.w.wait(ctx); err != nil {
			return nil, err
		}
		if err := p.limiter.waitRows(ctx); err != nil {
			return nil, err
		}
		var posPrefix string
		if p.eo != nil && p.eo.keyed {
			posPrefix = exactlyonce.SplitKey(p.cur.plan.SnapshotID, p.cur.plan.FirstPlan, p.cur.splitIdx)
		}
		batch, n, filesDone, err := p.cur.fill()
		if err != nil {
			return nil, err
		}
		p.planFilesDone += filesDone
		if filesDone > 0 {
			p.planBytesDone += p.cur.plan.Splits[p.cur.splitIdx-1].Bytes()
		}
		if n == 0 {
			continue
		}
		p.limiter.addRows(n)
		p.syncReadCounts(src)
		p.planRows += int64(n)
		p.logProgress()
		if p.eo != nil {
			batch.end = p.eoPosition()
			if p.eo.keyed {
				batch.posPrefix = posPrefix
			}
		}
		done, err := p.tracker.Add(p.cur.plan.SnapshotID)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", p.cur.plan.SnapshotID, err)
		}
		release := p.win.take(n, batch.bodyBytes())
		batch.ack = func() { done(); release() }
		p.m.rows.Incr(int64(n))
		return batch, nil
	}
}

func (p *paimonInput) nextPlan(ctx context.Context, src source) (err error) {
	if err := p.limiter.takeSnapshot(ctx); err != nil {
		return err
	}
	ctx, span := p.tr.Start(ctx, spanPlan, trace.WithAttributes(attrTable.String(p.cfg.FullName())))
	defer func() { endSpan(span, err) }()
	start := time.Now()
	plan, err := src.Next(ctx)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return p.about("plan next snapshot", "of ", false, err)
	}
	if plan.PlanLatency > 0 {
		p.m.plan.Timing(plan.PlanLatency.Nanoseconds())
	} else {
		p.m.plan.Timing(time.Since(start).Nanoseconds())
	}
	if plan.LatestSnapshotID > 0 {
		p.m.lag.Set(max(0, plan.LatestSnapshotID-plan.SnapshotID))
	}
	if e := plan.Expired; e != nil {
		who := "the scan"
		if p.cfg.Read.ConsumerID != "" {
			who = fmt.Sprintf("consumer %q", p.cfg.Read.ConsumerID)
		}
		to := fmt.Sprintf("continuing with the changes of snapshot %d", e.Earliest)
		if e.Policy == paimon.ExpiredLatestFull {
			to = fmt.Sprintf("reading snapshot %d in full", e.Latest)
		}
		p.log.Warnf("paimon input on %s: %s needed snapshot %d, which has expired (earliest is %d); on_expired %s: %s — the changes of %d snapshot(s) were not read",
			p.cfg.FullName(), who, e.Needed, e.Earliest, e.Policy, to, e.Skipped())
	}
	if plan.FirstPlan {
		// A consumer at SnapshotID would resume with that snapshot's
		// changes only, skipping the undelivered rest of this full read.
		p.minCommit.Store(plan.SnapshotID + 1)
	}
	p.mu.Lock()
	if p.tracker == nil {
		p.tracker = checkpoint.New(plan.SnapshotID)
	}
	tr := p.tracker
	p.mu.Unlock()
	if err := tr.Begin(plan.SnapshotID); err != nil {
		return fmt.Errorf("snapshot %d of %s: %w", plan.SnapshotID, p.cfg.FullName(), err)
	}
	// The source reads only this replica's buckets (the library's bucket
	// filter prunes the others from the plan).
	kept := plan.Splits
	p.cur.setPlan(plan)
	if err := p.eoApplyResume(plan); err != nil {
		return err
	}
	p.startProgress(kept)
	files := 0
	for _, sp := range kept {
		files += sp.FileCount()
	}
	span.SetAttributes(attrSnapshot.Int64(plan.SnapshotID), attrSplits.Int(len(kept)), attrFiles.Int(files), attrFull.Bool(plan.FirstPlan))
	return nil
}

// syncReadCounts moves the source's read counters into the metrics.
func (p *paimonInput) syncReadCounts(src source) {
	rc, ok := src.(readCounter)
	if !ok {
		return
	}
	files, bytes := rc.ReadCounts()
	if d := files - p.seenFiles; d > 0 {
		p.m.files.Incr(d)
	}
	if d := bytes - p.seenBytes; d > 0 {
		p.m.bytes.Incr(d)
	}
	p.seenFiles, p.seenBytes = files, bytes
}
