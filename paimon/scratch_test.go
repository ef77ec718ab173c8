package paimon_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// With no allocator chosen, the pages behind a read come from the table's
// scratch pool, but its record batches stay Go memory that a caller may
// still read after Release, as with the Go allocator: reading on, which
// reuses the pool's buffers, must not change the values kept from earlier
// batches. (Were the batches pooled too, their buffers would be handed to
// the next batches and the kept values overwritten.)
func TestDefaultReadBatchesOutliveScratchReuse(t *testing.T) {
	ctx := context.Background()
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	cat, err := paimon.OpenCatalog(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		t.Fatal(err)
	}
	rb := tbl.NewReadBuilder().WithBatchSize(2)
	plan, err := rb.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The bytes of every buffer of every batch of the first read: aliases
	// of the batch's memory, and copies to compare them with at the end.
	var kept, want [][]byte
	var keep func(d arrow.ArrayData)
	keep = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil && b.Len() > 0 {
				kept = append(kept, b.Bytes())
				want = append(want, bytes.Clone(b.Bytes()))
			}
		}
		for _, c := range d.Children() {
			keep(c)
		}
	}
	for round := 0; round < 3; round++ {
		for _, sp := range plan.Splits {
			rr, err := rb.NewRead().Read(ctx, sp)
			if err != nil {
				t.Fatal(err)
			}
			for rr.Next() {
				if round == 0 {
					for _, c := range rr.RecordBatch().Columns() {
						keep(c.Data())
					}
				}
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			rr.Release()
		}
	}
	if len(kept) == 0 {
		t.Fatal("read no batch")
	}
	for i := range kept {
		if !bytes.Equal(kept[i], want[i]) {
			t.Fatalf("buffer %d of a released batch changed while reading on: % x, was % x", i, kept[i], want[i])
		}
	}
	if st := paimon.ScratchStats(tbl); st.Reused == 0 {
		t.Fatalf("the scratch pool served no buffer twice over three reads: %+v", st)
	}
}
