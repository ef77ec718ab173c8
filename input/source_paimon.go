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
	"github.com/connect-paimon/connect-paimon/internal/rowjson"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func init() {
	service.MustRegisterBatchInput("paimon", Spec(), NewConstructor(OpenTable))
}

// OpenTable is the Opener over the paimon library: a filesystem catalog at
// cfg.Warehouse and the streaming scan cfg.StreamConfig describes. The
// library's errors already name the warehouse or the table; this layer only
// names the configuration field a validation error is about.
func OpenTable(ctx context.Context, cfg Config) (Source, error) {
	opts := append([]paimon.CatalogOption{paimon.WithStorageOptions(cfg.Storage), paimon.WithAllocator(newAllocator())}, cfg.Catalog.CatalogOptions()...)
	if cfg.warn != nil {
		opts = append(opts, paimon.WithWarnings(cfg.warn))
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
	src := &tableSource{cat: cat, tbl: tbl}
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
}

// ReadCounts reports the files and bytes the reads really opened, which
// differs from the plan when a reconnect re-reads a split.
func (s *tableSource) ReadCounts() (files, bytes int64) {
	return s.stats.FilesRead.Load(), s.stats.BytesRead.Load()
}

func (s *tableSource) Next(ctx context.Context) (*Plan, error) {
	start := time.Now()
	sp, err := s.scan.Next(ctx)
	if err != nil {
		return nil, err
	}
	plan := &Plan{
		SnapshotID:  sp.SnapshotID,
		CommitKind:  sp.CommitKind,
		CommitTime:  sp.CommitTime,
		SchemaID:    sp.SchemaID,
		PlanLatency: time.Since(start),
		Full:        sp.FirstPlan,
		Expired:     sp.Expired,
	}
	if latest, ok, err := s.tbl.Snapshots().LatestID(ctx); err == nil && ok {
		plan.LatestSnapshotID = latest
	}
	units := s.partitionUnits()
	for _, x := range sp.Splits {
		out := &Split{Bucket: x.Bucket(), Handle: x, Partition: map[string]any{}}
		keys, vals := x.PartitionKeys(), x.Partition()
		for i, k := range keys {
			if i < len(vals) {
				out.Partition[k] = metaValue(vals[i], units[k])
			}
		}
		out.FileCount, out.Bytes, out.Rows = x.FileCount(), x.Bytes(), x.RowCount()
		if files := x.Files(); len(files) > 0 {
			out.File = files[0]
		}
		plan.Splits = append(plan.Splits, out)
	}
	return plan, nil
}

func (s *tableSource) Read(ctx context.Context, sp *Split) (array.RecordReader, error) {
	x, ok := sp.Handle.(*paimon.Split)
	if !ok {
		return nil, fmt.Errorf("split handle is %T, not a paimon split", sp.Handle)
	}
	return s.read.Read(ctx, x)
}

func (s *tableSource) Commit(ctx context.Context, next int64) error {
	return s.scan.CommitConsumer(ctx, next)
}

// Touch implements toucher.
func (s *tableSource) Touch(ctx context.Context) (int64, bool, error) {
	return s.scan.TouchConsumer(ctx)
}

func (s *tableSource) PrimaryKeys() []string { return s.tbl.Schema().PrimaryKeys }

// Close closes the catalog's storage client (an object store's
// connections).
func (s *tableSource) Close() error { return s.cat.Close() }

// partitionUnits maps each TIMESTAMP/TIMESTAMP_LTZ partition column to
// its Arrow type, the one its body column has.
func (s *tableSource) partitionUnits() map[string]*arrow.TimestampType {
	fields := s.tbl.Schema().PartitionFields()
	sch, err := paimon.ArrowSchema(fields)
	if err != nil {
		return nil // the read fails on the same schema, naming the column
	}
	out := map[string]*arrow.TimestampType{}
	for _, f := range sch.Fields() {
		if tt, ok := f.Type.(*arrow.TimestampType); ok {
			out[f.Name] = tt
		}
	}
	return out
}

// PartitionValues is the paimon_partition metadata of a split of tbl, for
// other tools that show partitions (the CLI's files command).
func PartitionValues(tbl *paimon.Table, sp *paimon.Split) map[string]any {
	units := (&tableSource{tbl: tbl}).partitionUnits()
	out := map[string]any{}
	keys, vals := sp.PartitionKeys(), sp.Partition()
	for i, k := range keys {
		if i < len(vals) {
			out[k] = metaValue(vals[i], units[k])
		}
	}
	return out
}

// metaValue turns a partition value into one Bloblang understands; exact
// decimals and calendar values become their canonical strings, timestamps
// the text the body holds (ts, their column's Arrow type: a TIMESTAMP has no
// zone and gets no "Z", digits per precision).
func metaValue(v any, ts *arrow.TimestampType) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64, []byte:
		return x
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case types.DecimalValue:
		return x.String()
	case types.DateValue:
		return x.String()
	case types.TimeValue:
		return x.String()
	case types.TimestampValue:
		if ts == nil {
			return x.String()
		}
		var e int64
		switch ts.Unit {
		case arrow.Second:
			e = x.Millis / 1000
			if x.Millis%1000 < 0 {
				e--
			}
		case arrow.Millisecond:
			e = x.Millis
		case arrow.Microsecond:
			e = x.Millis*1000 + int64(x.NanoOfMilli)/1000
		default:
			e = x.Millis*1_000_000 + int64(x.NanoOfMilli)
		}
		return rowjson.TimestampText(e, ts.Unit, ts.TimeZone != "")
	}
	return fmt.Sprint(v)
}
