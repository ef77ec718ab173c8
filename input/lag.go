package input

import (
	"context"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// Lag: how far the input's acknowledged position is behind the table, and
// how close it is to the snapshot expiry that would cut it off. Four gauges:
//
//   - paimon_lag_snapshots: latest snapshot − (position − 1), 0 when caught up;
//   - paimon_lag_seconds: now − commit time of the snapshot at the position
//     (the oldest one not yet fully delivered), 0 when caught up; it grows
//     while the pipeline is blocked;
//   - paimon_rows_pending: the record counts the snapshots from the position
//     to the latest declare (changelogRecordCount when the stream reads a
//     changelog, else deltaRecordCount of the APPEND commits), over at most
//     lagWalkMax snapshots;
//   - paimon_expiry_headroom_snapshots: position − earliest retained
//     snapshot: how many more snapshots may expire before the position does
//     (0: the next expiry removes it; below 0: it has expired).
//
// The position is the tracker's committable snapshot — what the consumer
// file would be written with — so a row read but not yet acknowledged still
// counts as lag. Before the first plan there is no position and the gauges
// are not set.
//
// A monitor goroutine computes them once per poll interval, apart from the
// read (which may be blocked by back-pressure exactly when lag matters).
// An idle round costs one storage request (snapshotBounds); snapshot files
// are immutable, so each is read once and cached until the position passes
// it.

// lagWalkMax bounds the snapshots whose record counts one round sums (and
// the cache): a position further behind reports the rows of the first
// lagWalkMax snapshots after it, a lower bound.
const lagWalkMax = 1000

// lagEveryMin is the shortest interval between two rounds, whatever the
// poll interval.
const lagEveryMin = 100 * time.Millisecond

// snapshotMeta is what the lag needs of one snapshot.
type snapshotMeta struct {
	Time time.Time // commit time
	// Records is the row count the stream reads from the snapshot.
	Records int64
}

// lagSource is implemented by sources that can see the table's snapshots.
type lagSource interface {
	// SnapshotBounds returns the earliest retained and the latest snapshot
	// ids; ok is false when the table has none.
	SnapshotBounds(ctx context.Context) (earliest, latest int64, ok bool, err error)
	// SnapshotMeta reads one snapshot; an expired one is an error that
	// fileio.IsNotExist recognises.
	SnapshotMeta(ctx context.Context, id int64) (snapshotMeta, error)
}

// lagValues is one round's result.
type lagValues struct {
	Snapshots, Seconds, RowsPending, Headroom int64
}

// worse merges o into v, keeping the worst of each value (the group's
// report: the slowest slot).
func (v lagValues) worse(o lagValues) lagValues {
	return lagValues{
		Snapshots:   max(v.Snapshots, o.Snapshots),
		Seconds:     max(v.Seconds, o.Seconds),
		RowsPending: max(v.RowsPending, o.RowsPending),
		Headroom:    min(v.Headroom, o.Headroom),
	}
}

// lagMonitor computes lagValues, caching snapshot files by id.
type lagMonitor struct {
	src   lagSource
	now   func() time.Time
	cache map[int64]snapshotMeta
}

func newLagMonitor(src lagSource) *lagMonitor {
	return &lagMonitor{src: src, now: time.Now, cache: map[int64]snapshotMeta{}}
}

// compute returns the lag of position pos (the next snapshot to deliver).
func (m *lagMonitor) compute(ctx context.Context, pos int64) (lagValues, error) {
	earliest, latest, ok, err := m.src.SnapshotBounds(ctx)
	if err != nil || !ok {
		return lagValues{}, err
	}
	v := lagValues{Headroom: pos - earliest}
	for id := range m.cache {
		if id < pos {
			delete(m.cache, id)
		}
	}
	if pos > latest {
		return v, nil
	}
	v.Snapshots = latest - pos + 1
	from := max(pos, earliest)
	to := min(latest, from+lagWalkMax-1)
	oldest := time.Time{}
	for id := from; id <= to; id++ {
		s, ok := m.cache[id]
		if !ok {
			s, err = m.src.SnapshotMeta(ctx, id)
			if fileio.IsNotExist(err) {
				continue // expired since the bounds were read
			}
			if err != nil {
				return lagValues{}, err
			}
			m.cache[id] = s
		}
		if oldest.IsZero() {
			oldest = s.Time
		}
		v.RowsPending += max(0, s.Records)
	}
	if !oldest.IsZero() {
		v.Seconds = max(0, int64(m.now().Sub(oldest)/time.Second))
	}
	return v, nil
}

// position is the next snapshot to deliver: the tracker's committable one;
// false before the first plan.
func (p *paimonInput) position() (int64, bool) {
	tr := p.currentTracker()
	if tr == nil {
		return 0, false
	}
	return tr.Committable(), true
}

// lagLoop runs the lag monitor until the input stops.
func (p *paimonInput) lagLoop(src lagSource) {
	defer p.committer.Done()
	every := max(p.cfg.Read.PollInterval, lagEveryMin)
	m := newLagMonitor(src)
	t := time.NewTicker(every)
	defer t.Stop()
	failed := false
	for {
		select {
		case <-p.stopCtx.Done():
			return
		case <-t.C:
		}
		pos, ok := p.position()
		if !ok {
			continue
		}
		ctx, cancel := context.WithTimeout(p.stopCtx, max(every, 10*time.Second))
		v, err := m.compute(ctx, pos)
		cancel()
		if err != nil {
			if !failed && p.stopCtx.Err() == nil {
				p.log.Warnf("paimon input on %s: lag metrics: %v", p.cfg.FullName(), err)
			}
			failed = true
			continue
		}
		failed = false
		p.reportLag(v)
	}
}

// reportLag sets the lag gauges, or hands the values to the group, which
// reports its slots' worst.
func (p *paimonInput) reportLag(v lagValues) {
	if p.lagReport != nil {
		p.lagReport(v)
		return
	}
	p.m.setLag(v)
}

func (m inputMetrics) setLag(v lagValues) {
	m.lagSnapshots.Set(v.Snapshots)
	m.lagSeconds.Set(v.Seconds)
	m.rowsPending.Set(v.RowsPending)
	m.headroom.Set(v.Headroom)
}

// snapshotBounds finds the earliest and latest snapshot ids cheaply for
// rounds that come every poll interval. Finding the latest id from its
// hint costs three requests and the earliest two; but while the table is
// idle the latest is known once snapshot latest+1 does not exist (one
// request), and the earliest moves only by expiry, which writers run when
// they commit: it is read again when the latest moved, and at least every
// boundsRefresh (an expiry run on its own). Not safe for concurrent use.
type snapshotBounds struct {
	latest   func(context.Context) (int64, bool, error)
	exists   func(context.Context, int64) (bool, error)
	earliest func(context.Context) (int64, bool, error)
	now      func() time.Time

	known          bool
	first, last    int64
	earliestReadAt time.Time
}

// boundsRefresh is how long an earliest snapshot id is trusted while the
// latest does not move.
const boundsRefresh = time.Minute

func (b *snapshotBounds) get(ctx context.Context) (earliest, latest int64, ok bool, err error) {
	if b.known {
		next, err := b.exists(ctx, b.last+1)
		if err != nil {
			return 0, 0, false, err
		}
		if !next && b.now().Sub(b.earliestReadAt) < boundsRefresh {
			return b.first, b.last, true, nil
		}
	}
	b.known = false
	if latest, ok, err = b.latest(ctx); err != nil || !ok {
		return 0, 0, ok, err
	}
	if earliest, ok, err = b.earliest(ctx); err != nil || !ok {
		return 0, 0, ok, err
	}
	b.known, b.first, b.last, b.earliestReadAt = true, earliest, latest, b.now()
	return earliest, latest, true, nil
}
