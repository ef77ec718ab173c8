//go:build !interop_noapi

// This file drives the library API (package paimon) against the oracle. While that API is
// being built, `go test -tags interop_noapi ./tests/interop/` runs the encoder tests alone.

package interop

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
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
			want := readLines(t, filepath.Join(dir, filepath.FromSlash(c.Expected)))
			if len(want) != c.Rows {
				t.Fatalf("%s holds %d rows, cases file says %d", c.Expected, len(want), c.Rows)
			}
			got, err := readCase(ctx, cat, c)
			if err != nil {
				t.Fatalf("read %s: %v", describe(c), err)
			}
			if d := diffLines(want, got); d != "" {
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

func readCase(ctx context.Context, cat *paimon.Catalog, c Case) ([]string, error) {
	var opts []paimon.TableOption
	if c.Branch != "" {
		opts = append(opts, paimon.WithBranch(c.Branch))
	}
	tbl, err := cat.GetTable(ctx, c.Table, opts...)
	if err != nil {
		return nil, err
	}
	rb := tbl.NewReadBuilder()
	if c.Snapshot != nil {
		rb = rb.WithSnapshot(*c.Snapshot)
	}
	if c.Projection != nil {
		rb = rb.WithProjection(c.Projection...)
	}
	if c.Filter != nil {
		p, err := predicate.Parse(*c.Filter, tbl.Schema().Fields)
		if err != nil {
			return nil, fmt.Errorf("parse filter %q: %w", *c.Filter, err)
		}
		rb = rb.WithFilter(p)
	}
	plan, err := rb.NewScan().Plan(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	rd := rb.NewRead()
	var lines []string
	for _, sp := range plan.Splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			return nil, fmt.Errorf("read split (bucket %d): %w", sp.Bucket(), err)
		}
		l, err := EncodeReader(rr)
		rr.Release()
		if err != nil {
			return nil, fmt.Errorf("split (bucket %d): %w", sp.Bucket(), err)
		}
		lines = append(lines, l...)
	}
	sortLines(lines)
	return lines, nil
}
