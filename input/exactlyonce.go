package input

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/clock"
	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// Exactly-once: when the stream's output commits transactionally
// (exactlyonce.Lookup finds its committer), the input decides where each
// transaction ends, like a Flink checkpoint barrier: it stops cutting
// batches, waits until every batch it delivered was acknowledged (each is
// then in the open transaction), and asks the output to commit them with
// the read position they complete. Because the input waits at the barrier,
// the transaction holds exactly the rows before that position, whatever
// order processors and the output's max_in_flight gave them.
//
// After a restart (or a failed transaction) the input resumes from the
// position the output last committed — the plan of that snapshot read again,
// its splits and rows up to the position skipped — so no row is delivered
// twice and none is lost; the Paimon consumer file is written after each
// commit from the committed position, lagging it at most.

// permanentErr marks err as one retrying cannot cure.
func permanentErr(err error) error { return permanentError{err} }

// eoCommitTimeout bounds one commit: a commit must not be cut short by the
// input's stop (its outcome would be unknown), only by this.
const eoCommitTimeout = 30 * time.Second

// eoState is the exactly-once side of one input (one consumer, or one slot
// of a group).
type eoState struct {
	c   exactlyonce.Committer
	key exactlyonce.Key

	// needResume: the next Connect takes the key over and resumes from its
	// committed position; resume is that position, applied to the first
	// plan the source returns.
	needResume bool
	resume     *exactlyonce.Position

	mu sync.Mutex
	// delivered is the position after the last batch handed to the
	// pipeline; pending counts its rows not yet committed.
	delivered exactlyonce.Position
	pending   int64
	// broken is the first rejection since the last commit: the open
	// transaction lost rows and can only be aborted.
	broken     error
	lastCommit time.Time

	// keyed: the output keys its writes by the rows' positions
	// (exactlyonce.Keyed), so every message carries its own.
	keyed bool

	// rewinds counts rewinds since the last commit (reading goroutine).
	rewinds int

	// lost: another replica's producer took the key over (a group slot
	// that moved while this replica was paused); nothing more is written.
	lost bool

	// next is the consumer position the last commit justifies (0: none
	// yet); the committer goroutine reads it through nextSnapshot.
	next int64
}

// nextSnapshot is the consumer position the last commit justifies, 0 when
// none does yet.
func (eo *eoState) nextSnapshot() int64 {
	eo.mu.Lock()
	defer eo.mu.Unlock()
	return eo.next
}

// committed records a commit that justifies consumer position next.
func (eo *eoState) committed(next int64) {
	eo.mu.Lock()
	eo.next = next
	eo.mu.Unlock()
}

// eoConnect turns exactly-once on when the stream's output commits
// transactionally, and returns the configuration to open the source with:
// the input's own, or one that starts at the key's committed position.
func (p *paimonInput) eoConnect(ctx context.Context) (config, error) {
	if p.eo == nil {
		c := exactlyonce.Lookup(p.res)
		if c == nil {
			return p.cfg, nil
		}
		if p.cfg.Read.ConsumerID == "" {
			return p.cfg, &paimon.FieldError{Field: fieldConsumerID,
				Err: errors.New("the output commits exactly once, which needs the input's consumer_id: the committed position is kept per consumer")}
		}
		p.eo = &eoState{c: c, key: exactlyonce.Key{Table: p.cfg.FullName(), Consumer: p.cfg.Read.ConsumerID}, needResume: true}
		if k, ok := c.(exactlyonce.Keyed); ok && k.KeysByPosition() {
			p.eo.keyed = true
		}
		p.cur.consumer = p.cfg.Read.ConsumerID
	}
	eo := p.eo
	if !eo.needResume {
		return p.cfg, nil
	}
	if eo.lost {
		return p.cfg, service.ErrEndOfInput
	}
	if next := eo.nextSnapshot(); next > 0 && p.cfg.fence != nil && !p.fenced(ctx, next) {
		// A rewind in a slot this replica may no longer own: taking the
		// producer over again would fence the slot's new owner.
		return p.cfg, errors.New("exactly once: the group no longer confirms this replica owns the slot")
	}
	pos, ok, err := eo.c.Resume(ctx, eo.key)
	if err != nil {
		if errors.Is(err, exactlyonce.ErrConfig) {
			err = permanentErr(err)
		}
		return p.cfg, err
	}
	eo.needResume = false
	eo.resume = nil
	eo.mu.Lock()
	eo.broken, eo.pending, eo.lastCommit = nil, 0, time.Now()
	eo.mu.Unlock()
	cfg := p.cfg
	cfg.mirrorConsumer = true
	if !ok {
		p.log.Infof("paimon input on %s: exactly once: consumer %s has no committed position yet; starting by scan_mode %s", p.cfg.FullName(), eo.key.Consumer, cfg.Read.StartMode)
		return cfg, nil
	}
	// The committed position is primary; the consumer file only lags it.
	cfg.Read.IgnoreConsumerProgress = true
	cfg.Read.StartMode, cfg.Read.StartSnapshot = paimon.StartFromSnapshot, pos.Snapshot
	switch {
	case pos.Done:
		cfg.Read.StartSnapshot = pos.Snapshot + 1
	case pos.Full:
		cfg.Read.StartMode = paimon.StartFromSnapshotFull
		eo.resume = &pos
	default:
		eo.resume = &pos
	}
	if next, ok := pos.NextSnapshot(); ok {
		eo.committed(next)
	}
	eo.mu.Lock()
	eo.delivered = pos
	eo.mu.Unlock()
	p.log.Infof("paimon input on %s: exactly once: consumer %s resumes after its committed position, %s", p.cfg.FullName(), eo.key.Consumer, pos)
	return cfg, nil
}

// eoApplyResume moves the cursor of the first plan after a resume past the
// committed rows, after checking the plan is the one they were read from.
func (p *paimonInput) eoApplyResume(plan *snapshotPlan) error {
	eo := p.eo
	if eo == nil || eo.resume == nil {
		return nil
	}
	pos := *eo.resume
	eo.resume = nil
	if plan.SnapshotID != pos.Snapshot || plan.FirstPlan != pos.Full {
		if !pos.Full && plan.SnapshotID > pos.Snapshot && pos.Split == 0 && pos.Rows == 0 {
			return nil // nothing of that snapshot was committed, and it has nothing to read
		}
		return permanentErr(fmt.Errorf("exactly once: consumer %s committed %s, but the read resumed with the plan of snapshot %d (full read %t): the snapshot expired or the read changed", eo.key.Consumer, pos, plan.SnapshotID, plan.FirstPlan))
	}
	if pos.Split > len(plan.Splits) || (pos.Split == len(plan.Splits) && pos.Rows > 0) {
		return permanentErr(fmt.Errorf("exactly once: consumer %s committed %s, but the plan has %d splits: the read changed (filter, columns, buckets or shard?)", eo.key.Consumer, pos, len(plan.Splits)))
	}
	if pos.Split < len(plan.Splits) {
		if files := plan.Splits[pos.Split].Files(); pos.File != "" && (len(files) == 0 || files[0] != pos.File) {
			return permanentErr(fmt.Errorf("exactly once: consumer %s committed %s in file %s, but that split of the plan now starts with another file: the read changed (filter, columns, buckets or shard?)", eo.key.Consumer, pos, pos.File))
		}
	}
	p.cur.splitIdx, p.cur.splitDone = pos.Split, pos.Rows
	return nil
}

// eoPosition is the position after everything the cursor cut so far.
func (p *paimonInput) eoPosition() exactlyonce.Position {
	pos := exactlyonce.Position{Snapshot: p.cur.plan.SnapshotID, Full: p.cur.plan.FirstPlan, Split: p.cur.splitIdx, Rows: p.cur.splitDone}
	if p.cur.planDone() {
		return exactlyonce.Position{Snapshot: pos.Snapshot, Full: pos.Full, Done: true}
	}
	if files := p.cur.split().Files(); len(files) > 0 {
		pos.File = files[0]
	}
	return pos
}

// delivered records that a batch ending at pos was handed to the pipeline.
func (eo *eoState) deliveredTo(pos exactlyonce.Position, rows int) {
	eo.mu.Lock()
	eo.delivered = pos
	eo.pending += int64(rows)
	eo.mu.Unlock()
}

// reject records a batch the pipeline rejected: its rows are not in the
// transaction, which must therefore be aborted and read again.
func (eo *eoState) reject(err error) {
	eo.mu.Lock()
	if eo.broken == nil {
		eo.broken = err
	}
	eo.mu.Unlock()
}

// eoStep runs before the read cuts a batch: a broken transaction is rolled
// back (the input reconnects at the committed position), and a transaction
// open for commit_period is committed. planEnd commits the end of a plan.
func (p *paimonInput) eoStep(ctx context.Context, planEnd bool) error {
	eo := p.eo
	eo.mu.Lock()
	broken := eo.broken
	due := eo.pending > 0 && time.Since(eo.lastCommit) >= p.cfg.CommitPeriod
	if planEnd {
		eo.delivered = p.eoPosition()
		due = eo.pending > 0 || time.Since(eo.lastCommit) >= p.cfg.CommitPeriod
	}
	eo.mu.Unlock()
	if broken != nil {
		if errors.Is(broken, exactlyonce.ErrConfig) {
			// Reading again would meet the same refusal forever.
			return permanentErr(fmt.Errorf("exactly once: the output refused rows of consumer %s: %w", eo.key.Consumer, broken))
		}
		return p.eoRewind(ctx, broken)
	}
	if !due {
		return nil
	}
	return p.eoCommit(ctx)
}

// eoCommit is the barrier: wait until every delivered batch was
// acknowledged, then commit the transaction with the delivered position.
func (p *paimonInput) eoCommit(ctx context.Context) error {
	eo := p.eo
	if tr := p.currentTracker(); tr != nil {
		if err := tr.Wait(ctx, 1); err != nil {
			return err
		}
	}
	eo.mu.Lock()
	pos, broken := eo.delivered, eo.broken
	eo.mu.Unlock()
	if broken != nil {
		return p.eoRewind(ctx, broken)
	}
	if p.cfg.fence != nil {
		if next, ok := pos.NextSnapshot(); ok && !p.fenced(ctx, next) {
			return p.eoRewind(ctx, errors.New("the group moved the slot"))
		}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eoCommitTimeout)
	start := time.Now()
	err := eo.c.Commit(cctx, eo.key, pos)
	cancel()
	if err != nil {
		if errors.Is(err, exactlyonce.ErrFenced) {
			return p.eoFenced(ctx, err)
		}
		return p.eoRewind(ctx, err)
	}
	p.m.txnCommit.Timing(time.Since(start).Nanoseconds())
	eo.mu.Lock()
	eo.pending, eo.lastCommit = 0, time.Now()
	eo.mu.Unlock()
	eo.rewinds = 0
	if next, ok := pos.NextSnapshot(); ok {
		eo.committed(next)
	}
	return nil
}

// eoRewind discards the open transaction and what the input read since the
// last commit, and makes the input reconnect: Connect resumes from the
// committed position. Rows of the aborted transaction are read again.
func (p *paimonInput) eoRewind(ctx context.Context, cause error) error {
	eo := p.eo
	if tr := p.currentTracker(); tr != nil {
		// Rejected batches count as acknowledged: this waits for the
		// outcome of everything delivered, so nothing of the old read is
		// still on its way into the transaction when it is aborted.
		if err := tr.Wait(ctx, 1); err != nil {
			return err
		}
	}
	p.log.Warnf("paimon input on %s: exactly once: the open transaction of consumer %s is aborted and read again from the last committed position: %v", p.cfg.FullName(), eo.key.Consumer, cause)
	// The split's reader goes first: it holds the replica's split
	// semaphore in a group, which the back-off must not keep.
	p.cur.release()
	// Rewinds without a commit between them back off, so an output that
	// keeps failing is not hammered by reads of the same rows.
	if d := rewindBackoff(eo.rewinds); d > 0 {
		if err := clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
	eo.rewinds++
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eoCommitTimeout)
	if err := eo.c.Abort(actx, eo.key); err != nil {
		p.log.Debugf("paimon input on %s: exactly once: abort: %v", p.cfg.FullName(), err)
	}
	cancel()
	// Whatever Abort answered, Resume takes the producer over again and
	// reads the position Kafka holds, which settles a commit whose outcome
	// was unknown.
	p.m.txnRewinds.Incr(1)
	p.cur.release()
	p.cur.setPlan(nil)
	p.cur.splitDone = 0
	p.ended = false
	p.mu.Lock()
	src := p.src
	p.src, p.tracker = nil, nil
	p.mu.Unlock()
	if src != nil {
		_ = src.Close()
	}
	eo.needResume = true
	return errRewound
}

// eoFenced handles a newer owner of the key's transactional id. A group's
// slot reader stops reading quietly: the slot is someone else's, and the
// group takes it away shortly. Anywhere else two pipelines run with one
// consumer id, and the input stops on it rather than fight.
func (p *paimonInput) eoFenced(ctx context.Context, err error) error {
	err = fmt.Errorf("exactly once: consumer %s of %s: %w", p.eo.key.Consumer, p.cfg.FullName(), err)
	if p.cfg.fence == nil {
		return permanentErr(fmt.Errorf("%w (another pipeline with this consumer_id writes to the cluster, or this one stalled past transaction_timeout)", err))
	}
	if next := p.eo.nextSnapshot(); next > 0 && p.cfg.fence(ctx, next) == nil {
		// Still the slot's owner: the broker aborted a transaction that
		// outlived transaction_timeout. Read it again.
		return p.eoRewind(ctx, err)
	}
	p.log.Warnf("paimon input: %v; the slot's read stops here", err)
	p.eo.lost = true
	return service.ErrEndOfInput
}

// rewindBackoff is the pause before the n+1st rewind since a commit: none
// for the first, then doubling from 100 ms to 30 s.
func rewindBackoff(n int) time.Duration {
	if n == 0 {
		return 0
	}
	return min(30*time.Second, 100*time.Millisecond<<min(n-1, 9))
}

// errRewound makes ReadBatch report the input disconnected, so Benthos calls
// Connect, which resumes.
var errRewound = fmt.Errorf("exactly once: reconnecting at the committed position: %w", service.ErrNotConnected)

// eoFinal commits what was delivered and acknowledged when the input closes
// (a graceful stop, a revoked slot), and gives the key up.
func (p *paimonInput) eoFinal(ctx context.Context) {
	eo := p.eo
	if eo == nil || eo.needResume || eo.lost {
		return
	}
	defer func() { _ = eo.c.Release(ctx, eo.key) }()
	cctx, cancel := context.WithTimeout(ctx, finalCommitTimeout)
	defer cancel()
	if tr := p.currentTracker(); tr != nil {
		if err := tr.Wait(cctx, 1); err != nil {
			p.log.Warnf("paimon input on %s: exactly once: batches still unacknowledged at close, the open transaction is not committed: %v", p.cfg.FullName(), err)
			return
		}
	}
	eo.mu.Lock()
	pos, pending, broken := eo.delivered, eo.pending, eo.broken
	eo.mu.Unlock()
	if broken != nil || (pending == 0 && pos.Snapshot == 0) {
		return
	}
	if p.cfg.fence != nil {
		if next, ok := pos.NextSnapshot(); ok && !p.fenced(cctx, next) {
			return
		}
	}
	if err := eo.c.Commit(cctx, eo.key, pos); err != nil {
		p.log.Warnf("paimon input on %s: exactly once: final commit of consumer %s: %v", p.cfg.FullName(), eo.key.Consumer, err)
		return
	}
	if next, ok := pos.NextSnapshot(); ok {
		eo.committed(next)
	}
}
