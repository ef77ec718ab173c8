package paimon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/suggest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/internal/stream"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// StartMode is where a streaming read starts (Java's scan.mode). String
// and MarshalText print Java's spelling, UnmarshalText reads it ("full" is
// an alias of latest-full, as in Java).
type StartMode = stream.StartMode

// Start modes.
const (
	// StartLatestFull reads the latest snapshot in full, then every later
	// snapshot's changes. The default.
	StartLatestFull = stream.StartLatestFull
	// StartLatest reads only snapshots committed after the start.
	StartLatest = stream.StartLatest
	// StartFromSnapshot reads the changes of the start snapshot and later
	// ones (the start is clamped up to the earliest snapshot, as in Java).
	StartFromSnapshot = stream.StartFromSnapshot
	// StartFromSnapshotFull reads the start snapshot in full, then changes.
	StartFromSnapshotFull = stream.StartFromSnapshotFull
	// StartFromTimestamp reads the changes of snapshots committed at or
	// after the start time: it starts after the last snapshot strictly
	// earlier than the time.
	StartFromTimestamp = stream.StartFromTimestamp
	// StartCompactedFull reads the newest COMPACT snapshot in full (the
	// latest snapshot when there is none), then changes.
	StartCompactedFull = stream.StartCompactedFull
	// StartFromTag reads the snapshot tag StartTag holds in full, in the
	// schema it was written under, and ends (io.EOF): Java reads
	// scan.tag-name as a batch read of the tag and refuses to stream from
	// it. A consumer's position still wins, and the read still ends at the
	// tag's snapshot. To follow the table after a tag, start
	// StartFromSnapshotFull at the tag's snapshot (Table.TagSnapshotID).
	StartFromTag = stream.StartFromTag
	// StartDefault is Java's scan.mode=default: the read position the
	// table stores in its options (scan.snapshot-id, scan.timestamp-millis,
	// scan.mode) decides where the stream starts, as it does for Java's
	// streams; latest-full when the table stores none. Positions Java's
	// streams refuse (a tag, a watermark) or this reader does not take are
	// refused when the stream is opened.
	StartDefault = stream.StartDefault
)

// ExpiredPolicy says what a streaming scan does when the next snapshot it
// needs was expired away; it reads and prints as text ("fail",
// "earliest", "latest-full") like StartMode.
type ExpiredPolicy = stream.ExpiredPolicy

// Expired policies.
const (
	// ExpiredFail stops with an error wrapping ErrExpired, naming the
	// consumer, the missing snapshot and the earliest available one. The
	// default: rows were lost.
	ExpiredFail = stream.ExpiredFail
	// ExpiredEarliest continues from the earliest snapshot's changes.
	ExpiredEarliest = stream.ExpiredEarliest
	// ExpiredLatestFull reads the latest snapshot in full, then continues.
	ExpiredLatestFull = stream.ExpiredLatestFull
)

// ExpiredSkip describes a position that had expired and where the scan
// went instead (StreamPlan.Expired).
type ExpiredSkip = stream.ExpiredSkip

// defaultPollInterval is how long a streaming scan waits before looking
// for the next snapshot again when none is set.
const defaultPollInterval = time.Second

// StreamReadBuilder configures a streaming read option by option, the Go
// face of pypaimon's StreamReadBuilder. It fills a StreamConfig, the one
// description of a streaming read; Table.NewStreamingScan takes the same
// description as plain data.
type StreamReadBuilder struct {
	t   *Table
	cfg StreamConfig
	// filter and buckets are the options that are code rather than data.
	filter  *predicate.Predicate
	buckets func(bucket int32) bool
}

// NewStreamReadBuilder starts configuring a streaming read.
func (t *Table) NewStreamReadBuilder() *StreamReadBuilder {
	return &StreamReadBuilder{t: t}
}

// Config returns the description set so far (without WithFilter's
// predicate and WithBucketFilter's function).
func (b *StreamReadBuilder) Config() StreamConfig { return b.cfg }

// WithPollInterval sets how long to wait before looking for the next
// snapshot when there is none yet (default DefaultPollInterval).
func (b *StreamReadBuilder) WithPollInterval(d time.Duration) *StreamReadBuilder {
	b.cfg.PollInterval = d
	return b
}

// WithFilter keeps only matching rows, in every plan.
func (b *StreamReadBuilder) WithFilter(p *predicate.Predicate) *StreamReadBuilder {
	b.filter = p
	return b
}

// WithProjection selects the output columns.
func (b *StreamReadBuilder) WithProjection(columns ...string) *StreamReadBuilder {
	b.cfg.Columns = append([]string(nil), columns...)
	return b
}

// WithBuckets reads only the listed buckets, in every phase (the first full
// plan too; pypaimon ignores it there).
func (b *StreamReadBuilder) WithBuckets(ids ...int32) *StreamReadBuilder {
	b.cfg.Buckets = append([]int32(nil), ids...)
	return b
}

// WithBucketFilter reads only the buckets f accepts (and, with WithBuckets,
// listed).
func (b *StreamReadBuilder) WithBucketFilter(f func(bucket int32) bool) *StreamReadBuilder {
	b.buckets = f
	return b
}

// WithIncludeRowKind adds a leading types.RowKindColumn (+I, -U, +U, -D).
func (b *StreamReadBuilder) WithIncludeRowKind(v bool) *StreamReadBuilder {
	b.cfg.IncludeRowKind = v
	return b
}

// WithDictionary lets reads return dictionary-encoded Parquet string and
// binary columns as Arrow dictionary arrays (see ReadBuilder.WithDictionary;
// default false: plain arrays).
func (b *StreamReadBuilder) WithDictionary(v bool) *StreamReadBuilder {
	b.cfg.Dictionary = v
	return b
}

// WithWideTimestamps gives the reads' TIMESTAMP(7..9) columns as
// types.WideTimestampType (see ReadBuilder.WithWideTimestamps; default
// false: Arrow nanosecond timestamps).
func (b *StreamReadBuilder) WithWideTimestamps(v bool) *StreamReadBuilder {
	b.cfg.WideTimestamps = v
	return b
}

// WithBatchSize sets the rows per record batch.
func (b *StreamReadBuilder) WithBatchSize(n int) *StreamReadBuilder {
	b.cfg.BatchSize = n
	return b
}

// WithAllocator sets the Arrow allocator of the reads, as
// ReadBuilder.WithAllocator.
func (b *StreamReadBuilder) WithAllocator(mem memory.Allocator) *StreamReadBuilder {
	b.cfg.Allocator = mem
	return b
}

// WithStats makes the reads count files, bytes and rows into st.
func (b *StreamReadBuilder) WithStats(st *ReadStats) *StreamReadBuilder {
	b.cfg.Stats = st
	return b
}

// WithConsumerID resumes from, and lets the caller commit to, the consumer
// file consumer/consumer-<id>.
func (b *StreamReadBuilder) WithConsumerID(id string) *StreamReadBuilder {
	b.cfg.ConsumerID = id
	return b
}

// WithStartMode sets where the read starts when no consumer position
// exists.
func (b *StreamReadBuilder) WithStartMode(m StartMode) *StreamReadBuilder {
	b.cfg.StartMode = m
	return b
}

// WithStartSnapshot sets the snapshot of StartFromSnapshot(Full).
func (b *StreamReadBuilder) WithStartSnapshot(id int64) *StreamReadBuilder {
	b.cfg.StartSnapshot = id
	return b
}

// WithStartTimestamp sets the time of StartFromTimestamp.
func (b *StreamReadBuilder) WithStartTimestamp(t time.Time) *StreamReadBuilder {
	b.cfg.StartTime = t
	return b
}

// WithStartTag sets the tag of StartFromTag.
func (b *StreamReadBuilder) WithStartTag(name string) *StreamReadBuilder {
	b.cfg.StartTag = name
	return b
}

// WithEndSnapshot ends the stream (io.EOF) after snapshot id.
func (b *StreamReadBuilder) WithEndSnapshot(id int64) *StreamReadBuilder {
	b.cfg.EndSnapshot = id
	return b
}

// WithEndWatermark ends the stream at the first snapshot whose watermark
// exceeds wm (Java's scan.bounded.watermark); that snapshot is not read.
func (b *StreamReadBuilder) WithEndWatermark(wm int64) *StreamReadBuilder {
	b.cfg.EndWatermark = &wm
	return b
}

// WithOnExpired sets the expired-position policy.
func (b *StreamReadBuilder) WithOnExpired(p ExpiredPolicy) *StreamReadBuilder {
	b.cfg.OnExpired = p
	return b
}

// WithStreamingReadOverwrite overrides the table option
// streaming-read-overwrite (streaming-read-append-overwrite on an append
// table): OVERWRITE snapshots are read, on a primary-key table the rows
// they replaced as -D and the new ones as +I, on an append table the new
// ones.
func (b *StreamReadBuilder) WithStreamingReadOverwrite(v bool) *StreamReadBuilder {
	b.cfg.StreamingReadOverwrite = &v
	return b
}

// WithIgnoreConsumerProgress starts by the start mode even when the
// consumer has a position (Java's consumer.ignore-progress).
func (b *StreamReadBuilder) WithIgnoreConsumerProgress(v bool) *StreamReadBuilder {
	b.cfg.IgnoreConsumerProgress = v
	return b
}

// WithEmitEmptyPlans makes Next return a plan for every snapshot the scan
// passes, with no splits for snapshots it skips (COMPACT, ANALYZE...) or
// whose rows were all pruned. Callers that commit positions per plan need
// this to advance past skipped snapshots.
func (b *StreamReadBuilder) WithEmitEmptyPlans(v bool) *StreamReadBuilder {
	b.cfg.EmitEmptyPlans = v
	return b
}

// NewStreamingScan validates the configuration and returns the scan. The
// start position is resolved by the first Next.
func (b *StreamReadBuilder) NewStreamingScan(ctx context.Context) (*StreamingScan, error) {
	sc, _, err := b.t.openStream(ctx, b.cfg, b.filter, b.buckets)
	return sc, err
}

// NewRead returns the reader for the scan's splits.
func (b *StreamReadBuilder) NewRead() *Read {
	return &Read{t: b.t, opts: b.cfg.readOptions(b.filter, b.buckets)}
}

// StreamPlan is one step of a streaming read.
type StreamPlan struct {
	// SnapshotID is the snapshot this plan read.
	SnapshotID int64
	CommitKind string
	CommitTime time.Time
	SchemaID   int64
	Watermark  *int64
	// FirstPlan is true for a full read (the start of latest-full and the
	// other full modes, ExpiredLatestFull): its rows stand for every
	// earlier snapshot.
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

// StreamingScan follows a table's snapshots. Next is not safe for
// concurrent use; CommitConsumer and TouchConsumer may run concurrently
// with it.
type StreamingScan struct {
	s *stream.Scan
}

// NextSnapshotID returns the id of the next snapshot the scan will read (0
// before the start position is resolved).
func (s *StreamingScan) NextSnapshotID() int64 { return s.s.NextSnapshotID() }

// SetNextSnapshotID moves the scan: the next plan reads snapshot id's
// changes (no full plan).
func (s *StreamingScan) SetNextSnapshotID(id int64) { s.s.SetNextSnapshotID(id) }

// ConsumerID returns the consumer id ("" when none).
func (s *StreamingScan) ConsumerID() string { return s.s.ConsumerID() }

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
	return s.s.Commit(ctx, nextSnapshot)
}

// TouchConsumer rewrites the consumer file with the position it already
// holds, so a writer's consumer.expiration-time (which ages consumers by
// their file's modification time) does not expire a live reader that has
// nothing new to commit; ok is false when there is no consumer file yet.
// It never moves the position, so it is safe before the first plan.
func (s *StreamingScan) TouchConsumer(ctx context.Context) (next int64, ok bool, err error) {
	return s.s.Touch(ctx)
}

// Next returns the next plan, blocking (polling) until there is one or ctx
// is done. After the end bound it returns io.EOF; when the start position
// (a consumer's, or the scan mode's) was already past the end bound, so
// nothing was read, it returns an error that is io.EOF (errors.Is) and
// says why, for an INFO line.
func (s *StreamingScan) Next(ctx context.Context) (*StreamPlan, error) {
	p, err := s.s.Next(ctx)
	if p == nil {
		var se *stream.StartError
		if errors.As(err, &se) {
			err = &FieldError{Field: "StartSnapshot", Err: err}
		}
		return nil, err
	}
	snap := p.Snapshot
	out := &StreamPlan{
		SnapshotID: snap.ID, CommitKind: string(snap.CommitKind), CommitTime: time.UnixMilli(snap.TimeMillis),
		SchemaID: snap.SchemaID, Watermark: snap.Watermark, FirstPlan: p.Full, Skipped: p.Skipped,
		NextSnapshotID: p.Next, Expired: p.Expired,
	}
	if p.Scan != nil {
		out.Splits = wrapPlan(p.Scan, p.Schema).Splits
	}
	return out, err
}

// checkFilter reports a filter that cannot work at open rather than at the
// first plan: one that does not parse, or names no column of the current
// schema. A bounded read may be a read of one past snapshot in its own
// schema (time travel), whose columns the current schema may lack; its
// columns are resolved at its first plan.
func (t *Table) checkFilter(cfg StreamConfig, built *predicate.Predicate) error {
	if cfg.Filter == "" && built == nil {
		return nil
	}
	_, err := bindFilter(t.schema, cfg.Filter, built)
	if err == nil || !cfg.bounded() {
		return err
	}
	if cfg.Filter != "" {
		return predicate.CheckSyntax(cfg.Filter)
	}
	return nil
}

// bounded reports whether the stream ends (at a snapshot or at the latest
// one at open): only such a read can be a time travel to one snapshot.
func (c *StreamConfig) bounded() bool { return c.EndSnapshot != 0 || c.EndAtLatest }

// streamTable is the table as a stream.Scan sees it, with the read's
// filter, buckets and projection bound.
type streamTable struct {
	*Table
	// text and built are the read's filter as given; bound is it resolved
	// in the schema boundTo, the last one a plan used.
	text       string
	built      *predicate.Predicate
	bound      *predicate.Predicate
	boundTo    *schema.TableSchema
	buckets    func(int32) bool
	share      *scan.Share
	projection []string
}

// filterFor returns the filter in sch. The schema of the first plan
// resolves the filter's names, as a read of that schema would (a past
// snapshot's in time travel); after that the stream follows field ids
// into newer schemas, so that renaming a column, or reusing its old name
// for a new one, never changes what an already running filter selects.
func (t *streamTable) filterFor(sch *schema.TableSchema) (*predicate.Predicate, error) {
	if t.boundTo != nil && t.boundTo.ID == sch.ID {
		return t.bound, nil
	}
	var p *predicate.Predicate
	var err error
	if t.boundTo == nil {
		p, err = bindFilter(sch, t.text, t.built)
	} else if p, err = predicate.Follow(t.bound, sch.Fields); err != nil {
		err = fmt.Errorf("filter %s in schema %d: %w", t.bound, sch.ID, err)
	}
	if err != nil {
		return nil, err
	}
	t.bound, t.boundTo = p, sch
	return p, nil
}

func (t *streamTable) ReadSchema(ctx context.Context, id int64) (*schema.TableSchema, error) {
	ns, err := t.schemas.Schema(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if err := checkSupported(ns); err != nil {
		return nil, fmt.Errorf("table %s schema %d: %w", t.name, ns.ID, err)
	}
	if err := checkStreamable(ns); err != nil {
		return nil, fmt.Errorf("table %s schema %d: %w", t.name, ns.ID, err)
	}
	if _, err := projectFields(ns, t.projection); err != nil {
		// The columns asked for: a configuration error, permanent.
		return nil, fmt.Errorf("table %s schema %d: %w", t.name, ns.ID, &FieldError{Field: "Columns", Err: err})
	}
	return ns, nil
}

func (t *streamTable) TimeTravelSchema(ctx context.Context, snap *snapshot.Snapshot) (*schema.TableSchema, error) {
	sch, err := t.timeTravelSchema(ctx, snap)
	if err != nil {
		return nil, err
	}
	if _, err := projectFields(sch, t.projection); err != nil {
		return nil, fmt.Errorf("table %s schema %d (snapshot %d): %w", t.name, sch.ID, snap.ID, &FieldError{Field: "Columns", Err: err})
	}
	return sch, nil
}

func (t *streamTable) Tag(ctx context.Context, name string) (*snapshot.Snapshot, error) {
	tag, err := t.tag(ctx, name)
	if err != nil {
		return nil, &FieldError{Field: "StartTag", Err: err}
	}
	return &tag.Snapshot, nil
}

func (t *streamTable) Planner(sch *schema.TableSchema, levels func(int32) bool) (*scan.Planner, error) {
	f, err := t.filterFor(sch)
	if err != nil {
		return nil, &FieldError{Field: "Filter", Err: err}
	}
	pl := t.planner(sch, f, t.buckets, levels)
	pl.FileShare = t.share
	return pl, nil
}

// unknownColumn finds the column a filter names that the schema lacks.
var unknownColumn = regexp.MustCompile(`unknown column ("(?:[^"\\]|\\.)*")`)

// columnHint adds the nearest existing columns (or the list of them) to a
// filter error about an unknown column.
func columnHint(err error, sch *schema.TableSchema) error {
	m := unknownColumn.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	name, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	names := make([]string, len(sch.Fields))
	for i, f := range sch.Fields {
		names[i] = f.Name
	}
	return &hinted{err: err, hint: suggest.Hint(name, names, "columns")}
}

// hinted is an error with a hint appended to its text; errors.Is and As
// see the error.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + h.hint }

func (h *hinted) Unwrap() error { return h.err }

// defaultStart resolves StartDefault as Java resolves scan.mode=default
// for a stream (CoreOptions.startupMode, then the streaming starting
// scanners): by the read position the table stores in its options,
// latest-full when it stores none.
func (t *Table) defaultStart(cfg StreamConfig) (StreamConfig, error) {
	pos, err := t.schema.ReadPosition()
	if err != nil {
		return cfg, err
	}
	refuse := func(key, why string) error {
		return fmt.Errorf("scan mode default: option %s=%s stored in the table %s: %w", key, t.schema.Options[key], why, types.ErrUnsupported)
	}
	switch pos.Mode {
	case "latest-full":
		cfg.StartMode = StartLatestFull
	case "latest":
		cfg.StartMode = StartLatest
	case "compacted-full":
		cfg.StartMode = StartCompactedFull
	case "from-snapshot", "from-snapshot-full":
		switch {
		case pos.SnapshotID > 0:
			cfg.StartMode, cfg.StartSnapshot = StartFromSnapshot, pos.SnapshotID
			if pos.Mode == "from-snapshot-full" {
				cfg.StartMode = StartFromSnapshotFull
			}
		case pos.Tag != "":
			return cfg, refuse("scan.tag-name", "(Java's streams refuse to start from a tag)")
		case pos.Other != "":
			return cfg, refuse(pos.Other, "(Java's streams refuse to start from it)")
		default:
			return cfg, fmt.Errorf("scan mode default: option scan.mode=%s stored in the table without scan.snapshot-id", pos.Mode)
		}
	case "from-timestamp":
		if pos.Millis == nil {
			return cfg, refuse("scan.timestamp", "(a local date-time; set scan.timestamp-millis or the stream's start time)")
		}
		cfg.StartMode, cfg.StartTime = StartFromTimestamp, time.UnixMilli(*pos.Millis)
	case "incremental":
		return cfg, refuse(cmp.Or(pos.Other, "scan.mode"), "(Java refuses incremental reads in a stream)")
	default:
		return cfg, refuse(cmp.Or(pos.Other, "scan.mode"), "(a start this reader does not take)")
	}
	return cfg, nil
}

// checkStreamable refuses streams of tables batch reads take but streams
// cannot follow as Java does.
func checkStreamable(s *schema.TableSchema) error {
	if s.DataEvolutionEnabled() {
		// A commit that updates some columns of existing rows adds files
		// holding those columns alone: a stream of such a commit would read
		// them without the rows' other columns.
		return fmt.Errorf("streaming reads of a table with data-evolution.enabled=true (batch reads merge the columns of each row): %w", types.ErrUnsupported)
	}
	return nil
}

// openStream is the one way a streaming read is opened: cfg is validated
// here, once, with the table's schema; filter and buckets are the
// builder's code-valued options (nil from a StreamConfig).
func (t *Table) openStream(ctx context.Context, cfg StreamConfig, filter *predicate.Predicate, buckets func(int32) bool) (*StreamingScan, *Read, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if err := checkStreamable(t.schema); err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if cfg.StartMode == StartDefault {
		var err error
		if cfg, err = t.defaultStart(cfg); err != nil {
			return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
		}
	} else if pos, _ := t.schema.ReadPosition(); pos.Stored != "" && t.warn != nil {
		// Java's streaming reads start there when told nothing else; say
		// that this one was told otherwise.
		t.warn(fmt.Sprintf("table %s stores the read position %s in its options, where Java's reads start unless told otherwise; this stream starts as configured (%s), batch reads start there", t.name, pos.Stored, cfg.StartMode))
	}
	if t.fallback != nil && t.warn != nil {
		// Java's stream scans read the table alone too; say so, since a
		// table over a streaming fallback branch is usually followed on
		// that branch.
		t.warn(fmt.Sprintf("table %s has scan.fallback-branch=%s: a stream reads %s alone, as Java's stream scans do (the fallback's partitions are in batch reads only); to follow the fallback branch, read that branch", t.name, t.schema.ScanFallbackBranch(), t.name))
	}
	if cfg.Columns != nil {
		// Checked here, not at the first read: an unknown column is a
		// configuration error the caller must see at open. A bounded read
		// may be a read of one past snapshot in its own schema (time
		// travel), whose columns the current schema may lack, as with the
		// filter (checkFilter): the schema of its first plan checks them
		// (streamTable.TimeTravelSchema, ReadSchema).
		if _, err := projectFields(t.schema, cfg.Columns); err != nil && !cfg.bounded() {
			return nil, nil, fmt.Errorf("table %s: %w", t.name, &FieldError{Field: "Columns", Err: err})
		}
	}
	if err := t.checkFilter(cfg, filter); err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", t.name, &FieldError{Field: "Filter", Err: err})
	}
	// A bucket-unaware table keeps every file in bucket 0: its shards split
	// files, not buckets.
	var share *scan.Share
	mine := cfg.ReadsBucket
	if cfg.ShardCount > 1 && t.schema.BucketMode() == "unaware" {
		share = &scan.Share{Index: cfg.ShardIndex, Count: cfg.ShardCount}
		mine = cfg.listsBucket
	}
	if len(cfg.Buckets) > 0 || cfg.ShardCount > 1 {
		if f := buckets; f != nil {
			buckets = func(b int32) bool { return f(b) && mine(b) }
		} else {
			buckets = mine
		}
	}
	end := cfg.EndSnapshot
	if cfg.EndAtLatest {
		id, ok, err := t.snapshots.LatestID(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("table %s: %w", t.name, &FieldError{Field: "EndAtLatest", Err: err})
		}
		if !ok {
			return nil, nil, fmt.Errorf("table %s: %w", t.name, &FieldError{Field: "EndAtLatest", Err: errors.New("the table has no snapshot yet")})
		}
		end = id
	}
	sc := stream.Config{
		Mode: cfg.StartMode, StartSnapshot: cfg.StartSnapshot, StartTime: cfg.StartTime, StartTag: cfg.StartTag,
		EndSnapshot: end, EndWatermark: cfg.EndWatermark, OnExpired: cfg.OnExpired,
		ReadOverwrite: cfg.StreamingReadOverwrite, IgnoreProgress: cfg.IgnoreConsumerProgress,
		EmitEmpty: cfg.EmitEmptyPlans, Poll: cfg.PollInterval, ConsumerID: cfg.ConsumerID,
	}
	if sc.Poll == 0 {
		sc.Poll = defaultPollInterval
	}
	if cfg.ConsumerID != "" {
		sc.Consumers = t.Consumers()
	}
	st := &streamTable{Table: t, text: cfg.Filter, built: filter, buckets: buckets, share: share, projection: cfg.Columns}
	s, err := stream.New(ctx, st, t.schema, sc)
	if err != nil {
		return nil, nil, err
	}
	return &StreamingScan{s: s}, &Read{t: t, opts: cfg.readOptions(filter, buckets)}, nil
}
