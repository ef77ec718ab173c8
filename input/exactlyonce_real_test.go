package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestExactlyOnceConsumerFileMirrors: under exactly once the consumer file
// only mirrors the position committed in the sink's transaction, so a file
// another pipeline with the same consumer_id rewrote (a fenced zombie's
// late write) does not stop the input, as it stops an at-least-once one:
// the input writes its committed position over it. Real table, real
// consumer file.
func TestExactlyOnceConsumerFileMirrors(t *testing.T) {
	for _, eo := range []bool{true, false} {
		t.Run(fmt.Sprintf("exactly_once=%v", eo), func(t *testing.T) {
			wh := t.TempDir()
			testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse"), wh)
			txn := &fakeTxn{}
			var sink *fakeTxn
			if eo {
				sink = txn
			}
			in := inputWithTxn(t, fmt.Sprintf("warehouse: %s\ntable: demo.orders\nconsumer_id: eo\nbatch_size: 100\ncommit_period: 5ms\nheartbeat_interval: 20ms\n", wh), sink, openTable)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			defer func() { _ = in.Close(context.Background()) }()
			if err := in.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(wh, "demo.db", "orders", "consumer", "consumer-eo")
			holds := func() int64 {
				var c struct{ NextSnapshot int64 }
				b, _ := os.ReadFile(file)
				_ = json.Unmarshal(b, &c)
				return c.NextSnapshot
			}
			// The first plan (snapshot 3 in full): one batch, written and
			// acknowledged; the next read parks on the empty table end,
			// so it runs in the background.
			b, ack, err := in.ReadBatch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			txn.write(batchBodies(b))
			if err := ack(ctx, nil); err != nil {
				t.Fatal(err)
			}
			go func() {
				for ctx.Err() == nil {
					if _, ack, err := in.ReadBatch(ctx); err == nil {
						_ = ack(ctx, nil)
					} else if errors.Is(err, service.ErrEndOfInput) {
						return
					}
				}
			}()
			const want = 4
			waitUntil(t, 10*time.Second, func() bool { return holds() == want }, func() string { return fmt.Sprintf("the consumer file holds %d", holds()) })
			// A second pipeline with this consumer_id writes its own
			// position.
			if err := os.WriteFile(file, []byte(`{"nextSnapshot":2}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if !eo {
				waitUntil(t, 10*time.Second, func() bool { return in.stopErr.Load() != nil }, func() string { return "the at-least-once input kept running" })
				if err := *in.stopErr.Load(); !errors.Is(err, paimon.ErrConsumerConflict) {
					t.Fatalf("stopped on %v, want a consumer conflict", err)
				}
				return
			}
			waitUntil(t, 10*time.Second, func() bool { return holds() == want }, func() string { return fmt.Sprintf("the consumer file holds %d", holds()) })
			if p := in.stopErr.Load(); p != nil {
				t.Fatalf("the exactly-once input stopped: %v", *p)
			}
		})
	}
}

// waitUntil polls cond until it holds or d passed, then fails with what.
func waitUntil(t *testing.T, d time.Duration, cond func() bool, what func() string) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after %v: %s", d, what())
		}
	}
}
