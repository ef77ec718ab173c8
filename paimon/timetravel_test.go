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
