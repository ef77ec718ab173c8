package interop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
)

// CheckedAlloc is the catalog option every interop suite opens its catalogs
// with: reads allocate through arrowpool's checking mode, so a use of Arrow
// memory after its Release faults instead of passing (a pooled allocator
// would turn it into wrong rows), and a double or foreign Free fails t.
func CheckedAlloc(t testing.TB) paimon.CatalogOption {
	t.Helper()
	c := arrowpool.NewChecked()
	t.Cleanup(func() {
		if err := c.Err(); err != nil {
			t.Errorf("checked allocator: %v", err)
		}
	})
	return paimon.WithAllocator(c)
}

// RunCases replays every case through cat, one subtest each (writer/table[@branch]/case): the
// expected file (relative to dir) must hold the number of rows the cases file says, and the
// library's read must equal it line for line. where says which storage cat reads ("" for the
// local file system, or e.g. "over s3") in failure messages. Every suite that replays the
// committed cases (local, S3, GCS, Azure) checks them this one way.
func RunCases(t *testing.T, ctx context.Context, cat *paimon.Catalog, dir string, cases []Case, where string) {
	t.Helper()
	if where != "" {
		where = " " + where
	}
	for _, c := range cases {
		name := c.Writer + "/" + c.Table
		if c.Branch != "" {
			name += "@" + c.Branch
		}
		t.Run(name+"/"+c.Case, func(t *testing.T) {
			want := Expected(t, dir, c.Expected, c.Rows)
			got, err := ReadCase(ctx, cat, c)
			if err != nil {
				t.Fatalf("read %s%s: %v", describe(c), where, err)
			}
			if d := DiffLines(want, got); d != "" {
				t.Fatalf("%s (case %s)%s differs from %s's read:\n%s", describe(c), c.Case, where, c.Writer, d)
			}
			// The other ways to ask for the same rows: a filter built on the current
			// schema, and a stream bounded to the snapshot (the input and tail).
			if c.Filter != nil {
				got, ok, err := ReadCaseWithBuiltFilter(ctx, cat, c)
				if err != nil {
					t.Fatalf("read %s%s with the filter built on the current schema: %v", describe(c), where, err)
				}
				if d := DiffLines(want, got); ok && d != "" {
					t.Fatalf("%s (case %s)%s with the filter built on the current schema differs from %s's read:\n%s", describe(c), c.Case, where, c.Writer, d)
				}
			}
			if c.Snapshot != nil && c.Branch == "" && !c.StreamDiffers {
				got, err := ReadCaseAsStream(ctx, cat, c)
				if err != nil {
					t.Fatalf("read %s%s as a stream bounded to it: %v", describe(c), where, err)
				}
				if d := DiffLines(want, got); d != "" {
					t.Fatalf("%s (case %s)%s as a stream bounded to it differs from %s's read:\n%s", describe(c), c.Case, where, c.Writer, d)
				}
			}
		})
	}
}

// Expected returns the sorted lines of the expected file rel (slash-separated, under dir),
// failing t unless it holds the rows lines its cases file promises: a truncated or
// regenerated-but-not-recounted file must not pass as a smaller oracle.
func Expected(t *testing.T, dir, rel string, rows int) []string {
	t.Helper()
	want := testenv.ReadSortedLines(t, filepath.Join(dir, filepath.FromSlash(rel)))
	if len(want) != rows {
		t.Fatalf("%s holds %d rows, cases file says %d", rel, len(want), rows)
	}
	return want
}

// describe names a case's read in failure messages.
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

// The other two ways to ask for a time-travel case's rows: the filter built on the table's
// current schema, and a stream bounded to the snapshot. RunCases checks both against the
// oracle too.

// ReadCaseAsStream reads a time-travel case (c.Snapshot set) the way the input and `paimon
// tail` do: a stream from snapshot N in full that ends at N, with the filter as text. It reads
// exactly what ReadCase reads, in the snapshot's schema.
func ReadCaseAsStream(ctx context.Context, cat *paimon.Catalog, c Case) ([]string, error) {
	tbl, err := caseTable(ctx, cat, c)
	if err != nil {
		return nil, err
	}
	cfg := paimon.StreamConfig{StartMode: paimon.StartFromSnapshotFull, StartSnapshot: *c.Snapshot, EndSnapshot: *c.Snapshot, Columns: c.Projection}
	if c.Filter != nil {
		cfg.Filter = *c.Filter
	}
	return readStream(ctx, tbl, cfg)
}

// readStream reads a bounded stream into sorted canonical lines.
func readStream(ctx context.Context, tbl *paimon.Table, cfg paimon.StreamConfig) ([]string, error) {
	sc, rd, err := tbl.NewStreamingScan(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var got []string
	for {
		p, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			sortLines(got)
			return got, nil
		}
		if err != nil {
			return nil, err
		}
		l, err := ReadSplits(ctx, rd, p.Splits)
		if err != nil {
			return nil, err
		}
		got = append(got, l...)
	}
}

// ReadCaseWithBuiltFilter reads a filtered case with the filter built as a library user builds
// one, against the table's current fields (predicate.Parse on tbl.Schema()), so that the read
// must find its columns by name in the snapshot's schema. ok is false when the filter does not
// build against the current fields (a literal of a type the column no longer has).
func ReadCaseWithBuiltFilter(ctx context.Context, cat *paimon.Catalog, c Case) (lines []string, ok bool, err error) {
	tbl, err := caseTable(ctx, cat, c)
	if err != nil {
		return nil, false, err
	}
	p, err := predicate.Parse(*c.Filter, tbl.Schema().Fields)
	if err != nil {
		return nil, false, nil
	}
	rb := tbl.NewReadBuilder().WithFilter(p)
	if c.Snapshot != nil {
		rb = rb.WithSnapshot(*c.Snapshot)
	}
	if c.Projection != nil {
		rb = rb.WithProjection(c.Projection...)
	}
	plan, err := rb.Plan(ctx)
	if err != nil {
		return nil, true, fmt.Errorf("plan: %w", err)
	}
	lines, err = ReadSplits(ctx, rb.NewRead(), plan.Splits)
	return lines, true, err
}
