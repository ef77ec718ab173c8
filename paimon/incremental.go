package paimon

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// An incremental read (incremental-between or incremental-between-timestamp
// stored in the table's options) is what Java's batch reads return for it
// (IncrementalDeltaStartingScanner): the changes committed after the start
// snapshot up to and including the end snapshot, unmerged, every record
// with its row kind — the delta files of APPEND commits, or with a
// changelog producer the changelog files of every commit but OVERWRITE.
// Reads between two tags, and the diff scan mode, compare two snapshots'
// contents instead; they are refused.

// incrementalRange is the (start, end] snapshot range an incremental read
// covers; empty when Java returns no rows.
type incrementalRange struct {
	start, end int64
	empty      bool
}

// planIncremental plans a batch read of the table's stored incremental
// position in sch (the current schema, as Java reads it).
func (rb *ReadBuilder) planIncremental(ctx context.Context, sch *schema.TableSchema, filter *predicate.Predicate) (*Plan, error) {
	t := rb.t
	changelog, err := incrementalChangelog(sch)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	var r incrementalRange
	if _, ok := sch.Options["incremental-between"]; ok {
		r, err = t.incrementalBetween(ctx, sch.Options["incremental-between"])
	} else {
		r, err = t.incrementalBetweenTimestamp(ctx, sch.Options["incremental-between-timestamp"])
	}
	if err != nil {
		return nil, err
	}
	out := &Plan{schema: sch}
	if r.empty {
		return out, nil
	}
	out.SnapshotID = r.end
	planner := t.planner(sch, filter, rb.opts.BucketFilter, nil)
	for id := r.start + 1; id <= r.end; id++ {
		snap, err := t.snapshots.Snapshot(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("table %s: incremental read of snapshots %d..%d: %w", t.name, r.start+1, r.end, err)
		}
		var p *scan.Plan
		switch {
		case changelog && snap.CommitKind != snapshot.CommitOverwrite && snap.HasChangelog():
			p, err = planner.PlanSnapshot(ctx, snap, scan.Changelog)
		case !changelog && snap.CommitKind == snapshot.CommitAppend:
			p, err = planner.PlanSnapshot(ctx, snap, scan.Delta)
		default:
			continue // COMPACT and OVERWRITE commits change no row of a delta read
		}
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		out.Splits = append(out.Splits, wrapPlan(p, sch).Splits...)
	}
	return out, nil
}

// incrementalChangelog is whether an incremental read reads changelog
// files (Java's incremental-between-scan-mode: auto reads them when the
// table has a changelog producer).
func incrementalChangelog(sch *schema.TableSchema) (bool, error) {
	mode := strings.ToLower(strings.TrimSpace(sch.Option("incremental-between-scan-mode", "auto")))
	switch mode {
	case "auto":
		p := sch.ChangelogProducer()
		return p != "" && p != "none", nil
	case "delta":
		return false, nil
	case "changelog":
		return true, nil
	case "diff":
		return false, fmt.Errorf("option incremental-between-scan-mode=diff (the difference between two snapshots' contents): %w", types.ErrUnsupported)
	}
	return false, fmt.Errorf("option incremental-between-scan-mode=%s: want auto, delta, changelog or diff", sch.Options["incremental-between-scan-mode"])
}

// incrementalBetween resolves incremental-between "start,end": two
// snapshot ids (Java's checks and messages), or two tags (refused).
func (t *Table) incrementalBetween(ctx context.Context, v string) (incrementalRange, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 2 || parts[1] == "" {
		return incrementalRange{}, fmt.Errorf("table %s: option incremental-between=%s: want the start (exclusive) and the end snapshot, e.g. '5,10'", t.name, v)
	}
	startTag, err := t.hasTag(ctx, parts[0])
	if err != nil {
		return incrementalRange{}, err
	}
	endTag, err := t.hasTag(ctx, parts[1])
	if err != nil {
		return incrementalRange{}, err
	}
	if startTag && endTag {
		return incrementalRange{}, fmt.Errorf("table %s: option incremental-between=%s between two tags (the difference between their contents): %w", t.name, v, types.ErrUnsupported)
	}
	start, err1 := strconv.ParseInt(parts[0], 10, 64)
	end, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return incrementalRange{}, notExist(fmt.Sprintf("table %s: option incremental-between=%s: neither two tags nor two snapshot ids", t.name, v))
	}
	if end < start {
		return incrementalRange{}, fmt.Errorf("table %s: option incremental-between=%s: the end snapshot is before the start", t.name, v)
	}
	earliest, ok, err := t.snapshots.EarliestID(ctx)
	if err != nil {
		return incrementalRange{}, fmt.Errorf("table %s: %w", t.name, err)
	}
	if !ok || start == end {
		return incrementalRange{empty: true}, nil
	}
	latest, _, err := t.snapshots.LatestID(ctx)
	if err != nil {
		return incrementalRange{}, fmt.Errorf("table %s: %w", t.name, err)
	}
	// The start is exclusive: the snapshot before the earliest may be it.
	if start < earliest-1 || end > latest {
		return incrementalRange{}, notExist(fmt.Sprintf("table %s: option incremental-between=%s: snapshots %d..%d are outside the table's %d..%d", t.name, v, start+1, end, earliest, latest))
	}
	return incrementalRange{start: start, end: end}, nil
}

// incrementalBetweenTimestamp resolves incremental-between-timestamp
// "start,end" in epoch milliseconds as Java does: the start is the last
// snapshot committed at or before it (the one before the earliest when
// none is), the end the last one at or before it.
func (t *Table) incrementalBetweenTimestamp(ctx context.Context, v string) (incrementalRange, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 2 || parts[1] == "" {
		return incrementalRange{}, fmt.Errorf("table %s: option incremental-between-timestamp=%s: want the start (exclusive) and the end, e.g. '1700000000000,1700003600000'", t.name, v)
	}
	start, err1 := strconv.ParseInt(parts[0], 10, 64)
	end, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		// Java parses date-times in its JVM's default time zone, which the
		// table does not record.
		return incrementalRange{}, fmt.Errorf("table %s: option incremental-between-timestamp=%s: only epoch milliseconds are read (Java reads date-times in the writing JVM's time zone): %w", t.name, v, types.ErrUnsupported)
	}
	if end < start {
		return incrementalRange{}, fmt.Errorf("table %s: option incremental-between-timestamp=%s: the end is before the start", t.name, v)
	}
	first, ok, err := t.snapshots.Earliest(ctx)
	if err != nil {
		return incrementalRange{}, fmt.Errorf("table %s: %w", t.name, err)
	}
	if !ok {
		return incrementalRange{empty: true}, nil
	}
	last, ok, err := t.snapshots.Latest(ctx)
	if err != nil || !ok {
		return incrementalRange{}, fmt.Errorf("table %s: latest snapshot: %w", t.name, err)
	}
	if start == end || start > last.TimeMillis || end < first.TimeMillis {
		return incrementalRange{empty: true}, nil
	}
	r := incrementalRange{start: first.ID - 1, end: last.ID}
	if s, ok, err := t.snapshots.EarlierOrEqualTime(ctx, start); err != nil {
		return incrementalRange{}, fmt.Errorf("table %s: %w", t.name, err)
	} else if ok && first.TimeMillis <= start {
		r.start = s.ID
	}
	if e, ok, err := t.snapshots.EarlierOrEqualTime(ctx, end); err != nil {
		return incrementalRange{}, fmt.Errorf("table %s: %w", t.name, err)
	} else if ok {
		r.end = e.ID
	}
	if r.end <= r.start {
		return incrementalRange{empty: true}, nil
	}
	return r, nil
}

// hasTag reports whether the table has the tag.
func (t *Table) hasTag(ctx context.Context, name string) (bool, error) {
	_, err := snapshot.NewTagManager(t.fio, t.root, t.branch).Tag(ctx, name)
	switch {
	case err == nil:
		return true, nil
	case fileio.IsNotExist(err):
		return false, nil
	}
	return false, fmt.Errorf("table %s: %w", t.name, err)
}
