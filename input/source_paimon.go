package input

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/readspec"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
)

func init() {
	service.MustRegisterBatchInput("paimon", inputSpec(), newConstructor(openTable))
}

// openTable is the opener over the paimon library: a filesystem catalog at
// cfg.Warehouse and the streaming scan cfg.StreamConfig describes. The
// library's errors already name the warehouse or the table; this layer only
// names the configuration field a validation error is about.
func openTable(ctx context.Context, cfg config) (source, error) {
	alloc := cfg.alloc
	if alloc == nil {
		alloc = newAllocator()
	}
	opts := append([]paimon.CatalogOption{paimon.WithStorageOptions(cfg.Storage), paimon.WithAllocator(alloc)}, cfg.Catalog.CatalogOptions()...)
	if cfg.warn != nil {
		opts = append(opts, paimon.WithWarnings(cfg.warn))
	}
	if cfg.meta != nil {
		opts = append(opts, paimon.WithMetadataCache(cfg.meta))
	}
	cat, err := paimon.OpenCatalog(ctx, cfg.Warehouse, opts...)
	if err != nil {
		return nil, err
	}
	var topts []paimon.TableOption
	if cfg.Branch != "" && cfg.Branch != "main" {
		topts = append(topts, paimon.WithBranch(cfg.Branch))
	}
	tbl, err := cat.GetTable(ctx, cfg.FullName(), topts...)
	if err != nil {
		_ = cat.Close()
		return nil, fmt.Errorf("%s %s: %w", cfg.Catalog.warehouseDoc(), cfg.Warehouse, err)
	}
	src := &tableSource{cat: cat, tbl: tbl, changelog: readsChangelog(tbl), mirror: cfg.mirrorConsumer}
	// A type the reader refuses fails the read of the same column, naming
	// it; until then the values render without their Arrow unit.
	src.partitions, _ = paimon.ArrowSchema(tbl.Schema().PartitionFields())
	sc := cfg.streamConfig()
	sc.Stats = &src.stats
	if src.scan, src.read, err = tbl.NewStreamingScan(ctx, sc); err != nil {
		_ = cat.Close()
		if named := readspec.Named(err, yamlField); named != err {
			return nil, fmt.Errorf("table %s: %w", tbl.Name(), named)
		}
		return nil, err
	}
	return src, nil
}

// newAllocator returns the Arrow allocator of one input's reads: a pool of
// its own (no pool is shared between inputs), so that the buffers of a
// record batch, released once the prefetcher has encoded it, serve the next
// batch instead of becoming garbage; the input keeps no Arrow memory past
// that Release. The input's tests replace it with arrowpool's checking
// mode, which proves that.
var newAllocator = func() memory.Allocator { return arrowpool.New(arrowpool.Options{}) }

// tableSource adapts a StreamingScan. Commit runs on the committer goroutine
// while Next may be polling; StreamingScan.CommitConsumer only uses the
// consumer manager and id fixed at construction, which is what makes that
// overlap safe (the input's commitMu already serialises commits).
type tableSource struct {
	cat   *paimon.Catalog
	tbl   *paimon.Table
	read  *paimon.Read
	scan  *paimon.StreamingScan
	stats paimon.ReadStats
	// partitions is the Arrow schema of the partition columns.
	partitions *arrow.Schema
	// changelog: the stream reads the commits' changelog files (a
	// primary-key table with a changelog producer), not their deltas.
	changelog bool
	// bounds serves SnapshotBounds (only the lag monitor calls it).
	bounds *snapshotBounds
	// mirror writes the consumer file without the ownership check
	// (config.mirrorConsumer).
	mirror bool
}

// readsChangelog tells whether a stream of tbl reads changelog files, as
// the library's scan decides (by the schema the table was opened with).
func readsChangelog(tbl *paimon.Table) bool {
	sch := tbl.Schema()
	p := sch.ChangelogProducer()
	return len(sch.PrimaryKeys) > 0 && p != "" && p != "none"
}

// SnapshotBounds implements lagSource.
func (s *tableSource) SnapshotBounds(ctx context.Context) (earliest, latest int64, ok bool, err error) {
	if s.bounds == nil {
		snaps, hist := s.tbl.Snapshots(), s.tbl.History()
		s.bounds = &snapshotBounds{latest: snaps.LatestID, exists: snaps.Exists, earliest: hist.EarliestID, now: time.Now}
	}
	return s.bounds.get(ctx)
}

// SnapshotMeta implements lagSource: the rows a stream reads from a
// snapshot are its changelog's, or the delta of an APPEND commit (other
// commits — compactions, overwrites — carry no new rows for it).
func (s *tableSource) SnapshotMeta(ctx context.Context, id int64) (snapshotMeta, error) {
	snap, err := s.tbl.History().Snapshot(ctx, id)
	if err != nil {
		return snapshotMeta{}, err
	}
	m := snapshotMeta{Time: time.UnixMilli(snap.TimeMillis)}
	switch {
	case s.changelog:
		if snap.ChangelogRecordCount != nil {
			m.Records = *snap.ChangelogRecordCount
		}
	case snap.CommitKind == "APPEND" && snap.DeltaRecordCount != nil:
		m.Records = *snap.DeltaRecordCount
	}
	return m, nil
}

// ReadCounts reports the files and bytes the reads really opened, which
// differs from the plan when a reconnect re-reads a split.
func (s *tableSource) ReadCounts() (files, bytes int64) {
	return s.stats.FilesRead.Load(), s.stats.BytesRead.Load()
}

func (s *tableSource) Next(ctx context.Context) (*snapshotPlan, error) {
	start := time.Now()
	sp, err := s.scan.Next(ctx)
	if err != nil {
		if named := readspec.Named(err, yamlField); named != err {
			// A start past the latest snapshot, and a filter resolved in
			// the schema of the first plan, fail in Next.
			return nil, fmt.Errorf("table %s: %w", s.tbl.Name(), named)
		}
		return nil, err
	}
	plan := &snapshotPlan{StreamPlan: sp, PlanLatency: time.Since(start), Splits: make([]planSplit, len(sp.Splits))}
	for i, x := range sp.Splits {
		plan.Splits[i] = x
	}
	if latest, ok, err := s.tbl.Snapshots().LatestID(ctx); err == nil && ok {
		plan.LatestSnapshotID = latest
	}
	return plan, nil
}

// Read reads a split of this source's plans: always a *paimon.Split.
func (s *tableSource) Read(ctx context.Context, sp planSplit) (array.RecordReader, error) {
	return s.read.Read(ctx, sp.(*paimon.Split))
}

func (s *tableSource) Commit(ctx context.Context, next int64) error {
	if s.mirror {
		return s.tbl.Consumers().Reset(ctx, s.scan.ConsumerID(), consumer.Consumer{NextSnapshot: next})
	}
	return s.scan.CommitConsumer(ctx, next)
}

// Touch implements toucher.
func (s *tableSource) Touch(ctx context.Context) (int64, bool, error) {
	if s.mirror {
		m, id := s.tbl.Consumers(), s.scan.ConsumerID()
		c, ok, err := m.Consumer(ctx, id)
		if err != nil || !ok {
			return 0, ok, err
		}
		return c.NextSnapshot, true, m.Reset(ctx, id, c)
	}
	return s.scan.TouchConsumer(ctx)
}

func (s *tableSource) PrimaryKeys() []string { return s.tbl.Schema().PrimaryKeys }

// Buckets implements bucketCounter.
func (s *tableSource) Buckets() (string, int) {
	return s.tbl.Schema().BucketMode(), s.tbl.Schema().NumBuckets()
}

// Close closes the catalog's storage client (an object store's
// connections).
func (s *tableSource) Close() error { return s.cat.Close() }

// PartitionSchema implements source.
func (s *tableSource) PartitionSchema() *arrow.Schema { return s.partitions }
