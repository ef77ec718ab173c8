package paimon_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// demoCopy copies the committed demo table (demo.orders: 3 snapshots) to a
// temporary warehouse a test may change, and returns the warehouse and the
// table's directory.
func demoCopy(t *testing.T) (wh, table string) {
	t.Helper()
	wh = filepath.Join(t.TempDir(), "warehouse")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	return wh, filepath.Join(wh, "demo.db", "orders")
}

// openDemoAt opens demo.orders in wh; the catalog is closed when the test
// ends.
func openDemoAt(t *testing.T, wh string, opts ...paimon.CatalogOption) (*paimon.Catalog, *paimon.Table) {
	t.Helper()
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, wh, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		t.Fatal(err)
	}
	return cat, tbl
}
