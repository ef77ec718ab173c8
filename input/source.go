package input

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// source is the table as the input reads it: a blocking sequence of snapshot
// plans, a record reader per split, and the consumer position store. It is
// narrow so the Benthos side can be tested against a fake and the library
// adapter stays a thin translation.
//
// Commit is called from the committer goroutine and may run concurrently with
// Next and Read; Next and Read are only called from one goroutine at a time.
type source interface {
	// Next blocks until the next snapshot's plan or ctx is done, and returns
	// io.EOF once the end bound has been passed. Plans come in increasing
	// snapshot order. A failed Next may be retried and must not skip a plan.
	Next(ctx context.Context) (*snapshotPlan, error)
	// Read opens the rows of a split, as records of one schema. Rows come in
	// the same order each time a split is read, which is what lets the input
	// resume a split after a transient error by skipping rows already sent.
	Read(ctx context.Context, sp planSplit) (array.RecordReader, error)
	// Commit writes the consumer file with nextSnapshot. Sources without a
	// consumer id are never asked to commit.
	Commit(ctx context.Context, nextSnapshot int64) error
	// PrimaryKeys lists the table's primary key columns (empty for append
	// tables); upsert_mode needs them.
	PrimaryKeys() []string
	// PartitionSchema is the Arrow schema of the partition columns, which
	// renders their values in metadata as the body holds them (nil: none).
	PartitionSchema() *arrow.Schema
	// Close releases the source.
	Close() error
}

// snapshotPlan is one snapshot's work: the library's plan, whose splits the input
// reads through the narrow Split interface, with what the adapter measured
// while planning.
type snapshotPlan struct {
	*paimon.StreamPlan
	// Splits are StreamPlan.Splits (fakes in tests provide their own).
	Splits           []planSplit
	LatestSnapshotID int64         // latest snapshot when planned, 0 if unknown; feeds the lag gauge
	PlanLatency      time.Duration // time spent planning, excluding idle polling
}

// planSplit is what the input needs of one partition and bucket of a plan;
// *paimon.planSplit implements it.
type planSplit interface {
	Bucket() int32
	// PartitionKeys and Partition are the partition columns and their
	// typed values, aligned.
	PartitionKeys() []string
	Partition() []any
	// Files are the split's data files; the first is the paimon_file
	// metadata.
	Files() []string
	FileCount() int
	Bytes() int64
	// RowCount is the row count the manifests record for the split's
	// files (before deletion vectors, merging and filters), for progress.
	RowCount() int64
}

// bucketCounter is a source that knows how its table lays out buckets
// (Java's BucketMode: fixed, dynamic, cross-partition, unaware, postpone)
// and, for fixed buckets, how many there are: a group gives a fixed-bucket
// table no more slots than buckets, so that every slot has work.
type bucketCounter interface {
	Buckets() (mode string, n int)
}

// toucher is a source that can rewrite its consumer file unchanged: the
// heartbeat before the first plan, when no position of this run exists
// yet (a restart waiting for the snapshot its consumer points at).
type toucher interface {
	Touch(ctx context.Context) (next int64, ok bool, err error)
}

// opener opens the source described by cfg. Its errors are what an operator
// sees when Connect keeps failing: Connect adds the table and warehouse to an
// error that does not already name them (the library's errors do).
type opener func(ctx context.Context, cfg config) (source, error)
