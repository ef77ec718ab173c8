//go:build !interop_noapi

// This file drives the library API (package paimon) against the oracle. While that API is
// being built, `go test -tags interop_noapi ./tests/interop/` runs the encoder tests alone.

package interop

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
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
	for _, c := range cases {
		name := c.Writer + "/" + c.Table
		if c.Branch != "" {
			name += "@" + c.Branch
		}
		t.Run(name+"/"+c.Case, func(t *testing.T) {
			want := testenv.ReadSortedLines(t, filepath.Join(dir, filepath.FromSlash(c.Expected)))
			if len(want) != c.Rows {
				t.Fatalf("%s holds %d rows, cases file says %d", c.Expected, len(want), c.Rows)
			}
			got, err := ReadCase(ctx, cat, c)
			if err != nil {
				t.Fatalf("read %s: %v", describe(c), err)
			}
			if d := DiffLines(want, got); d != "" {
				t.Fatalf("%s differs from %s's read:\n%s", describe(c), c.Writer, d)
			}
		})
	}
}

func describe(c Case) string {
	s := c.Table
	if c.Branch != "" {
		s += " branch " + c.Branch
	}
	if c.Snapshot != nil {
		s += fmt.Sprintf(" at snapshot %d", *c.Snapshot)
	}
	if c.Projection != nil {
		s += fmt.Sprintf(" projection %v", c.Projection)
	}
	if c.Filter != nil {
		s += " filter " + *c.Filter
	}
	return s
}
