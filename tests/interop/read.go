package interop

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// ReadCase reads one case through cat (branch, snapshot, projection and
// filter as the case says) into sorted canonical JSON lines, ready to
// compare with the case's expected file. Every suite that replays cases
// (local, object stores) reads them the same way.
func ReadCase(ctx context.Context, cat *paimon.Catalog, c Case) ([]string, error) {
	tbl, err := caseTable(ctx, cat, c)
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
		// As the input and the CLI give it: text, resolved in the schema of
		// the snapshot read.
		rb = rb.WithFilterExpr(*c.Filter)
	}
	plan, err := rb.Plan(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return ReadSplits(ctx, rb.NewRead(), plan.Splits)
}

// caseTable opens the table (and branch) a case reads.
func caseTable(ctx context.Context, cat *paimon.Catalog, c Case) (*paimon.Table, error) {
	var opts []paimon.TableOption
	if c.Branch != "" {
		opts = append(opts, paimon.WithBranch(c.Branch))
	}
	return cat.GetTable(ctx, c.Table, opts...)
}

// ReadSplits reads every split with rd and returns the sorted canonical JSON lines of all
// their rows. It reads every split a second time with dictionary arrays and wide timestamps
// allowed (paimon.ReadOptions.Dictionary, WideTimestamps) and fails unless that read returns
// the same rows, so every suite that compares reads with an oracle also checks those reads
// against it. Where the plain read refuses a TIMESTAMP(7..9) value beyond Arrow's nanosecond
// range (types.ErrNanosecondRange), the second read's rows are the result.
func ReadSplits(ctx context.Context, rd *paimon.Read, splits []*paimon.Split) ([]string, error) {
	lines, _, err := readSplits(ctx, rd.WithDictionary(false).WithWideTimestamps(false), splits)
	beyond := errors.Is(err, types.ErrNanosecondRange)
	if err != nil && !beyond {
		return nil, err
	}
	// The second read counts nothing: callers check the stats of their read.
	dict, n, derr := readSplits(ctx, rd.WithDictionary(true).WithWideTimestamps(true).WithStats(nil), splits)
	if derr != nil {
		return nil, fmt.Errorf("read with dictionary arrays and wide timestamps: %w", derr)
	}
	if beyond {
		lines = dict
		WideOnlyReads.Add(1)
	}
	if d := DiffLines(lines, dict); d != "" {
		return nil, fmt.Errorf("the read with dictionary arrays (%d dictionary columns) and wide timestamps differs from the plain read:\n%s", n, d)
	}
	DictionaryColumnsRead.Add(n)
	return lines, nil
}

// WideOnlyReads counts the reads ReadSplits took from the wide-timestamp read because the
// plain one refused a value beyond Arrow's nanosecond range, so a suite can check that its
// fixtures reach past that range.
var WideOnlyReads atomic.Int64

// DictionaryColumnsRead counts the dictionary-encoded columns of the batches ReadSplits read
// with dictionary arrays allowed, so a suite can check that it exercised them.
var DictionaryColumnsRead atomic.Int64

func readSplits(ctx context.Context, rd *paimon.Read, splits []*paimon.Split) (lines []string, dictCols int64, err error) {
	for _, sp := range splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			return nil, 0, fmt.Errorf("read split (bucket %d, files %v): %w", sp.Bucket(), sp.Files(), err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for _, f := range rec.Schema().Fields() {
				if f.Type.ID() == arrow.DICTIONARY {
					dictCols++
				}
			}
			l, err := canon.Record(rec)
			if err != nil {
				rr.Release()
				return nil, 0, fmt.Errorf("split (bucket %d): %w", sp.Bucket(), err)
			}
			lines = append(lines, l...)
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return nil, 0, fmt.Errorf("split (bucket %d): %w", sp.Bucket(), err)
		}
	}
	sortLines(lines)
	return lines, dictCols, nil
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
