package paimon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/schema"
	"github.com/connect-paimon/connect-paimon/paimon/snapshot"
)

// StartMode is where a streaming read starts (Java's scan.mode).
type StartMode int

// Start modes.
const (
	// StartLatestFull reads the latest snapshot in full, then every later
	// snapshot's changes. The default.
	StartLatestFull StartMode = iota
	// StartLatest reads only snapshots committed after the start.
	StartLatest
	// StartFromSnapshot reads the changes of the start snapshot and later
	// ones (the start is clamped up to the earliest snapshot, as in Java).
	StartFromSnapshot
	// StartFromSnapshotFull reads the start snapshot in full, then changes.
	StartFromSnapshotFull
	// StartFromTimestamp reads the changes of snapshots committed at or
	// after the start time: it starts after the last snapshot strictly
	// earlier than the time.
	StartFromTimestamp
	// StartCompactedFull reads the newest COMPACT snapshot in full (the
	// latest snapshot when there is none), then changes.
	StartCompactedFull
)

// String returns Java's spelling of the mode.
func (m StartMode) String() string {
	switch m {
	case StartLatestFull:
		return "latest-full"
	case StartLatest:
		return "latest"
	case StartFromSnapshot:
		return "from-snapshot"
	case StartFromSnapshotFull:
		return "from-snapshot-full"
	case StartFromTimestamp:
		return "from-timestamp"
	case StartCompactedFull:
		return "compacted-full"
	}
	return fmt.Sprintf("StartMode(%d)", int(m))
}

// ParseStartMode parses Java's spelling ("full" is an alias of latest-full).
func ParseStartMode(s string) (StartMode, error) {
	switch s {
	case "latest-full", "full", "default", "":
		return StartLatestFull, nil
	case "latest":
		return StartLatest, nil
	case "from-snapshot":
		return StartFromSnapshot, nil
	case "from-snapshot-full":
		return StartFromSnapshotFull, nil
	case "from-timestamp":
		return StartFromTimestamp, nil
	case "compacted-full":
		return StartCompactedFull, nil
	}
	return 0, fmt.Errorf("unknown scan mode %q (want latest-full, latest, from-snapshot, from-snapshot-full, from-timestamp or compacted-full)", s)
}

// ExpiredPolicy says what a streaming scan does when the next snapshot it
// needs was expired away.
type ExpiredPolicy int

// Expired policies.
const (
	// ExpiredFail stops with an error naming the consumer, the missing
	// snapshot and the earliest available one. The default: rows were lost.
	ExpiredFail ExpiredPolicy = iota
	// ExpiredEarliest continues from the earliest snapshot's changes.
	ExpiredEarliest
	// ExpiredLatestFull reads the latest snapshot in full, then continues.
	ExpiredLatestFull
)

// ErrExpired is wrapped by the error a streaming scan returns when its next
// snapshot was expired and the policy is ExpiredFail.
var ErrExpired = errors.New("next snapshot has expired")

// ErrRecreated is wrapped when the position is beyond latest+1: the table
// was most likely dropped and recreated.
var ErrRecreated = errors.New("next snapshot is beyond the latest one")

// StreamReadBuilder configures a streaming read. Most callers describe the
// read as a StreamConfig and call Table.NewStreamingScan; the builder is
// the mechanism underneath, for callers that want to set options one by
// one.
type StreamReadBuilder struct {
	t              *Table
	opts           ReadOptions
	poll           time.Duration
	consumerID     string
	mode           StartMode
	startSnapshot  int64
	startTime      time.Time
	endSnapshot    int64
	endWatermark   *int64
	onExpired      ExpiredPolicy
	readOverwrite  *bool
	ignoreProgress bool
	emitEmpty      bool
}

// NewStreamReadBuilder starts configuring a streaming read.
func (t *Table) NewStreamReadBuilder() *StreamReadBuilder {
	return &StreamReadBuilder{t: t, poll: DefaultPollInterval}
}

// DefaultPollInterval is how long a streaming scan waits before looking
// for the next snapshot again when none is set.
const DefaultPollInterval = time.Second

// WithPollInterval sets how long to wait before looking for the next
// snapshot when there is none yet (default 1 s).
func (b *StreamReadBuilder) WithPollInterval(d time.Duration) *StreamReadBuilder {
	b.poll = d
	return b
}

// Options returns the read options set so far.
func (b *StreamReadBuilder) Options() ReadOptions { return b.opts }

// WithOptions replaces all read options at once.
func (b *StreamReadBuilder) WithOptions(o ReadOptions) *StreamReadBuilder {
	o.Projection = append([]string(nil), o.Projection...)
	b.opts = o
	return b
}

// WithFilter keeps only matching rows, in every plan.
func (b *StreamReadBuilder) WithFilter(p *predicate.Predicate) *StreamReadBuilder {
	b.opts.Filter = p
	return b
}

// WithProjection selects the output columns.
func (b *StreamReadBuilder) WithProjection(columns ...string) *StreamReadBuilder {
	b.opts.Projection = append([]string(nil), columns...)
	return b
}

// WithBuckets reads only the listed buckets, in every phase (the first full
// plan too; pypaimon ignores it there).
func (b *StreamReadBuilder) WithBuckets(ids ...int32) *StreamReadBuilder {
	b.opts.BucketFilter = bucketSet(ids)
	return b
}

// WithBucketFilter reads only the buckets f accepts.
func (b *StreamReadBuilder) WithBucketFilter(f func(bucket int32) bool) *StreamReadBuilder {
	b.opts.BucketFilter = f
	return b
}

// WithIncludeRowKind adds a leading "_row_kind" column (+I, -U, +U, -D).
func (b *StreamReadBuilder) WithIncludeRowKind(v bool) *StreamReadBuilder {
	b.opts.IncludeRowKind = v
	return b
}

// WithDictionary lets reads return dictionary-encoded Parquet string and
// binary columns as Arrow dictionary arrays (ReadOptions.Dictionary;
// default false: plain arrays).
func (b *StreamReadBuilder) WithDictionary(v bool) *StreamReadBuilder {
	b.opts.Dictionary = v
	return b
}

// WithBatchSize sets the rows per record batch.
func (b *StreamReadBuilder) WithBatchSize(n int) *StreamReadBuilder {
	b.opts.BatchSize = n
	return b
}

// WithAllocator sets the Arrow allocator of the reads, as
// ReadBuilder.WithAllocator.
func (b *StreamReadBuilder) WithAllocator(mem memory.Allocator) *StreamReadBuilder {
	b.opts.Allocator = mem
	return b
}

// WithStats makes the reads count files, bytes and rows into st.
func (b *StreamReadBuilder) WithStats(st *ReadStats) *StreamReadBuilder {
	b.opts.Stats = st
	return b
}

// WithConsumerID resumes from, and lets the caller commit to, the consumer
// file consumer/consumer-<id>.
func (b *StreamReadBuilder) WithConsumerID(id string) *StreamReadBuilder {
	b.consumerID = id
	return b
}

// WithStartMode sets where the read starts when no consumer position
// exists.
func (b *StreamReadBuilder) WithStartMode(m StartMode) *StreamReadBuilder {
	b.mode = m
	return b
}

// WithStartSnapshot sets the snapshot of StartFromSnapshot(Full).
func (b *StreamReadBuilder) WithStartSnapshot(id int64) *StreamReadBuilder {
	b.startSnapshot = id
	return b
}

// WithStartTimestamp sets the time of StartFromTimestamp.
func (b *StreamReadBuilder) WithStartTimestamp(t time.Time) *StreamReadBuilder {
	b.startTime = t
	return b
}

// WithEndSnapshot ends the stream (io.EOF) after snapshot id.
func (b *StreamReadBuilder) WithEndSnapshot(id int64) *StreamReadBuilder {
	b.endSnapshot = id
	return b
}

// WithEndWatermark ends the stream at the first snapshot whose watermark
// exceeds wm (Java's scan.bounded.watermark); that snapshot is not read.
func (b *StreamReadBuilder) WithEndWatermark(wm int64) *StreamReadBuilder {
	b.endWatermark = &wm
	return b
}

// WithOnExpired sets the expired-position policy.
func (b *StreamReadBuilder) WithOnExpired(p ExpiredPolicy) *StreamReadBuilder {
	b.onExpired = p
	return b
}

// WithStreamingReadOverwrite overrides the table option
// streaming-read-overwrite: OVERWRITE snapshots are read, the rows they
// replaced as -D and the new ones as +I.
func (b *StreamReadBuilder) WithStreamingReadOverwrite(v bool) *StreamReadBuilder {
	b.readOverwrite = &v
	return b
}

// WithIgnoreConsumerProgress starts by the start mode even when the
// consumer has a position (Java's consumer.ignore-progress).
func (b *StreamReadBuilder) WithIgnoreConsumerProgress(v bool) *StreamReadBuilder {
	b.ignoreProgress = v
	return b
}

// WithEmitEmptyPlans makes Next return a plan for every snapshot the scan
// passes, with no splits for snapshots it skips (COMPACT, ANALYZE...) or
// whose rows were all pruned. Callers that commit positions per plan need
// this to advance past skipped snapshots.
func (b *StreamReadBuilder) WithEmitEmptyPlans(v bool) *StreamReadBuilder {
	b.emitEmpty = v
	return b
}

// NewRead returns the reader for the scan's splits.
func (b *StreamReadBuilder) NewRead() *Read { return &Read{t: b.t, opts: b.opts} }

// StreamPlan is one step of a streaming read.
type StreamPlan struct {
	// SnapshotID is the snapshot this plan read.
	SnapshotID int64
	CommitKind string
	CommitTime time.Time
	SchemaID   int64
	Watermark  *int64
	// FirstPlan is true for the full read of the start snapshot.
	FirstPlan bool
	// Skipped is true for a snapshot passed without reading (only with
	// WithEmitEmptyPlans).
	Skipped bool
	Splits  []*Split
	// NextSnapshotID is the scan position after this plan.
	NextSnapshotID int64
	// Expired is set on the first plan after the scan's position had
	// expired and the policy (ExpiredEarliest, ExpiredLatestFull) moved it
	// on: the rows of the snapshots in between are lost, and a caller
	// should say so loudly.
	Expired *ExpiredSkip
}

// ExpiredSkip describes a position that had expired and where the scan
// went instead.
type ExpiredSkip struct {
	// Needed is the snapshot the scan needed next; Earliest and Latest are
	// the table's snapshots when it found out.
	Needed, Earliest, Latest int64
	// Policy is what the scan did: continue from Earliest's changes, or
	// read Latest in full.
	Policy ExpiredPolicy
}

// Skipped is the number of snapshots whose changes were not read.
func (e *ExpiredSkip) Skipped() int64 {
	if e.Policy == ExpiredLatestFull {
		return e.Latest - e.Needed + 1
	}
	return e.Earliest - e.Needed
}

// StreamingScan follows a table's snapshots. It is not safe for concurrent
// use.
type StreamingScan struct {
	// wrote is the consumer position this scan last wrote or resumed
	// from; commits (another goroutine) check the file still holds it.
	wrote     atomic.Int64
	expired   *ExpiredSkip // reported on the next plan returned
	b         *StreamReadBuilder
	t         *Table
	consumers *consumer.Manager
	schema    *schema.TableSchema
	next      int64 // 0 until the start position is known
	started   bool
	misses    int
	overwrite bool
	producer  string
	ended     bool
	// fullPhaseEnd: the start snapshot is already past the end watermark,
	// so the stream ends after the start (Java's isFullPhaseEnd).
	fullPhaseEnd bool
}

// rangeCheckEvery is how many consecutive misses of the next snapshot pass
// between checks for an expired or impossible position (Java: 16). The
// first miss is checked too, so a stale position fails fast.
const rangeCheckEvery = 16

// NewStreamingScan validates the configuration and returns the scan. The
// start position is resolved by the first Next.
func (b *StreamReadBuilder) NewStreamingScan(ctx context.Context) (*StreamingScan, error) {
	t := b.t
	if b.poll <= 0 {
		return nil, fmt.Errorf("table %s: poll interval must be positive", t.name)
	}
	if err := checkStart(b.mode, b.startSnapshot, b.startTime); err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if _, err := projectFields(t.schema, b.opts.Projection); err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	s := &StreamingScan{b: b, t: t, schema: t.schema, producer: t.schema.ChangelogProducer()}
	s.overwrite = t.schema.StreamingReadOverwrite()
	if b.readOverwrite != nil {
		s.overwrite = *b.readOverwrite
	}
	if b.consumerID != "" {
		if err := consumer.ValidateID(b.consumerID); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		s.consumers = consumer.NewManager(t.fio, t.root, t.branch)
		// A crash between writing and renaming a consumer file leaves our
		// temp file behind; nothing else ever removes it. Any from before
		// this start is a dead writer's: this scan is the id's only writer
		// (CommitConsumer refuses to share it), and a misconfigured second
		// one whose temp file went only sees its commit fail and retry.
		if _, err := s.consumers.RemoveStaleTemp(ctx, b.consumerID, time.Now().Add(-time.Second)); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
	}
	return s, nil
}

// NextSnapshotID returns the id of the next snapshot the scan will read (0
// before the start position is resolved).
func (s *StreamingScan) NextSnapshotID() int64 { return s.next }

// SetNextSnapshotID moves the scan: the next plan reads snapshot id's
// changes (no full plan).
func (s *StreamingScan) SetNextSnapshotID(id int64) {
	s.next = id
	s.started = true
	s.misses = 0
	s.ended = false
}

// CommitConsumer writes the consumer file with nextSnapshot. The scan never
// commits on its own: callers commit once everything before nextSnapshot
// was delivered.
//
// The file must still hold what this scan last wrote (or resumed from):
// otherwise another writer uses the same consumer id — a second replica
// misconfigured with it, or a reset while running — and overwriting its
// position would make one of them skip rows it never delivered. That is
// an error wrapping ErrConsumerConflict, and nothing is written. A file
// that vanished (a writer's consumer expiry) is written again.
func (s *StreamingScan) CommitConsumer(ctx context.Context, nextSnapshot int64) error {
	if s.consumers == nil {
		return errors.New("commit consumer: the scan has no consumer id")
	}
	if err := s.checkOwnConsumer(ctx); err != nil {
		return err
	}
	if err := s.consumers.Reset(ctx, s.b.consumerID, consumer.Consumer{NextSnapshot: nextSnapshot}); err != nil {
		return err
	}
	s.wrote.Store(nextSnapshot)
	return nil
}

// ErrConsumerConflict is wrapped when the consumer file holds a position
// this scan neither wrote nor resumed from: another writer uses the id.
var ErrConsumerConflict = errors.New("another writer uses this consumer id")

// checkOwnConsumer compares the consumer file with what this scan last
// wrote or resumed from.
func (s *StreamingScan) checkOwnConsumer(ctx context.Context) error {
	want := s.wrote.Load()
	if want == 0 {
		return nil // nothing of ours yet
	}
	c, ok, err := s.consumers.Consumer(ctx, s.b.consumerID)
	if err != nil || !ok {
		return err
	}
	if c.NextSnapshot != want {
		return fmt.Errorf("commit consumer %s: the file holds nextSnapshot %d, this reader last wrote %d (a second reader with consumer_id %q, or a reset while running): %w",
			s.consumers.Path(s.b.consumerID), c.NextSnapshot, want, s.b.consumerID, ErrConsumerConflict)
	}
	return nil
}

// TouchConsumer rewrites the consumer file with the position it already
// holds, so a writer's consumer.expiration-time (which ages consumers by
// their file's modification time) does not expire a live reader that has
// nothing new to commit; ok is false when there is no consumer file yet.
// It never moves the position, so it is safe before the first plan, when
// nothing the scan computed has been delivered. Like CommitConsumer it may
// run concurrently with Next.
func (s *StreamingScan) TouchConsumer(ctx context.Context) (next int64, ok bool, err error) {
	if s.consumers == nil {
		return 0, false, errors.New("touch consumer: the scan has no consumer id")
	}
	if err := s.checkOwnConsumer(ctx); err != nil {
		return 0, false, err
	}
	c, ok, err := s.consumers.Consumer(ctx, s.b.consumerID)
	if err != nil || !ok {
		return 0, ok, err
	}
	if err := s.consumers.Reset(ctx, s.b.consumerID, c); err != nil {
		return 0, false, err
	}
	s.wrote.Store(c.NextSnapshot)
	return c.NextSnapshot, true, nil
}

// ConsumerID returns the consumer id ("" when none).
func (s *StreamingScan) ConsumerID() string { return s.b.consumerID }

// Next returns the next plan, blocking (polling) until there is one or ctx
// is done. After the end bound it returns io.EOF.
func (s *StreamingScan) Next(ctx context.Context) (*StreamPlan, error) {
	p, err := s.nextPlan(ctx)
	if p != nil && s.expired != nil {
		p.Expired, s.expired = s.expired, nil
	}
	return p, err
}

func (s *StreamingScan) nextPlan(ctx context.Context) (*StreamPlan, error) {
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
		if s.fullPhaseEnd || (s.b.endSnapshot > 0 && s.next > s.b.endSnapshot) {
			s.ended = true
			return nil, io.EOF
		}
		snap, err := s.t.history.Snapshot(ctx, s.next)
		if err != nil {
			if !isNotExist(err) {
				return nil, fmt.Errorf("table %s: %w", s.t.name, err)
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
		if s.b.endWatermark != nil && snap.Watermark != nil && *snap.Watermark > *s.b.endWatermark {
			s.ended = true
			return nil, io.EOF
		}
		p, err := s.followUp(ctx, snap)
		if err != nil {
			return nil, err
		}
		s.next = snap.ID + 1
		p.NextSnapshotID = s.next
		if len(p.Splits) > 0 || s.b.emitEmpty {
			return p, nil
		}
	}
}

// position names where the scan's position came from: the consumer file
// when there is one (the file an operator resets), else the scan.
func (s *StreamingScan) position(who string) string {
	if s.consumers != nil {
		return who + " (" + s.consumers.Path(s.b.consumerID) + ")"
	}
	return who
}

// checkStartWatermark applies the end watermark to the start position: when
// the snapshot before the first one to follow is already past the bound,
// nothing after the start is read.
func (s *StreamingScan) checkStartWatermark(ctx context.Context) error {
	if s.b.endWatermark == nil || s.next <= 1 {
		return nil
	}
	snap, err := s.t.history.Snapshot(ctx, s.next-1)
	if err != nil {
		if isNotExist(err) {
			return nil
		}
		return fmt.Errorf("table %s: %w", s.t.name, err)
	}
	if snap.Watermark != nil && *snap.Watermark > *s.b.endWatermark {
		s.fullPhaseEnd = true
	}
	return nil
}

func (s *StreamingScan) sleep(ctx context.Context) error {
	t := time.NewTimer(s.b.poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// start resolves the start position; it returns the first full plan when
// the mode has one, nil while the table has no snapshot yet.
func (s *StreamingScan) start(ctx context.Context) (*StreamPlan, error) {
	t := s.t
	sm := t.snapshots
	if s.consumers != nil && !s.b.ignoreProgress {
		c, ok, err := s.consumers.Consumer(ctx, s.b.consumerID)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		if ok {
			s.wrote.CompareAndSwap(0, c.NextSnapshot)
			s.SetNextSnapshotID(c.NextSnapshot)
			return nil, nil
		}
	}
	latest, ok, err := sm.LatestID(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if !ok {
		if s.b.mode == StartLatest {
			// Java: a table empty at start is read from its first snapshot.
			s.SetNextSnapshotID(1)
		}
		return nil, nil // wait for the first snapshot
	}
	earliest, _, err := sm.EarliestID(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	switch s.b.mode {
	case StartLatest:
		s.SetNextSnapshotID(latest + 1)
		return nil, nil
	case StartFromSnapshot:
		// Changes can start at a long-lived changelog whose snapshot expired.
		from, _, err := t.history.EarliestID(ctx)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		s.SetNextSnapshotID(max(s.b.startSnapshot, min(from, earliest)))
		return nil, nil
	case StartFromTimestamp:
		snap, found, err := t.history.EarlierThanTime(ctx, s.b.startTime.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		if !found {
			from, _, err := t.history.EarliestID(ctx)
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", t.name, err)
			}
			s.SetNextSnapshotID(min(from, earliest))
		} else {
			s.SetNextSnapshotID(snap.ID + 1)
		}
		return nil, nil
	case StartFromSnapshotFull:
		return s.fullPlan(ctx, max(s.b.startSnapshot, earliest))
	case StartCompactedFull:
		id := latest
		for i := latest; i >= earliest; i-- {
			snap, err := sm.Snapshot(ctx, i)
			if err != nil {
				if isNotExist(err) {
					continue
				}
				return nil, fmt.Errorf("table %s: %w", t.name, err)
			}
			if snap.CommitKind == snapshot.CommitCompact {
				id = i
				break
			}
		}
		return s.fullPlan(ctx, id)
	default:
		return s.fullPlan(ctx, latest)
	}
}

// fullPlan plans snapshot id in full and positions the scan after it.
func (s *StreamingScan) fullPlan(ctx context.Context, id int64) (*StreamPlan, error) {
	snap, err := s.t.snapshots.Snapshot(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.t.name, err)
	}
	sch, err := s.schemaFor(ctx, snap)
	if err != nil {
		return nil, err
	}
	if s.b.endSnapshot == id {
		// The whole read is snapshot id in full: a batch read of that
		// snapshot, which Java's time travel does in the snapshot's own
		// schema. A stream that goes on past it keeps the scan's schema.
		if sch, err = s.t.timeTravelSchema(ctx, snap); err != nil {
			return nil, err
		}
		if _, err := projectFields(sch, s.b.opts.Projection); err != nil {
			return nil, fmt.Errorf("table %s schema %d (snapshot %d): %w", s.t.name, sch.ID, id, err)
		}
	}
	levels, err := firstPlanLevels(sch)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.t.name, err)
	}
	pl := s.t.planner(sch, s.b.opts.Filter, s.b.opts.BucketFilter, levels)
	pl.ReadPostpone = s.readsPostpone(sch)
	p, err := pl.PlanSnapshot(ctx, snap, scan.Full)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.t.name, err)
	}
	s.SetNextSnapshotID(id + 1)
	sp := s.streamPlan(snap, wrapPlan(p, sch).Splits)
	sp.FirstPlan = true
	return sp, nil
}

func (s *StreamingScan) streamPlan(snap *snapshot.Snapshot, splits []*Split) *StreamPlan {
	return &StreamPlan{
		SnapshotID: snap.ID, CommitKind: string(snap.CommitKind), CommitTime: time.UnixMilli(snap.TimeMillis),
		SchemaID: snap.SchemaID, Watermark: snap.Watermark, Splits: splits, NextSnapshotID: s.next,
	}
}

// schemaFor returns the read schema for a snapshot: the newest schema the
// scan knows, refreshed when the snapshot was written under a newer one.
func (s *StreamingScan) schemaFor(ctx context.Context, snap *snapshot.Snapshot) (*schema.TableSchema, error) {
	if snap.SchemaID > s.schema.ID {
		ns, err := s.t.schemas.Schema(ctx, snap.SchemaID)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", s.t.name, err)
		}
		if err := checkSupported(ns); err != nil {
			return nil, fmt.Errorf("table %s schema %d: %w", s.t.name, ns.ID, err)
		}
		if _, err := projectFields(ns, s.b.opts.Projection); err != nil {
			return nil, fmt.Errorf("table %s schema %d: %w", s.t.name, ns.ID, err)
		}
		s.schema = ns
	}
	return s.schema, nil
}

func (s *StreamingScan) planner(sch *schema.TableSchema) *scan.Planner {
	pl := s.t.planner(sch, s.b.opts.Filter, s.b.opts.BucketFilter, nil)
	pl.ReadPostpone = s.readsPostpone(sch)
	return pl
}

// readsPostpone: Java's stream scans read the postpone bucket, except for
// tables with a changelog producer (DataTableStreamScan).
func (s *StreamingScan) readsPostpone(sch *schema.TableSchema) bool {
	p := sch.ChangelogProducer()
	return p == "" || p == "none"
}

// followUp plans one later snapshot's changes.
func (s *StreamingScan) followUp(ctx context.Context, snap *snapshot.Snapshot) (*StreamPlan, error) {
	sch, err := s.schemaFor(ctx, snap)
	if err != nil {
		return nil, err
	}
	pl := s.planner(sch)
	var p *scan.Plan
	changelog := len(sch.PrimaryKeys) > 0 && s.producer != "" && s.producer != "none"
	switch {
	case changelog && snap.HasChangelog():
		// input/lookup/full-compaction: the commit's changelog files, whatever
		// its kind (lookup and full-compaction produce them in COMPACT commits).
		p, err = pl.PlanSnapshot(ctx, snap, scan.Changelog)
	case changelog:
		sp := s.streamPlan(snap, nil)
		sp.Skipped = true
		return sp, nil
	case snap.CommitKind == snapshot.CommitAppend:
		p, err = pl.PlanSnapshot(ctx, snap, scan.Delta)
	case snap.CommitKind == snapshot.CommitOverwrite && s.overwrite:
		p, err = pl.PlanOverwriteChanges(ctx, snap)
	default:
		sp := s.streamPlan(snap, nil)
		sp.Skipped = true
		return sp, nil
	}
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.t.name, err)
	}
	return s.streamPlan(snap, wrapPlan(p, sch).Splits), nil
}

// onMissing handles a next snapshot that does not exist: normally it is not
// written yet; periodically the position is checked against the earliest
// and latest snapshots to detect expiry and table recreation.
func (s *StreamingScan) onMissing(ctx context.Context) (*StreamPlan, error) {
	s.misses++
	if (s.misses-1)%rangeCheckEvery != 0 {
		return nil, nil
	}
	sm := s.t.snapshots
	// The cheap answer first: when snapshot next-1 exists the position is
	// neither expired (expiry removes the oldest first) nor beyond the end,
	// so the idle poll costs one more request, not the five of a full check.
	if s.next > 1 {
		ok, err := sm.Exists(ctx, s.next-1)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", s.t.name, err)
		}
		if ok {
			return nil, nil
		}
	}
	// Expiry is decided against the earliest position a stream can still
	// read: with long-lived changelogs that is the earliest changelog, not
	// the earliest snapshot.
	earliest, ok, err := s.t.history.EarliestID(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.t.name, err)
	}
	latest, _, err := sm.LatestID(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.t.name, err)
	}
	who := "the scan"
	if s.b.consumerID != "" {
		who = fmt.Sprintf("consumer %q", s.b.consumerID)
	}
	switch {
	case !ok && s.next > 1:
		return nil, fmt.Errorf("table %s: %s: next snapshot %d but the table has no snapshot (recreated?): %w", s.t.name, s.position(who), s.next, ErrRecreated)
	case !ok:
		return nil, nil
	case s.next > latest+1:
		return nil, fmt.Errorf("table %s: %s: next snapshot %d but the latest is %d (table recreated?): %w", s.t.name, s.position(who), s.next, latest, ErrRecreated)
	case s.next >= earliest:
		return nil, nil // not written yet
	}
	// Expired.
	switch s.b.onExpired {
	case ExpiredEarliest:
		s.expired = &ExpiredSkip{Needed: s.next, Earliest: earliest, Latest: latest, Policy: ExpiredEarliest}
		s.SetNextSnapshotID(earliest)
		return nil, nil
	case ExpiredLatestFull:
		s.expired = &ExpiredSkip{Needed: s.next, Earliest: earliest, Latest: latest, Policy: ExpiredLatestFull}
		return s.fullPlan(ctx, latest)
	}
	what := "snapshot"
	if s.t.history.Changelogs() != nil {
		what = "snapshot or long-lived changelog"
	}
	return nil, fmt.Errorf("table %s: %s needs snapshot %d, but the earliest %s is %d: %w", s.t.name, who, s.next, what, earliest, ErrExpired)
}
