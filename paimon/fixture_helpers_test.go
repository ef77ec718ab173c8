package paimon_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// demoCopy copies the committed demo table (demo.orders: 3 snapshots) to a
// temporary warehouse a test may change, and returns the warehouse and the
// table's directory.
func demoCopy(t *testing.T) (wh, table string) {
	t.Helper()
	return fixtureCopy(t, filepath.Join("resources", "fixtures", "warehouse"), "demo", "orders")
}

// fixtureCopy copies table db.name of the committed warehouse at whRel
// (relative to the repository root) to a temporary warehouse, and returns
// that warehouse and the copy's directory.
func fixtureCopy(t *testing.T, whRel, db, name string) (wh, table string) {
	t.Helper()
	wh = filepath.Join(t.TempDir(), "warehouse")
	table = filepath.Join(wh, db+".db", name)
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), whRel, db+".db", name), table)
	return wh, table
}

// openDemoAt opens demo.orders in wh; the catalog is closed when the test
// ends.
func openDemoAt(t *testing.T, wh string, opts ...paimon.CatalogOption) (*paimon.Catalog, *paimon.Table) {
	t.Helper()
	return openTableAt(t, wh, "demo.orders", opts...)
}

// openTableAt opens table name ("db.table") in wh; the catalog is closed
// when the test ends.
func openTableAt(t *testing.T, wh, name string, opts ...paimon.CatalogOption) (*paimon.Catalog, *paimon.Table) {
	t.Helper()
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, wh, append(opts, interop.CheckedAlloc(t))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	tbl, err := cat.GetTable(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return cat, tbl
}
