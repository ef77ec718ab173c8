//go:build !interop_noapi

// This file drives the library API (package paimon) against the oracle. While that API is
// being built, `go test -tags interop_noapi ./tests/interop/` runs the encoder tests alone.

package interop

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
)

// TestFixtures runs every committed case (or those in PAIMON_INTEROP_DIR) through the library.
// ReadSplits also reads each case with dictionary arrays allowed and compares; the pypaimon
// and Java Parquet fixtures hold dictionary-encoded string columns, which must have come back
// as dictionaries, or that comparison tested nothing.
//
// The Java fixtures javagen.ts_extreme_* hold TIMESTAMP(7..9) values beyond Arrow's
// nanosecond range, which only the wide-timestamp read returns: some case must have needed it.
func TestFixtures(t *testing.T) {
	before, wide := DictionaryColumnsRead.Load(), WideOnlyReads.Load()
	runCases(t, fixturesDir(t))
	if DictionaryColumnsRead.Load() == before {
		t.Error("no case read a dictionary-encoded column with dictionary arrays allowed")
	}
	if WideOnlyReads.Load() == wide {
		t.Error("no case read a TIMESTAMP(7..9) value beyond Arrow's nanosecond range")
	}
}

// TestFixturesPooled runs every committed case through one pooled allocator
// shared by all of them, the input's default: buffers reused dirty from
// earlier reads (other tables, types and formats) must not change a row.
// TestFixtures proves no Arrow memory is used after its Release; this one
// that what the pool hands out is as good as fresh memory.
func TestFixturesPooled(t *testing.T) {
	dir := fixturesDir(t)
	cases, err := LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	pool := arrowpool.New(arrowpool.Options{})
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), paimon.WithAllocator(pool))
	if err != nil {
		t.Fatalf("open catalog %s: %v", dir, err)
	}
	RunCases(t, ctx, cat, dir, cases, "through a pooled allocator")
	if st := pool.Stats(); st.Reused == 0 {
		t.Fatalf("the pool reused no buffer (%+v): the test proves nothing", st)
	}
}

func runCases(t *testing.T, dir string) {
	cases, err := LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatalf("open catalog %s: %v", dir, err)
	}
	RunCases(t, ctx, cat, dir, cases, "")
}
