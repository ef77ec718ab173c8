//go:build !interop_noapi

// This file drives the library API (package paimon) against the oracle. While that API is
// being built, `go test -tags interop_noapi ./tests/interop/` runs the encoder tests alone.

package interop

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestFixtures runs every committed case (or those in PAIMON_INTEROP_DIR) through the library.
func TestFixtures(t *testing.T) {
	runCases(t, fixturesDir(t))
}

func runCases(t *testing.T, dir string) {
	cases, err := LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"))
	if err != nil {
		t.Fatalf("open catalog %s: %v", dir, err)
	}
	RunCases(t, ctx, cat, dir, cases, "")
}
