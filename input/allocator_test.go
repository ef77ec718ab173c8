package input

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
)

// TestOpenTableReadsThroughItsOwnAllocator: each input gets an allocator
// of its own (newAllocator: the pool in production, the checking mode in
// these tests) and every Arrow buffer of its reads comes from it and goes
// back to it once the records are released, which is what lets the pool
// reuse them and what makes the checking mode cover the input's reads.
func TestOpenTableReadsThroughItsOwnAllocator(t *testing.T) {
	var made []*arrowpool.Checked
	prev := newAllocator
	newAllocator = func() memory.Allocator {
		c := arrowpool.NewChecked()
		made = append(made, c)
		return c
	}
	t.Cleanup(func() { newAllocator = prev })

	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	cfg := config{Warehouse: wh, Database: "demo", Table: "orders", Read: paimon.StreamConfig{StartMode: paimon.StartLatestFull, PollInterval: time.Second, EndAtLatest: true, ShardCount: 1}}
	ctx := context.Background()
	var rows int64
	for i := 0; i < 2; i++ {
		src, err := openTable(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for {
			plan, err := src.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range plan.Splits {
				rr, err := src.Read(ctx, sp)
				if err != nil {
					t.Fatal(err)
				}
				for rr.Next() {
					rows += rr.RecordBatch().NumRows()
				}
				if err := rr.Err(); err != nil {
					t.Fatal(err)
				}
				rr.Release()
			}
		}
		_ = src.Close()
	}
	if len(made) != 2 || made[0] == made[1] {
		t.Fatalf("%d allocators for two inputs, want one each", len(made))
	}
	if rows == 0 {
		t.Fatal("read no rows")
	}
	for i, c := range made {
		if c.Allocations() == 0 {
			t.Errorf("input %d: its reads allocated nothing through its allocator", i)
		}
		if n := c.LiveBytes(); n != 0 {
			t.Errorf("input %d: %d bytes never freed after every record was released", i, n)
		}
		if err := c.Err(); err != nil {
			t.Error(err)
		}
	}
}
