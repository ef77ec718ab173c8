package paimon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
)

// StreamConfig describes a streaming read as plain data, for callers that
// get it from configuration (the Benthos input, the CLI's tail). The zero
// value reads the latest snapshot in full, then follows the table, with no
// consumer.
type StreamConfig struct {
	// StartMode is where the read starts when the consumer has no position
	// (or IgnoreConsumerProgress is set).
	StartMode StartMode
	// StartSnapshot is the snapshot of StartFromSnapshot(Full); only
	// allowed with those modes.
	StartSnapshot int64
	// StartTime is the time of StartFromTimestamp; only allowed with it.
	StartTime time.Time
	// StartTag is the tag of StartFromTag; only allowed with it.
	StartTag string

	// EndSnapshot ends the stream (io.EOF) after this snapshot; 0: none.
	EndSnapshot int64
	// EndAtLatest ends the stream after the snapshot that is the latest
	// when the scan is created; the table must have one. Excludes
	// EndSnapshot.
	EndAtLatest bool
	// EndWatermark, when set, ends the stream at the first snapshot whose
	// watermark exceeds it (Java's scan.bounded.watermark); that snapshot
	// is not read.
	EndWatermark *int64

	// Filter is a predicate in predicate.Parse's syntax; "" keeps all rows.
	Filter string
	// Columns is the projection; nil reads all columns.
	Columns []string
	// Buckets reads only these buckets; nil reads all.
	Buckets []int32
	// ShardIndex and ShardCount split the table among ShardCount readers,
	// each with its own consumer. A table with buckets is split by bucket:
	// this reader reads the buckets b with |b| % ShardCount == ShardIndex
	// (negative ids, Paimon's postpone and dynamic placeholders, by their
	// absolute value, so every bucket has one owner). A bucket-unaware
	// table (bucket = -1 without a primary key: every file in bucket 0) is
	// split by data file: a fixed hash of the file's partition and name,
	// modulo ShardCount. ShardCount 0 or 1 reads everything.
	ShardIndex, ShardCount int

	// ConsumerID resumes from, and lets the caller commit to, the consumer
	// file consumer/consumer-<id>; "" keeps no progress.
	ConsumerID string
	// IgnoreConsumerProgress starts by StartMode even when the consumer has
	// a position (Java's consumer.ignore-progress).
	IgnoreConsumerProgress bool
	// OnExpired is what happens when the next snapshot was expired away.
	OnExpired ExpiredPolicy
	// StreamingReadOverwrite, when set, overrides the table option
	// streaming-read-overwrite (streaming-read-append-overwrite on an
	// append table; see StreamReadBuilder.WithStreamingReadOverwrite).
	StreamingReadOverwrite *bool

	// PollInterval is the wait between looks for a new snapshot (0:
	// DefaultPollInterval).
	PollInterval time.Duration
	// IncludeRowKind adds the leading types.RowKindColumn.
	IncludeRowKind bool
	// EmitEmptyPlans makes the scan return a plan for every snapshot it
	// passes, also skipped or fully pruned ones (see WithEmitEmptyPlans).
	EmitEmptyPlans bool
	// BatchSize is the rows per record batch (0: 4,096).
	BatchSize int
	// Dictionary lets the reads return Arrow dictionary arrays
	// (see ReadBuilder.WithDictionary; default false: plain arrays).
	Dictionary bool
	// WideTimestamps gives the reads' TIMESTAMP(7..9) columns as
	// types.WideTimestampType (see ReadBuilder.WithWideTimestamps;
	// default false: Arrow nanosecond timestamps).
	WideTimestamps bool
	// Allocator allocates the Arrow buffers (nil: the catalog's
	// WithAllocator, else the Go allocator); see ReadBuilder.WithAllocator.
	Allocator memory.Allocator
	// Stats, when set, counts what the reads opened.
	Stats *ReadStats
}

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Validate checks the configuration on its own, without a table: start
// mode and position, end bound, columns, buckets, shard, consumer id,
// policy. Every problem is reported (errors.Join of *FieldError, one per
// field at most); the filter and the columns' existence need the schema and
// are checked by NewStreamingScan.
func (c *StreamConfig) Validate() error {
	var errs []error
	for _, check := range []func() error{c.checkStart, c.checkEnd, c.checkColumns, c.checkBuckets, c.checkShard, c.checkRest} {
		err := check()
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			errs = append(errs, joined.Unwrap()...)
		} else if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *StreamConfig) checkStart() error {
	switch {
	case c.StartSnapshot != 0 && !c.StartMode.NeedsSnapshot():
		return fieldErr("StartSnapshot", "only used with scan mode from-snapshot or from-snapshot-full, not %s", c.StartMode)
	case !c.StartTime.IsZero() && c.StartMode != StartFromTimestamp:
		return fieldErr("StartTime", "only used with scan mode from-timestamp, not %s", c.StartMode)
	case c.StartTag != "" && c.StartMode != StartFromTag:
		return fieldErr("StartTag", "only used with scan mode from-tag, not %s", c.StartMode)
	case c.StartMode == StartFromTag && c.StartTag == "":
		return fieldErr("StartTag", "required by scan mode from-tag")
	case c.StartMode == StartFromTag && (c.EndSnapshot > 0 || c.EndAtLatest):
		return fieldErr("StartMode", "from-tag ends after the tag's snapshot: no end bound is needed")
	}
	return checkStart(c.StartMode, c.StartSnapshot, c.StartTime)
}

func (c *StreamConfig) checkEnd() error {
	switch {
	case c.EndSnapshot < 0:
		return fieldErr("EndSnapshot", "must be at least 1, got %d", c.EndSnapshot)
	case c.EndSnapshot > 0 && c.EndAtLatest:
		return fieldErr("EndSnapshot", "an end snapshot and an end at the latest snapshot are mutually exclusive")
	case c.EndSnapshot > 0 && c.StartSnapshot > 0 && c.EndSnapshot < c.StartSnapshot:
		return fieldErr("EndSnapshot", "%d is before the start snapshot %d", c.EndSnapshot, c.StartSnapshot)
	}
	return nil
}

func (c *StreamConfig) checkColumns() error {
	seen := make(map[string]bool, len(c.Columns))
	for _, col := range c.Columns {
		if col == "" {
			return fieldErr("Columns", "empty column name")
		}
		if seen[col] {
			return fieldErr("Columns", "column %q listed twice", col)
		}
		seen[col] = true
	}
	return nil
}

func (c *StreamConfig) checkBuckets() error {
	for _, b := range c.Buckets {
		if b < 0 {
			return fieldErr("Buckets", "bucket %d is negative", b)
		}
	}
	return nil
}

func (c *StreamConfig) checkShard() error {
	switch {
	case c.ShardCount < 0:
		return fieldErr("ShardCount", "must be at least 1, got %d", c.ShardCount)
	case c.ShardIndex < 0 || c.ShardIndex >= max(c.ShardCount, 1):
		return fieldErr("ShardIndex", "must be in [0, %d), got %d", max(c.ShardCount, 1), c.ShardIndex)
	}
	return nil
}

// checkRest checks the fields that stand alone; each is its own error.
func (c *StreamConfig) checkRest() error {
	var errs []error
	if c.ConsumerID != "" {
		if err := consumer.ValidateID(c.ConsumerID); err != nil {
			errs = append(errs, &FieldError{Field: "ConsumerID", Err: err})
		}
	}
	if c.Filter != "" {
		// The grammar needs no table; columns and literal types are
		// checked against the schema by NewStreamingScan.
		if err := predicate.CheckSyntax(c.Filter); err != nil {
			errs = append(errs, &FieldError{Field: "Filter", Err: err})
		}
	}
	if !c.OnExpired.Valid() {
		errs = append(errs, fieldErr("OnExpired", "unknown policy %d", int(c.OnExpired)))
	}
	if c.PollInterval < 0 {
		errs = append(errs, fieldErr("PollInterval", "must not be negative, got %s", c.PollInterval))
	}
	if c.BatchSize < 0 {
		errs = append(errs, fieldErr("BatchSize", "must not be negative, got %d", c.BatchSize))
	}
	return errors.Join(errs...)
}

// checkStart is the start-position rule of every streaming scan: a known
// mode, and the snapshot or time the mode needs.
func checkStart(mode StartMode, snap int64, at time.Time) error {
	if !mode.Valid() {
		return fieldErr("StartMode", "unknown start mode %d", int(mode))
	}
	switch {
	case mode.NeedsSnapshot() && snap == 0:
		return fieldErr("StartSnapshot", "required by scan mode %s", mode)
	case snap < 0:
		return fieldErr("StartSnapshot", "must be at least 1, got %d", snap)
	case mode == StartFromTimestamp && at.IsZero():
		return fieldErr("StartTime", "required by scan mode from-timestamp")
	}
	return nil
}

// ReadsBucket reports whether the configuration reads bucket b of a table
// with buckets: it is in Buckets (when set) and in this shard.
func (c *StreamConfig) ReadsBucket(b int32) bool {
	return c.listsBucket(b) && c.shardHasBucket(b)
}

func (c *StreamConfig) listsBucket(b int32) bool {
	return len(c.Buckets) == 0 || slices.Contains(c.Buckets, b)
}

func (c *StreamConfig) shardHasBucket(b int32) bool {
	if c.ShardCount <= 1 {
		return true
	}
	v := int64(b)
	if v < 0 {
		v = -v
	}
	return v%int64(c.ShardCount) == int64(c.ShardIndex)
}

// NewStreamingScan validates cfg against the table and returns the
// streaming scan it describes and the reader of the scan's splits.
// EndAtLatest is resolved here, to the latest snapshot at this call.
func (t *Table) NewStreamingScan(ctx context.Context, cfg StreamConfig) (*StreamingScan, *Read, error) {
	return t.openStream(ctx, cfg, nil, nil)
}

// readOptions are the options of the reads of the splits cfg's scan plans.
func (c *StreamConfig) readOptions(filter *predicate.Predicate, buckets func(int32) bool) readOptions {
	return readOptions{
		Projection: append([]string(nil), c.Columns...), Filter: filter, BatchSize: c.BatchSize,
		Allocator: c.Allocator, BucketFilter: buckets, IncludeRowKind: c.IncludeRowKind,
		Stats: c.Stats, Dictionary: c.Dictionary, WideTimestamps: c.WideTimestamps,
	}
}
