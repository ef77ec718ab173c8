package paimon_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// Snapshot N means snapshot N (issue 11 item 8): a read of exactly one snapshot in full is
// Java's time travel and uses that snapshot's schema, whether it is a batch read or a stream
// bounded to that snapshot (tail --from snapshot-full:N --end snapshot:N, the input's bounded
// reads). A stream that goes on past N keeps the scan's (latest) schema.
func TestSnapshotNReadsSnapshotNSchema(t *testing.T) {
	ctx := context.Background()
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	cat, err := paimon.OpenCatalog(ctx, wh, interop.CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	// interop.evolution: snapshot 1 under schema 0 (with "flag", "name"); schema 4 renamed name
	// to label, dropped flag, added extra.
	tbl, err := cat.GetTable(ctx, "interop.evolution")
	if err != nil {
		t.Fatal(err)
	}
	batch := readAll(t, ctx, tbl.NewReadBuilder().WithSnapshot(1))
	if len(batch) == 0 || !strings.Contains(batch[0], `"flag":`) || strings.Contains(batch[0], `"extra":`) {
		t.Fatalf("fixture changed: the batch read of snapshot 1 should be in schema 0: %v", batch)
	}
	streamed := func(end int64) []string {
		t.Helper()
		s, rd, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromSnapshotFull, StartSnapshot: 1, EndSnapshot: end})
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Next(ctx)
		if err != nil || !p.FirstPlan || p.SnapshotID != 1 {
			t.Fatalf("first plan %+v: %v", p, err)
		}
		lines, err := interop.ReadSplits(ctx, rd, p.Splits)
		if err != nil {
			t.Fatal(err)
		}
		return lines
	}
	if got := streamed(1); strings.Join(got, "\n") != strings.Join(batch, "\n") {
		t.Fatalf("snapshot-full:1 --end snapshot:1 differs from the batch read of snapshot 1:\n%s", interop.DiffLines(batch, got))
	}
	if got := streamed(5); len(got) != len(batch) || !strings.Contains(got[0], `"extra":`) || strings.Contains(got[0], `"flag":`) {
		t.Fatalf("a stream going on past snapshot 1 should read it in the latest schema: %v", got)
	}
}

// A stream bounded to one past snapshot reads it in that snapshot's schema, so its columns are
// named in that schema too, as its filter is: a column the current schema lacks (renamed or
// dropped since) is checked at the first plan, not refused at open. A stream that does not end
// is refused at open as before, and one that goes on past the snapshot reads the latest schema,
// where such a column is refused when its first split is read.
func TestBoundedStreamProjectsInSnapshotSchema(t *testing.T) {
	ctx := context.Background()
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	cat, err := paimon.OpenCatalog(ctx, wh, interop.CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	// interop.evolution: snapshot 1 under schema 0 has "flag" and "name"; the latest schema
	// dropped flag and renamed name to label.
	tbl, err := cat.GetTable(ctx, "interop.evolution")
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"name", "flag", "id"}
	batch := readAll(t, ctx, tbl.NewReadBuilder().WithSnapshot(1).WithProjection(cols...).WithFilterExpr("flag = true"))
	if len(batch) == 0 || !strings.Contains(batch[0], `"name":`) {
		t.Fatalf("fixture changed: the batch read of snapshot 1 should have name and rows with flag = true: %v", batch)
	}
	open := func(end int64) (*paimon.StreamingScan, *paimon.Read, error) {
		return tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromSnapshotFull, StartSnapshot: 1,
			EndSnapshot: end, Columns: cols, Filter: "flag = true"})
	}
	s, rd, err := open(1)
	if err != nil {
		t.Fatalf("a stream bounded to snapshot 1 naming its columns: %v", err)
	}
	p, err := s.Next(ctx)
	if err != nil || !p.FirstPlan || p.SnapshotID != 1 {
		t.Fatalf("first plan %+v: %v", p, err)
	}
	got, err := interop.ReadSplits(ctx, rd, p.Splits)
	if err != nil {
		t.Fatal(err)
	}
	if d := interop.DiffLines(batch, got); d != "" {
		t.Fatalf("snapshot-full:1 --end snapshot:1 with columns %v differs from the batch read of snapshot 1:\n%s", cols, d)
	}
	if _, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromSnapshotFull, StartSnapshot: 1,
		Columns: cols}); err == nil || !strings.Contains(err.Error(), `no column "name"`) {
		t.Fatalf("an unbounded stream naming a column the current schema lacks must be refused at open, got %v", err)
	}
	s, rd, err = tbl.NewStreamingScan(ctx, paimon.StreamConfig{StartMode: paimon.StartFromSnapshotFull, StartSnapshot: 1,
		EndSnapshot: 5, Columns: cols})
	if err == nil {
		if p, err = s.Next(ctx); err == nil {
			_, err = interop.ReadSplits(ctx, rd, p.Splits)
		}
	}
	if err == nil || !strings.Contains(err.Error(), `no column "name"`) {
		t.Fatalf("a stream going on past snapshot 1 reads the latest schema, which lacks name: want it refused, got %v", err)
	}
}
