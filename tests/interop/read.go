package interop

import (
	"context"
	"fmt"

	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
)

// ReadCase reads one case through cat (branch, snapshot, projection and
// filter as the case says) into sorted canonical JSON lines, ready to
// compare with the case's expected file. Every suite that replays cases
// (local, object stores) reads them the same way.
func ReadCase(ctx context.Context, cat *paimon.Catalog, c Case) ([]string, error) {
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
	return ReadSplits(ctx, rb.NewRead(), plan.Splits)
}

// ReadSplits reads every split with rd and returns the sorted canonical JSON lines of all
// their rows.
func ReadSplits(ctx context.Context, rd *paimon.Read, splits []*paimon.Split) ([]string, error) {
	var lines []string
	for _, sp := range splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			return nil, fmt.Errorf("read split (bucket %d, files %v): %w", sp.Bucket(), sp.Files(), err)
		}
		l, err := canon.Reader(rr)
		rr.Release()
		if err != nil {
			return nil, fmt.Errorf("split (bucket %d): %w", sp.Bucket(), err)
		}
		lines = append(lines, l...)
	}
	sortLines(lines)
	return lines, nil
}

// CountRows reads one split with rd and returns its row count (benchmarks and request-count
// tests, which need the whole read but not the rows).
func CountRows(ctx context.Context, rd *paimon.Read, sp *paimon.Split) (int64, error) {
	rr, err := rd.Read(ctx, sp)
	if err != nil {
		return 0, fmt.Errorf("read split (bucket %d, files %v): %w", sp.Bucket(), sp.Files(), err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		return 0, fmt.Errorf("split (bucket %d, files %v): %w", sp.Bucket(), sp.Files(), err)
	}
	return n, nil
}
