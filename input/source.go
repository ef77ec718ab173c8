package input

import (
	"context"
	"github.com/connect-paimon/connect-paimon/paimon"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Source is the table as the input reads it: a blocking sequence of snapshot
// plans, a record reader per split, and the consumer position store. It is
// narrow so the Benthos side can be tested against a fake and the library
// adapter stays a thin translation.
//
// Commit is called from the committer goroutine and may run concurrently with
// Next and Read; Next and Read are only called from one goroutine at a time.
type Source interface {
	// Next blocks until the next snapshot's plan or ctx is done, and returns
	// io.EOF once the end bound has been passed. Plans come in increasing
	// snapshot order. A failed Next may be retried and must not skip a plan.
	Next(ctx context.Context) (*Plan, error)
	// Read opens the rows of a split, as records of one schema. Rows come in
	// the same order each time a split is read, which is what lets the input
	// resume a split after a transient error by skipping rows already sent.
	Read(ctx context.Context, sp *Split) (array.RecordReader, error)
	// Commit writes the consumer file with nextSnapshot. Sources without a
	// consumer id are never asked to commit.
	Commit(ctx context.Context, nextSnapshot int64) error
	// PrimaryKeys lists the table's primary key columns (empty for append
	// tables); upsert_mode needs them.
	PrimaryKeys() []string
	// Close releases the source.
	Close() error
}

// Plan is one snapshot's work.
type Plan struct {
	SnapshotID       int64
	CommitKind       string
	CommitTime       time.Time
	SchemaID         int64
	LatestSnapshotID int64         // latest snapshot when planned, 0 if unknown; feeds the lag gauge
	PlanLatency      time.Duration // time spent planning, excluding idle polling
	Splits           []*Split
	// Full is true for a plan that reads the snapshot in full (the start of
	// latest-full and the other full modes, on_expired: latest-full): its
	// rows stand for every earlier snapshot, so no consumer position before
	// SnapshotID+1 is true while it is being delivered.
	Full bool
	// Expired is set when the position had expired and on_expired moved
	// it on (rows were lost): the input logs it at WARN.
	Expired *paimon.ExpiredSkip
}

// Split is one partition and bucket of a plan.
type Split struct {
	// Partition maps partition column names to values that Bloblang
	// understands (string, int64, float64, bool, time.Time, nil). It is shared
	// by every message of the split as immutable metadata.
	Partition map[string]any
	Bucket    int32
	File      string // a data file of the split, for the paimon_file metadata
	FileCount int
	Bytes     int64
	// Rows is the row count the manifests record for the split's files
	// (before deletion vectors, merging and filters), for progress.
	Rows int64
	// Handle is the source's own split value, passed back to Read.
	Handle any
}

// toucher is a Source that can rewrite its consumer file unchanged: the
// heartbeat before the first plan, when no position of this run exists
// yet (a restart waiting for the snapshot its consumer points at).
type toucher interface {
	Touch(ctx context.Context) (next int64, ok bool, err error)
}

// Opener opens the source described by cfg. Its errors are what an operator
// sees when Connect keeps failing: Connect adds the table and warehouse to an
// error that does not already name them (the library's errors do).
type Opener func(ctx context.Context, cfg Config) (Source, error)
