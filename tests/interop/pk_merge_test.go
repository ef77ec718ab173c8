//go:build !interop_noapi

package interop

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// pkMergeFixturesDir holds the tables of resources/java JavaPkMergeGen: merge engines across
// lookup-compacted levels and the aggregate functions (issue 11).
func pkMergeFixturesDir() string { return fixturesSubdir("PAIMON_INTEROP_PK_MERGE_DIR", "pk-merge") }

// TestPKMergeFixtures compares the Go reader with Java Paimon's batch and streaming reads
// (changelog included) on the committed JavaPkMergeGen tables.
func TestPKMergeFixtures(t *testing.T) {
	runPKCases(t, pkMergeFixturesDir())
}

// TestPKMergeLive regenerates the JavaPkMergeGen tables with Java Paimon and compares.
func TestPKMergeLive(t *testing.T) {
	runPKCases(t, livePKGen(t, "JavaPkMergeGen"))
}

// TestPKMergeLayout checks that the lookup tables hold the layout they exist for: at the
// latest snapshot one bucket has files at level 0 and at two or more levels above 0 (the
// highest level from a full compaction, lower ones from lookup compaction), so a reader that
// merged every copy of a key would aggregate the older ones again.
func TestPKMergeLayout(t *testing.T) {
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(pkMergeFixturesDir(), "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"pk_lk_agg", "pk_lk_agg_force", "pk_lk_pu", "pk_lk_dedup", "pk_lk_dedup_force"} {
		tbl, err := cat.GetTable(ctx, "javapk."+table)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := tbl.NewReadBuilder().Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		levels := map[int32]bool{}
		for _, sp := range plan.Splits {
			for _, f := range sp.DataFiles() {
				levels[f.Level] = true
			}
		}
		above := 0
		for lv := range levels {
			if lv > 0 {
				above++
			}
		}
		if !levels[0] || above < 2 {
			t.Errorf("%s: levels %v in the latest plan, want level 0 and at least two levels above it", table, levels)
		}
	}
}
