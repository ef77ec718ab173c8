// Package stream is the state machine of a streaming read: where it starts
// (Java's scan modes, a consumer's position), which snapshot comes next and
// how it is planned (full, delta, changelog, overwrite), the end bounds, and
// what happens when the next snapshot was expired or the table recreated.
// Planning a snapshot is internal/scan's; the facade wraps the plans.
package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/clock"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Table is what a scan needs of the table it follows; the facade's Table
// implements it with the read's filter, buckets and projection bound.
type Table interface {
	Name() string
	Snapshots() *snapshot.Manager
	History() *snapshot.History
	// ReadSchema loads schema id for a stream that moved on to it: refused
	// when the reader cannot read it or the projection names a column it
	// lacks.
	ReadSchema(ctx context.Context, id int64) (*schema.TableSchema, error)
	// TimeTravelSchema is the schema a read of exactly snap uses (the one
	// it was written under), checked the same way.
	TimeTravelSchema(ctx context.Context, snap *snapshot.Snapshot) (*schema.TableSchema, error)
	// Tag is the snapshot tag name holds; a missing tag's error names the
	// existing ones.
	Tag(ctx context.Context, name string) (*snapshot.Snapshot, error)
	// Planner plans snapshots in sch with the read's filter and buckets;
	// levels, when set, keeps only the levels it accepts. It fails when the
	// filter cannot be resolved in sch.
	Planner(sch *schema.TableSchema, levels func(int32) bool) (*scan.Planner, error)
}

// Config is a validated description of the scan (the facade validates).
type Config struct {
	Mode          StartMode
	StartSnapshot int64
	StartTime     time.Time
	StartTag      string // of StartFromTag
	EndSnapshot   int64  // 0: unbounded
	EndWatermark  *int64 // nil: unbounded
	OnExpired     ExpiredPolicy
	// ReadOverwrite, when set, overrides streaming-read-overwrite.
	ReadOverwrite  *bool
	IgnoreProgress bool
	EmitEmpty      bool
	Poll           time.Duration
	// ConsumerID and Consumers are set together, or neither.
	ConsumerID string
	Consumers  *consumer.Manager
}

// Plan is one step of the stream.
type Plan struct {
	Snapshot *snapshot.Snapshot
	// Schema is the read schema of Scan's splits.
	Schema *schema.TableSchema
	// Scan is nil for a snapshot passed without reading (Skipped).
	Scan    *scan.Plan
	Full    bool
	Skipped bool
	// Next is the scan position after this plan.
	Next int64
	// Expired is set on the first plan after the position had expired and
	// the policy moved it on.
	Expired *ExpiredSkip
}

// Scan follows a table's snapshots. Next is not safe for concurrent use;
// Commit and Touch may run concurrently with it.
type Scan struct {
	// wrote is the consumer position this scan last wrote or resumed
	// from; commits (another goroutine) check the file still holds it.
	wrote     atomic.Int64
	expired   *ExpiredSkip // reported on the next plan returned
	cfg       Config
	t         Table
	schema    *schema.TableSchema
	next      int64 // 0 until the start position is known
	started   bool
	misses    int
	overwrite bool
	producer  string
	ended     bool
	// fromConsumer: the start position is the consumer's; manual: the
	// caller's (SetNextSnapshotID); passed: a snapshot was planned or
	// passed since the start.
	fromConsumer, manual, passed bool
	// fullPhaseEnd: the start snapshot is already past the end watermark,
	// so the stream ends after the start (Java's isFullPhaseEnd).
	fullPhaseEnd bool
}

// rangeCheckEvery is how many consecutive misses of the next snapshot pass
// between checks for an expired or impossible position (Java: 16). The
// first miss is checked too, so a stale position fails fast.
const rangeCheckEvery = 16

// New returns the scan of cfg over t, whose current schema is sch. A
// consumer's stale temporary files are removed here.
func New(ctx context.Context, t Table, sch *schema.TableSchema, cfg Config) (*Scan, error) {
	s := &Scan{cfg: cfg, t: t, schema: sch, producer: sch.ChangelogProducer()}
	// Java's supportStreamingReadOverwrite: each kind of table has its own
	// option.
	s.overwrite = sch.StreamingReadOverwrite()
	if len(sch.PrimaryKeys) == 0 {
		s.overwrite = sch.StreamingReadAppendOverwrite()
	}
	if cfg.ReadOverwrite != nil {
		s.overwrite = *cfg.ReadOverwrite
	}
	if cfg.Consumers != nil {
		// A crash between writing and renaming a consumer file leaves our
		// temp file behind; nothing else ever removes it. Any from before
		// this start is a dead writer's: this scan is the id's only writer
		// (Commit refuses to share it), and a misconfigured second one whose
		// temp file went only sees its commit fail and retry.
		if _, err := cfg.Consumers.RemoveStaleTemp(ctx, cfg.ConsumerID, time.Now().Add(-time.Second)); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name(), err)
		}
	}
	return s, nil
}

// NextSnapshotID returns the id of the next snapshot the scan will read (0
// before the start position is resolved).
func (s *Scan) NextSnapshotID() int64 { return s.next }

// SetNextSnapshotID moves the scan: the next plan reads snapshot id's
// changes (no full plan).
func (s *Scan) SetNextSnapshotID(id int64) {
	s.setNext(id)
	s.manual, s.fromConsumer = true, false
}

// setNext positions the scan at id's changes.
func (s *Scan) setNext(id int64) {
	s.next = id
	s.started = true
	s.misses = 0
	s.ended = false
}

// ConsumerID returns the consumer id ("" when none).
func (s *Scan) ConsumerID() string { return s.cfg.ConsumerID }

// Commit writes the consumer file with nextSnapshot, after checking that
// the file still holds what this scan last wrote or resumed from
// (otherwise another writer uses the id: ErrConsumerConflict, nothing
// written). A file that vanished (a writer's consumer expiry) is written
// again.
func (s *Scan) Commit(ctx context.Context, nextSnapshot int64) error {
	if s.cfg.Consumers == nil {
		return errors.New("commit consumer: the scan has no consumer id")
	}
	if err := s.checkOwnConsumer(ctx); err != nil {
		return err
	}
	if err := s.cfg.Consumers.Reset(ctx, s.cfg.ConsumerID, consumer.Consumer{NextSnapshot: nextSnapshot}); err != nil {
		return err
	}
	s.wrote.Store(nextSnapshot)
	return nil
}

// checkOwnConsumer compares the consumer file with what this scan last
// wrote or resumed from.
func (s *Scan) checkOwnConsumer(ctx context.Context) error {
	want := s.wrote.Load()
	if want == 0 {
		return nil // nothing of ours yet
	}
	c, ok, err := s.cfg.Consumers.Consumer(ctx, s.cfg.ConsumerID)
	if err != nil || !ok {
		return err
	}
	if c.NextSnapshot != want {
		return fmt.Errorf("commit consumer %s: the file holds nextSnapshot %d, this reader last wrote %d (a second reader with consumer_id %q, or a reset while running): %w",
			s.cfg.Consumers.Path(s.cfg.ConsumerID), c.NextSnapshot, want, s.cfg.ConsumerID, ErrConsumerConflict)
	}
	return nil
}

// Touch rewrites the consumer file with the position it already holds, so
// a writer's consumer.expiration-time does not expire a live reader with
// nothing new to commit; ok is false when there is no file yet. It never
// moves the position.
func (s *Scan) Touch(ctx context.Context) (next int64, ok bool, err error) {
	if s.cfg.Consumers == nil {
		return 0, false, errors.New("touch consumer: the scan has no consumer id")
	}
	if err := s.checkOwnConsumer(ctx); err != nil {
		return 0, false, err
	}
	c, ok, err := s.cfg.Consumers.Consumer(ctx, s.cfg.ConsumerID)
	if err != nil || !ok {
		return 0, ok, err
	}
	if err := s.cfg.Consumers.Reset(ctx, s.cfg.ConsumerID, c); err != nil {
		return 0, false, err
	}
	s.wrote.Store(c.NextSnapshot)
	return c.NextSnapshot, true, nil
}

// Next returns the next plan, blocking (polling) until there is one or ctx
// is done. After the end bound it returns io.EOF.
func (s *Scan) Next(ctx context.Context) (*Plan, error) {
	p, err := s.nextPlan(ctx)
	if p != nil && s.expired != nil {
		p.Expired, s.expired = s.expired, nil
	}
	return p, err
}

func (s *Scan) nextPlan(ctx context.Context) (*Plan, error) {
	if s.ended {
		return nil, io.EOF
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !s.started {
			p, err := s.start(ctx)
			if err != nil {
				return nil, err
			}
			if s.started && !s.fullPhaseEnd {
				if err := s.checkStartWatermark(ctx); err != nil {
					return nil, err
				}
			}
			if p != nil {
				return p, nil
			}
			if !s.started {
				if err := s.sleep(ctx); err != nil {
					return nil, err
				}
			}
			continue
		}
		if s.fullPhaseEnd || (s.cfg.EndSnapshot > 0 && s.next > s.cfg.EndSnapshot) {
			s.ended = true
			if !s.passed && !s.fullPhaseEnd {
				// Ending before the first snapshot is read: say why.
				who := "scan mode " + s.cfg.Mode.String()
				if s.manual {
					who = "the position set by SetNextSnapshotID"
				}
				if s.fromConsumer {
					who = s.position(fmt.Sprintf("consumer %q", s.cfg.ConsumerID))
				}
				return nil, &EndPassed{Table: s.t.Name(), Who: who, Next: s.next, End: s.cfg.EndSnapshot}
			}
			return nil, io.EOF
		}
		snap, err := s.t.History().Snapshot(ctx, s.next)
		if err != nil {
			if !fileio.IsNotExist(err) {
				return nil, s.wrap(err)
			}
			if p, err := s.onMissing(ctx); p != nil || err != nil {
				return p, err
			}
			if err := s.sleep(ctx); err != nil {
				return nil, err
			}
			continue
		}
		s.misses = 0
		if s.cfg.EndWatermark != nil && snap.Watermark != nil && *snap.Watermark > *s.cfg.EndWatermark {
			s.ended = true
			return nil, io.EOF
		}
		p, err := s.followUp(ctx, snap)
		if err != nil {
			return nil, err
		}
		s.passed = true
		s.next = snap.ID + 1
		p.Next = s.next
		if p.Scan != nil && len(p.Scan.Splits) > 0 || s.cfg.EmitEmpty {
			return p, nil
		}
	}
}

func (s *Scan) wrap(err error) error { return fmt.Errorf("table %s: %w", s.t.Name(), err) }

// position names where the scan's position came from: the consumer file
// when there is one (the file an operator resets), else the scan.
func (s *Scan) position(who string) string {
	if s.cfg.Consumers != nil {
		return who + " (" + s.cfg.Consumers.Path(s.cfg.ConsumerID) + ")"
	}
	return who
}

// checkStartWatermark applies the end watermark to the start position: when
// the snapshot before the first one to follow is already past the bound,
// nothing after the start is read.
func (s *Scan) checkStartWatermark(ctx context.Context) error {
	if s.cfg.EndWatermark == nil || s.next <= 1 {
		return nil
	}
	snap, err := s.t.History().Snapshot(ctx, s.next-1)
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil
		}
		return s.wrap(err)
	}
	if snap.Watermark != nil && *snap.Watermark > *s.cfg.EndWatermark {
		s.fullPhaseEnd = true
	}
	return nil
}

func (s *Scan) sleep(ctx context.Context) error { return clock.Sleep(ctx, s.cfg.Poll) }

// start resolves the start position; it returns the first full plan when
// the mode has one, nil while the table has no snapshot yet.
func (s *Scan) start(ctx context.Context) (*Plan, error) {
	sm, history := s.t.Snapshots(), s.t.History()
	var tag *snapshot.Snapshot
	if s.cfg.Mode == StartFromTag {
		// A read of the tag ends after it, also when a consumer's position
		// wins: it is the tag's snapshot, not the table's latest.
		var err error
		if tag, err = s.t.Tag(ctx, s.cfg.StartTag); err != nil {
			return nil, err
		}
		s.cfg.EndSnapshot = tag.ID
	}
	if s.cfg.Consumers != nil && !s.cfg.IgnoreProgress {
		c, ok, err := s.cfg.Consumers.Consumer(ctx, s.cfg.ConsumerID)
		if err != nil {
			return nil, s.wrap(err)
		}
		if ok {
			s.wrote.CompareAndSwap(0, c.NextSnapshot)
			s.setNext(c.NextSnapshot)
			s.fromConsumer = true
			return nil, nil
		}
	}
	if tag != nil {
		// The tag holds its snapshot: it is read even when expired.
		return s.fullPlanOf(ctx, tag)
	}
	latest, ok, err := sm.LatestID(ctx)
	if err != nil {
		return nil, s.wrap(err)
	}
	if !ok {
		if s.cfg.Mode == StartLatest {
			// Java: a table empty at start is read from its first snapshot.
			s.setNext(1)
		}
		return nil, nil // wait for the first snapshot
	}
	earliest, _, err := sm.EarliestID(ctx)
	if err != nil {
		return nil, s.wrap(err)
	}
	// One rule for a start position past the latest snapshot: from-snapshot
	// may wait for the next snapshot, nothing later; from-snapshot-full
	// needs one that exists.
	if s.cfg.Mode == StartFromSnapshot && s.cfg.StartSnapshot > latest+1 ||
		s.cfg.Mode == StartFromSnapshotFull && s.cfg.StartSnapshot > latest {
		return nil, &StartError{Table: s.t.Name(), Mode: s.cfg.Mode, Start: s.cfg.StartSnapshot, Earliest: earliest, Latest: latest}
	}
	switch s.cfg.Mode {
	case StartLatest:
		s.setNext(latest + 1)
		return nil, nil
	case StartFromSnapshot:
		// Changes can start at a long-lived changelog whose snapshot expired.
		from, _, err := history.EarliestID(ctx)
		if err != nil {
			return nil, s.wrap(err)
		}
		s.setNext(max(s.cfg.StartSnapshot, min(from, earliest)))
		return nil, nil
	case StartFromTimestamp:
		snap, found, err := history.EarlierThanTime(ctx, s.cfg.StartTime.UnixMilli())
		if err != nil {
			return nil, s.wrap(err)
		}
		if !found {
			from, _, err := history.EarliestID(ctx)
			if err != nil {
				return nil, s.wrap(err)
			}
			s.setNext(min(from, earliest))
		} else {
			s.setNext(snap.ID + 1)
		}
		return nil, nil
	case StartFromSnapshotFull:
		return s.fullPlan(ctx, max(s.cfg.StartSnapshot, earliest))
	case StartCompactedFull:
		id, err := CompactedFullID(ctx, sm, s.schema, earliest, latest)
		if err != nil {
			return nil, s.wrap(err)
		}
		return s.fullPlan(ctx, id)
	default:
		return s.fullPlan(ctx, latest)
	}
}

// fullPlan plans snapshot id in full and positions the scan after it.
func (s *Scan) fullPlan(ctx context.Context, id int64) (*Plan, error) {
	snap, err := s.t.Snapshots().Snapshot(ctx, id)
	if err != nil {
		return nil, s.wrap(err)
	}
	return s.fullPlanOf(ctx, snap)
}

// fullPlanOf plans snap in full and positions the scan after it.
func (s *Scan) fullPlanOf(ctx context.Context, snap *snapshot.Snapshot) (*Plan, error) {
	id := snap.ID
	sch, err := s.schemaFor(ctx, snap)
	if err != nil {
		return nil, err
	}
	if s.cfg.EndSnapshot == id {
		// The whole read is snapshot id in full: a batch read of that
		// snapshot, which Java's time travel does in the snapshot's own
		// schema. A stream that goes on past it keeps the scan's schema.
		if sch, err = s.t.TimeTravelSchema(ctx, snap); err != nil {
			return nil, err
		}
	}
	levels, err := firstPlanLevels(sch)
	if err != nil {
		return nil, s.wrap(err)
	}
	pl, err := s.t.Planner(sch, levels)
	if err != nil {
		return nil, s.wrap(err)
	}
	pl.ReadPostpone = readsPostpone(sch)
	p, err := pl.PlanSnapshot(ctx, snap, scan.Full)
	if err != nil {
		return nil, s.wrap(err)
	}
	s.setNext(id + 1)
	s.passed = true
	return &Plan{Snapshot: snap, Schema: sch, Scan: p, Full: true, Next: s.next}, nil
}

// schemaFor returns the read schema for a snapshot: the newest schema the
// scan knows, refreshed when the snapshot was written under a newer one.
func (s *Scan) schemaFor(ctx context.Context, snap *snapshot.Snapshot) (*schema.TableSchema, error) {
	if snap.SchemaID > s.schema.ID {
		ns, err := s.t.ReadSchema(ctx, snap.SchemaID)
		if err != nil {
			return nil, err
		}
		s.schema = ns
	}
	return s.schema, nil
}

// readsPostpone: Java's stream scans read the postpone bucket, except for
// tables with a changelog producer (DataTableStreamScan).
func readsPostpone(sch *schema.TableSchema) bool {
	p := sch.ChangelogProducer()
	return p == "" || p == "none"
}

// followUp plans one later snapshot's changes.
func (s *Scan) followUp(ctx context.Context, snap *snapshot.Snapshot) (*Plan, error) {
	sch, err := s.schemaFor(ctx, snap)
	if err != nil {
		return nil, err
	}
	pl, err := s.t.Planner(sch, nil)
	if err != nil {
		return nil, s.wrap(err)
	}
	pl.ReadPostpone = readsPostpone(sch)
	out := &Plan{Snapshot: snap, Schema: sch, Next: s.next}
	changelog := len(sch.PrimaryKeys) > 0 && s.producer != "" && s.producer != "none"
	switch {
	case changelog && snap.HasChangelog():
		// input/lookup/full-compaction: the commit's changelog files, whatever
		// its kind (lookup and full-compaction produce them in COMPACT commits).
		out.Scan, err = pl.PlanSnapshot(ctx, snap, scan.Changelog)
	case changelog:
		out.Skipped = true
	case snap.CommitKind == snapshot.CommitAppend:
		out.Scan, err = pl.PlanSnapshot(ctx, snap, scan.Delta)
	case snap.CommitKind == snapshot.CommitOverwrite && s.overwrite && len(sch.PrimaryKeys) > 0:
		out.Scan, err = pl.PlanOverwriteChanges(ctx, snap)
	case snap.CommitKind == snapshot.CommitOverwrite && s.overwrite:
		// An append table's overwrite is read as its delta, the files it
		// added (Java's getOverwriteChangesPlan for append tables): rows
		// of an append table are never retracted.
		out.Scan, err = pl.PlanSnapshot(ctx, snap, scan.Delta)
	default:
		out.Skipped = true
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	return out, nil
}

// onMissing handles a next snapshot that does not exist: normally it is not
// written yet; periodically the position is checked against the earliest
// and latest snapshots to detect expiry and table recreation.
func (s *Scan) onMissing(ctx context.Context) (*Plan, error) {
	s.misses++
	if (s.misses-1)%rangeCheckEvery != 0 {
		return nil, nil
	}
	sm, history := s.t.Snapshots(), s.t.History()
	// The cheap answer first: when snapshot next-1 exists the position is
	// neither expired (expiry removes the oldest first) nor beyond the end,
	// so the idle poll costs one more request, not the five of a full check.
	if s.next > 1 {
		ok, err := sm.Exists(ctx, s.next-1)
		if err != nil {
			return nil, s.wrap(err)
		}
		if ok {
			return nil, nil
		}
	}
	// Expiry is decided against the earliest position a stream can still
	// read: with long-lived changelogs that is the earliest changelog, not
	// the earliest snapshot.
	earliest, ok, err := history.EarliestID(ctx)
	if err != nil {
		return nil, s.wrap(err)
	}
	latest, _, err := sm.LatestID(ctx)
	if err != nil {
		return nil, s.wrap(err)
	}
	who := "the scan"
	if s.cfg.ConsumerID != "" {
		who = fmt.Sprintf("consumer %q", s.cfg.ConsumerID)
	}
	name := s.t.Name()
	switch {
	case !ok && s.next > 1:
		return nil, fmt.Errorf("table %s: %s: next snapshot %d but the table has no snapshot (recreated?): %w", name, s.position(who), s.next, ErrRecreated)
	case !ok:
		return nil, nil
	case s.next > latest+1:
		return nil, fmt.Errorf("table %s: %s: next snapshot %d but the latest is %d (table recreated?): %w", name, s.position(who), s.next, latest, ErrRecreated)
	case s.next >= earliest:
		return nil, nil // not written yet
	}
	// Expired.
	switch s.cfg.OnExpired {
	case ExpiredEarliest:
		s.expired = &ExpiredSkip{Needed: s.next, Earliest: earliest, Latest: latest, Policy: ExpiredEarliest}
		s.setNext(earliest)
		return nil, nil
	case ExpiredLatestFull:
		s.expired = &ExpiredSkip{Needed: s.next, Earliest: earliest, Latest: latest, Policy: ExpiredLatestFull}
		return s.fullPlan(ctx, latest)
	}
	what := "snapshot"
	if history.Changelogs() != nil {
		what = "snapshot or long-lived changelog"
	}
	return nil, fmt.Errorf("table %s: %s needs snapshot %d, but the earliest %s is %d: %w", name, who, s.next, what, earliest, ErrExpired)
}

// CompactedFullID is the snapshot a compacted-full read (stream or batch)
// starts at, as Java's CompactedStartingScanner and
// FullCompactedStartingScanner pick it: the latest COMPACT commit between
// earliest and latest (a full compaction's, see fullCompactionEvery), else
// the latest snapshot. Snapshots that vanished meanwhile are skipped.
func CompactedFullID(ctx context.Context, sm *snapshot.Manager, sch *schema.TableSchema, earliest, latest int64) (int64, error) {
	every, err := fullCompactionEvery(sch)
	if err != nil {
		return 0, err
	}
	for i := latest; i >= earliest; i-- {
		snap, err := sm.Snapshot(ctx, i)
		if err != nil {
			if fileio.IsNotExist(err) {
				continue
			}
			return 0, err
		}
		if snap.CommitKind == snapshot.CommitCompact &&
			(snap.CommitIdentifier%every == 0 || snap.CommitIdentifier == snapshot.BatchCommitIdentifier) {
			return i, nil
		}
	}
	return latest, nil
}

// fullCompactionEvery is how many commits apart a compacted-full start
// looks for its compaction (Java's FullCompactedStartingScanner): with the
// full-compaction changelog producer or full-compaction.delta-commits set,
// only a COMPACT commit whose checkpoint (commit identifier) is a multiple
// of full-compaction.delta-commits (default 1) is a full compaction; the
// other COMPACT commits between them are not picked. 1 otherwise: every
// COMPACT commit qualifies.
func fullCompactionEvery(sch *schema.TableSchema) (int64, error) {
	const key = "full-compaction.delta-commits"
	if _, set := sch.Options[key]; !set {
		return 1, nil
	}
	n, err := sch.IntOption(key, 1)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", err, types.ErrCorrupt)
	}
	if n <= 0 {
		return 0, fmt.Errorf("option %s=%d: must be positive: %w", key, n, types.ErrCorrupt)
	}
	return int64(n), nil
}

// firstPlanLevels is the level filter of a streaming first plan (Java's
// DataTableStreamScan): lookup tables read levels above 0 (level-0 rows come
// later as changelog), full-compaction tables only the top level.
func firstPlanLevels(sch *schema.TableSchema) (func(int32) bool, error) {
	if len(sch.PrimaryKeys) == 0 {
		return nil, nil
	}
	switch sch.ChangelogProducer() {
	case "lookup":
		return func(l int32) bool { return l > 0 }, nil
	case "full-compaction":
		n, err := numLevels(sch)
		if err != nil {
			return nil, err
		}
		top := int32(n - 1)
		return func(l int32) bool { return l == top }, nil
	}
	return nil, nil
}

// numLevels is CoreOptions.numLevels: num-levels, else
// num-sorted-run.compaction-trigger + 1 (default 5 + 1).
func numLevels(sch *schema.TableSchema) (int, error) {
	n, err := sch.IntOption("num-levels", 0)
	if err != nil {
		return 0, err
	}
	if n > 0 {
		return n, nil
	}
	trig, err := sch.IntOption("num-sorted-run.compaction-trigger", 5)
	if err != nil {
		return 0, err
	}
	return trig + 1, nil
}
