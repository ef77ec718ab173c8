package paimon_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// An empty snapshot file is corrupt metadata: an error naming the file in
// batch and streaming reads. encoding/json reports an empty input as
// io.EOF; wrapped, it used to end a stream cleanly with no rows (tail
// exited 0).
func TestEmptySnapshotFileIsAnError(t *testing.T) {
	ctx := context.Background()
	wh, table := demoCopy(t)
	snapDir := filepath.Join(table, "snapshot")
	ids, err := filepath.Glob(filepath.Join(snapDir, "snapshot-*"))
	if err != nil || len(ids) < 2 {
		t.Fatalf("fixture snapshots: %v %v", ids, err)
	}
	latest := filepath.Join(snapDir, "snapshot-3")
	if err := os.WriteFile(latest, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, tbl := openDemoAt(t, wh)
	check := func(what string, err error) {
		t.Helper()
		if err == nil || errors.Is(err, io.EOF) || !errors.Is(err, types.ErrCorrupt) || !strings.Contains(err.Error(), "snapshot-3") {
			t.Fatalf("%s: want ErrCorrupt naming snapshot-3 (and no io.EOF), got %v", what, err)
		}
	}
	_, err = tbl.NewReadBuilder().Plan(ctx)
	check("batch plan", err)

	// The full first plan reads snapshot 3; following from snapshot 1 meets
	// it as the third delta.
	for _, cfg := range []paimon.StreamConfig{
		{StartMode: paimon.StartLatestFull},
		{StartMode: paimon.StartFromSnapshot, StartSnapshot: 1},
	} {
		mode := cfg.StartMode
		sc, _, err := tbl.NewStreamingScan(ctx, cfg)
		if err != nil {
			check("open stream "+mode.String(), err)
			continue
		}
		var last error
		for i := 0; i < 10; i++ {
			if _, last = sc.Next(ctx); last != nil {
				break
			}
		}
		check("stream "+mode.String(), last)
	}
}
