package paimon_test

import (
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
)

// checkedAlloc is the catalog option the facade tests open their catalogs
// with: every read allocates through arrowpool's checking mode, so a use of
// Arrow memory after its Release faults (the bug a pooled allocator would
// turn into wrong rows), and a double or foreign Free fails the test.
func checkedAlloc(t testing.TB) paimon.CatalogOption {
	t.Helper()
	c := arrowpool.NewChecked()
	t.Cleanup(func() {
		if err := c.Err(); err != nil {
			t.Errorf("checked allocator: %v", err)
		}
	})
	return paimon.WithAllocator(c)
}
