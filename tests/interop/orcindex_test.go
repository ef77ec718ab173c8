//go:build !interop_noapi

package interop

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
)

// Row-group pruning by the ORC row index really skips groups: the
// javagen.orcidx_* files (Java Paimon 1.3.1, orc.row.index.stride=1000)
// hold 4000 rows each in a stripe of 3072 rows (groups 0-999, 1000-1999,
// 2000-2999, 3000-3071) and one of 928; "id BETWEEN 1500 AND 1620" keeps
// the first file (manifest stats), drops its second stripe (stripe stats)
// and, inside the first stripe, decodes group 1 only: three row-index
// groups skipped, counted by ReadStats. The rows themselves are Java's
// (TestFixtures, case filter_id).
func TestORCRowIndexSkipsRowGroups(t *testing.T) {
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(fixturesDir(t), "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for _, name := range []string{"orcidx_zstd", "orcidx_zlib", "orcidx_snappy", "orcidx_lz4", "orcidx_none", "orcidx_dv"} {
		t.Run(name, func(t *testing.T) {
			tbl, err := cat.GetTable(ctx, "javagen."+name)
			if err != nil {
				t.Fatal(err)
			}
			p, err := predicate.Parse("id BETWEEN 1500 AND 1620", tbl.Schema().Fields)
			if err != nil {
				t.Fatal(err)
			}
			var st paimon.ReadStats
			rb := tbl.NewReadBuilder().WithFilter(p)
			plan, err := rb.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := ReadSplits(ctx, rb.NewRead().WithStats(&st), plan.Splits)
			if err != nil {
				t.Fatal(err)
			}
			want := 121
			if name == "orcidx_dv" {
				want = 103 // the deletion vectors drop ids%7==3 and 1990..2009
			}
			if len(lines) != want {
				t.Errorf("%d rows, want %d", len(lines), want)
			}
			if got := st.FilesRead.Load(); got != 1 {
				t.Errorf("%d files read, want 1", got)
			}
			if got := st.RowGroupsSkipped.Load(); got != 1 {
				t.Errorf("%d stripes skipped, want 1", got)
			}
			if got := st.RowIndexGroupsSkipped.Load(); got != 3 {
				t.Errorf("%d row-index groups skipped, want 3", got)
			}
		})
	}
}
