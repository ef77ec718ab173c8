package interop

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// TestDataEvolutionStreamsRefused: batch reads of data-evolution tables merge each row's columns
// from its files (TestFixtures: javagen.data_evolution*). A stream would read a commit that
// updates some columns as rows of those columns alone, so it is refused by name at open.
func TestDataEvolutionStreamsRefused(t *testing.T) {
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(fixturesDir(t), "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, "javagen.data_evolution")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{EndAtLatest: true}); !errors.Is(err, types.ErrUnsupported) ||
		!strings.Contains(err.Error(), "data-evolution.enabled=true") {
		t.Fatalf("stream of a data-evolution table: %v", err)
	}
	plan, err := tbl.NewReadBuilder().Plan(ctx)
	if err != nil || len(plan.Splits) == 0 {
		t.Fatalf("batch plan: %+v, %v", plan, err)
	}
}
