package paimon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// Starting a streaming scan with a consumer removes the temp files crashed
// commits of that consumer left behind (ours only, from before the start).
func TestStreamStartRemovesStaleConsumerTemp(t *testing.T) {
	ctx := context.Background()
	wh, table := demoCopy(t)
	dir := filepath.Join(table, "consumer")
	stale := filepath.Join(dir, ".consumer-c1.00112233445566ff.tmp")
	fresh := filepath.Join(dir, ".consumer-c1.ffeeddccbbaa9988.tmp")
	testenv.WriteFile(t, dir, filepath.Base(stale), "{")
	testenv.WriteFile(t, dir, filepath.Base(fresh), "{")
	old, later := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(fresh, later, later); err != nil { // written after the start
		t.Fatal(err)
	}
	_, tbl := openDemoAt(t, wh)
	if _, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temp file still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temp file (a write that may be running) was removed: %v", err)
	}
}

// Two readers with one consumer id: the second commit finds a position the
// scan neither wrote nor resumed from, and refuses to overwrite it.
func TestCommitRefusesAConsumerSomeoneElseWrote(t *testing.T) {
	ctx := context.Background()
	wh, _ := demoCopy(t)
	_, tbl := openDemoAt(t, wh)
	a, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CommitConsumer(ctx, 2); err != nil {
		t.Fatal(err)
	}
	b, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "shared", IgnoreConsumerProgress: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CommitConsumer(ctx, 4); err != nil { // b has written nothing: unchecked
		t.Fatal(err)
	}
	err = a.CommitConsumer(ctx, 3)
	if !errors.Is(err, paimon.ErrConsumerConflict) || !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "consumer-shared") {
		t.Fatalf("want ErrConsumerConflict naming the file, got %v", err)
	}
	if c, _, _ := tbl.Consumers().Consumer(ctx, "shared"); c.NextSnapshot != 4 {
		t.Fatalf("the refused commit wrote: nextSnapshot %d", c.NextSnapshot)
	}
	// A file removed by a writer's consumer expiry is written again.
	if err := tbl.Consumers().Delete(ctx, "shared"); err != nil {
		t.Fatal(err)
	}
	if err := b.CommitConsumer(ctx, 5); err != nil {
		t.Fatalf("commit after the file vanished: %v", err)
	}
}
