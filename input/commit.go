package input

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// Commits: acknowledged progress reaches the consumer file from a committer
// goroutine every commit_period (and, while idle, every heartbeat_interval),
// and once more when the input closes (finalCommit).

// finalCommitTimeout bounds the commit in Close: the engine calls Close with
// a context that has no deadline.
const finalCommitTimeout = 10 * time.Second

func (p *paimonInput) commitLoop() {
	defer p.committer.Done()
	tick := p.cfg.CommitPeriod
	if p.cfg.HeartbeatInterval > 0 && p.cfg.HeartbeatInterval < tick {
		tick = p.cfg.HeartbeatInterval
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.stopCtx.Done():
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(p.stopCtx, max(p.cfg.CommitPeriod, finalCommitTimeout))
			p.commit(ctx, false)
			cancel()
		}
	}
}

// commit writes the tracker's committable position when it moved, or when
// the heartbeat is due (forced on close). Failures are logged and retried on
// the next tick: a lagging consumer file only means re-delivery after a
// restart, never loss.
func (p *paimonInput) commit(ctx context.Context, final bool) {
	p.commitMu.Lock()
	defer p.commitMu.Unlock()
	tr, src := p.currentTracker(), p.source()
	if src == nil {
		return
	}
	var next int64
	switch {
	case p.eo != nil:
		// Exactly once: the position Kafka committed, never what was only
		// acknowledged into an open transaction.
		if next = p.eo.nextSnapshot(); next == 0 {
			p.touch(ctx, src, final)
			return
		}
	case tr == nil:
		// No plan yet: nothing of this run to commit, but a consumer
		// resumed from its file must still be kept alive while the
		// input waits for the snapshot it points at.
		p.touch(ctx, src, final)
		return
	default:
		next = tr.Committable()
		if next < p.minCommit.Load() {
			return // a full plan is being delivered: no true position yet
		}
	}
	heartbeat := p.cfg.HeartbeatInterval > 0 && p.committed > 0 && time.Since(p.lastWrite) >= p.cfg.HeartbeatInterval
	if next < p.committed || (next == p.committed && (final || !heartbeat)) {
		return
	}
	if !p.fenced(ctx, next) {
		return
	}
	cctx, span := p.tr.Start(ctx, spanCommit, trace.WithAttributes(attrTable.String(p.cfg.FullName()),
		attrConsumer.String(p.cfg.Read.ConsumerID), attrNext.Int64(next)))
	err := src.Commit(cctx, next)
	endSpan(span, err)
	if err != nil {
		if paimon.IsPermanent(err) {
			// Another writer owns the file: stop rather than fight over it.
			_ = p.stopOnPermanent(err)
			return
		}
		p.log.Errorf("paimon input: commit consumer %s of %s at nextSnapshot %d: %v", p.cfg.Read.ConsumerID, p.cfg.FullName(), next, err)
		return
	}
	p.committed, p.lastWrite = next, time.Now()
	p.m.committed.Set(next)
}

// touch rewrites the consumer file unchanged when the heartbeat is due.
func (p *paimonInput) touch(ctx context.Context, src source, final bool) {
	t, ok := src.(toucher)
	if !ok || final || p.cfg.HeartbeatInterval <= 0 || time.Since(p.lastWrite) < p.cfg.HeartbeatInterval {
		return
	}
	if !p.fenced(ctx, p.committed) {
		return
	}
	next, ok, err := t.Touch(ctx)
	if err != nil && paimon.IsPermanent(err) {
		_ = p.stopOnPermanent(err)
		return
	}
	if err != nil {
		p.log.Errorf("paimon input: heartbeat of consumer %s of %s: %v", p.cfg.Read.ConsumerID, p.cfg.FullName(), err)
		return
	}
	p.lastWrite = time.Now() // also when there is no file yet: look again a heartbeat later
	if ok {
		p.committed = max(p.committed, next)
	}
}

// endReadPlan ends the current snapshot in the tracker when every row of
// it was delivered but the read that would have noticed (the next
// ReadBatch) never came: a stop or a revoked slot right after a snapshot's
// last batch would otherwise leave the consumer before that snapshot, and
// the next reader would deliver the whole snapshot again. The current
// split's reader is asked for its next rows: they are discarded anyway
// (Close releases it), and only its end (no rows, no error) counts.
// Called by Close, holding readSem, before and after the stop.
func (p *paimonInput) endReadPlan() {
	c := &p.cur
	if c.plan == nil || p.tracker == nil {
		return
	}
	if c.open() {
		if c.skip > 0 || (c.chunk != nil && c.chunkRow < c.chunk.n) || c.splitIdx+1 < len(c.plan.Splits) {
			return
		}
		rows, _, err := c.pf.next()
		if rows != nil {
			// Not the end: the rows go back to the cursor, where fill
			// would have put them, so a read after this still has them.
			rows.base = c.splitDone
			c.chunk, c.chunkRow = rows, 0
			return
		}
		if err != nil {
			return
		}
	} else if !c.planDone() {
		return
	}
	if err := p.tracker.End(c.plan.SnapshotID); err != nil {
		p.log.Debugf("paimon input on %s: %v", p.cfg.FullName(), err)
	}
}

// finalCommit writes the position once more on Close, bounded by
// finalCommitTimeout.
func (p *paimonInput) finalCommit(ctx context.Context) {
	if p.cfg.Read.ConsumerID == "" {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, finalCommitTimeout)
	p.commit(cctx, true)
	cancel()
}

// fenced reports whether the consumer file may be written with next: in a
// group, only while this replica still owns the slot, as the group
// coordinator confirms. A replica that lost the slot (a pause past its
// session timeout) must not move the new owner's position.
func (p *paimonInput) fenced(ctx context.Context, next int64) bool {
	if p.cfg.fence == nil {
		return true
	}
	if err := p.cfg.fence(ctx, next); err != nil {
		p.log.Warnf("paimon input: consumer %s of %s not written at nextSnapshot %d: %v", p.cfg.Read.ConsumerID, p.cfg.FullName(), next, err)
		return false
	}
	return true
}
