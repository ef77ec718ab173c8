package paimon_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// Shards of a bucket-unaware table (demo.orders: bucket = -1, every file in
// bucket 0) split it by data file: for every shard count, every row of the
// stream (first full plan, then each snapshot's delta) is read by exactly
// one shard, and with two shards both read some (the table has 9 files).
func TestShardsSplitBucketUnawareTableByFile(t *testing.T) {
	ctx := context.Background()
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	cat, err := paimon.OpenCatalog(ctx, wh, interop.CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		t.Fatal(err)
	}
	if m := tbl.Schema().BucketMode(); m != "unaware" {
		t.Fatalf("fixture changed: demo.orders is %s, not bucket-unaware", m)
	}
	read := func(cfg paimon.StreamConfig) []string {
		t.Helper()
		sc, rd, err := tbl.NewStreamingScan(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for {
			p, err := sc.Next(ctx)
			if errors.Is(err, io.EOF) {
				slices.Sort(out)
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			lines, err := interop.ReadSplits(ctx, rd, p.Splits)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, lines...)
		}
	}
	for _, mode := range []paimon.StartMode{paimon.StartLatestFull, paimon.StartFromSnapshot} {
		base := paimon.StreamConfig{StartMode: mode, EndAtLatest: true}
		if mode == paimon.StartFromSnapshot {
			base.StartSnapshot = 1
		}
		all := read(base)
		if len(all) != 300 {
			t.Fatalf("%s: the whole table is %d rows, want 300", mode, len(all))
		}
		for count := 2; count <= 4; count++ {
			var union []string
			for i := 0; i < count; i++ {
				cfg := base
				cfg.ShardIndex, cfg.ShardCount = i, count
				part := read(cfg)
				if count == 2 && len(part) == 0 {
					t.Errorf("%s: shard %d of 2 read no row", mode, i)
				}
				union = append(union, part...)
			}
			slices.Sort(union)
			if d := interop.DiffLines(all, union); d != "" {
				t.Fatalf("%s: the %d shards together differ from the whole table (a row read twice or never):\n%s", mode, count, d)
			}
		}
	}
}

// Readers of one table that share a MetadataCache (the slots of a group
// replica, each in its own catalog) decode each manifest once between
// them, and every one still reads exactly the rows it reads without the
// cache: demo.orders (bucket-unaware, shares by file) and
// javagen.orc_bucket (fixed buckets, partitioned), each shard followed
// from snapshot 1 (every snapshot's delta planned) and from its latest
// full plan.
func TestSharedMetadataCacheReadsTheSameRows(t *testing.T) {
	ctx := context.Background()
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	read := func(cache *paimon.MetadataCache, table string, cfg paimon.StreamConfig) []string {
		t.Helper()
		opts := []paimon.CatalogOption{interop.CheckedAlloc(t)}
		if cache != nil {
			opts = append(opts, paimon.WithMetadataCache(cache))
		}
		cat, err := paimon.OpenCatalog(ctx, wh, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		tbl, err := cat.GetTable(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		sc, rd, err := tbl.NewStreamingScan(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for {
			p, err := sc.Next(ctx)
			if errors.Is(err, io.EOF) {
				slices.Sort(out)
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			lines, err := interop.ReadSplits(ctx, rd, p.Splits)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, lines...)
		}
	}
	for _, table := range []string{"demo.orders", "javagen.orc_bucket"} {
		for _, base := range []paimon.StreamConfig{
			{StartMode: paimon.StartFromSnapshotFull, StartSnapshot: 1, EndAtLatest: true},
			{StartMode: paimon.StartLatestFull, EndAtLatest: true},
		} {
			cache := paimon.NewMetadataCache(64 << 20)
			const shards = 3
			for i := 0; i < shards; i++ {
				cfg := base
				cfg.ShardIndex, cfg.ShardCount = i, shards
				want := read(nil, table, cfg)
				if got := read(cache, table, cfg); interop.DiffLines(want, got) != "" {
					t.Fatalf("%s %s shard %d through the shared cache:\n%s", table, base.StartMode, i, interop.DiffLines(want, got))
				}
			}
			// One reader of the whole table decodes every file the shards
			// need (shards of fixed buckets skip manifests of other buckets).
			whole := paimon.NewMetadataCache(64 << 20)
			read(whole, table, base)
			_, files := whole.Stats()
			hits, misses := cache.Stats()
			if misses == 0 || misses > files || hits == 0 {
				t.Fatalf("%s %s: %d cache hits and %d decodes for %d readers of %d metadata files: a file was decoded twice", table, base.StartMode, hits, misses, shards, files)
			}
		}
	}
}
