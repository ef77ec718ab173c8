package interop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Tables that store a read position in their options (javagen.scanopt_*): Java's batch reads
// start there, and the cases of cases-java-scanopt.json check that ours do (TestFixtures). Here:
// a position this reader does not take is refused by name, never read as the latest snapshot,
// and a stream, which starts where it is told, says that the table stores one.
func TestStoredReadPositions(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var warnings []string
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(fixturesDir(t), "warehouse"), paimon.WithWarnings(func(m string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, m)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()

	tbl, err := cat.GetTable(ctx, "javagen.scanopt_incremental")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tbl.NewReadBuilder().Plan(ctx)
	if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "incremental-between=1,3") {
		t.Fatalf("plan of a table storing incremental-between: err = %v, want a refusal naming the option", err)
	}
	// A read that names its snapshot does not need the stored position.
	if _, err := tbl.NewReadBuilder().WithSnapshot(3).Plan(ctx); err != nil {
		t.Fatalf("plan of snapshot 3: %v", err)
	}

	tbl, err = cat.GetTable(ctx, "javagen.scanopt_snapshot")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.NewReadBuilder().Plan(ctx)
	if err != nil || plan.SnapshotID != 2 {
		t.Fatalf("plan of a table storing scan.snapshot-id=2: snapshot %v, err %v", plan, err)
	}
	if _, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{EndAtLatest: true}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !slices.ContainsFunc(warnings, func(w string) bool {
		return strings.Contains(w, "scan.snapshot-id=2") && strings.Contains(w, "this stream starts as configured")
	}) {
		t.Fatalf("warnings %q, want one naming the stored position", warnings)
	}
	mu.Unlock()

	// Scan mode default starts where Java's stream of the table starts, or is refused where
	// Java's is (a tag, an incremental read).
	for _, name := range []string{"scanopt_snapshot", "scanopt_tag", "scanopt_incremental", "scanopt_latest", "scanopt_ts"} {
		t.Run(name+"/stream default", func(t *testing.T) {
			dir := filepath.Join(fixturesDir(t), "expected", "javagen."+name)
			tbl, err := cat.GetTable(ctx, "javagen."+name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readStream(ctx, tbl, paimon.StreamConfig{StartMode: paimon.StartDefault, EndAtLatest: true})
			if javaErr, rerr := os.ReadFile(filepath.Join(dir, "stream_default.error")); rerr == nil {
				if !errors.Is(err, types.ErrUnsupported) {
					t.Fatalf("Java refuses the stream (%s); ours: rows %v, err %v", strings.TrimSpace(string(javaErr)), got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := testenv.ReadSortedLines(t, filepath.Join(dir, "stream_default.jsonl"))
			if d := DiffLines(want, got); d != "" {
				t.Fatalf("stream in scan mode default differs from Java's:\n%s", d)
			}
		})
	}
}
