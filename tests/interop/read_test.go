package interop

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// CountRows, which the benchmarks and request-count tests use instead of encoding rows,
// counts what ReadSplits encodes: the writer's full read of each table.
func TestCountRowsMatchesReadSplits(t *testing.T) {
	ctx := context.Background()
	dir := fixturesDir(t)
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"interop.bucket4", "interop.part_date_region", "interop.evolution"} {
		tbl, err := cat.GetTable(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		rb := tbl.NewReadBuilder()
		plan, err := rb.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rd := rb.NewRead()
		var n int64
		for _, sp := range plan.Splits {
			c, err := CountRows(ctx, rd, sp)
			if err != nil {
				t.Fatal(err)
			}
			n += c
		}
		lines, err := ReadSplits(ctx, rd, plan.Splits)
		if err != nil {
			t.Fatal(err)
		}
		want := testenv.ReadLines(t, filepath.Join(dir, "expected", name, "full.jsonl"))
		if n != int64(len(want)) || len(lines) != len(want) {
			t.Errorf("%s: CountRows %d, ReadSplits %d lines, the writer read %d rows", name, n, len(lines), len(want))
		}
	}
}
