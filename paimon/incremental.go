package paimon

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// An incremental read (incremental-between or incremental-between-timestamp
// stored in the table's options) is what Java's batch reads return for it.
// The delta and changelog scan modes (IncrementalDeltaStartingScanner) read
// the changes committed after the start snapshot up to and including the
// end snapshot, unmerged, every record with its row kind: the delta files
// of APPEND commits, or with a changelog producer the changelog files of
// every commit but OVERWRITE. The diff scan mode, and any read between two
// tags (IncrementalDiffStartingScanner), compare the two snapshots'
// contents bucket by bucket instead (see planDiff).

// incrementalRange is the (start, end] snapshot range an incremental read
// covers; empty when Java returns no rows. A diff compares the snapshots
// from and to (a tag's snapshot may have expired from the table).
type incrementalRange struct {
	start, end int64
	empty      bool
	from, to   *snapshot.Snapshot
}

// planIncremental plans a batch read of the table's stored incremental
// position in sch (the current schema, as Java reads it).
func (rb *ReadBuilder) planIncremental(ctx context.Context, sch *schema.TableSchema, filter *predicate.Predicate) (*Plan, error) {
	t := rb.t
	mode, err := incrementalMode(sch)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	var r incrementalRange
	if _, ok := sch.Options["incremental-between"]; ok {
		r, err = t.incrementalBetween(ctx, sch.Options["incremental-between"], mode == "diff")
	} else {
		r, err = t.incrementalBetweenTimestamp(ctx, sch.Options["incremental-between-timestamp"], mode == "diff")
	}
	if err != nil {
		return nil, err
	}
	out := &Plan{schema: sch}
	if r.empty {
		return out, nil
	}
	if r.from != nil {
		return rb.planDiff(ctx, sch, filter, r.from, r.to)
	}
	out.SnapshotID = r.end
	changelog := mode == "changelog"
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

// planDiff plans Java's incremental diff of snapshots from and to
// (SnapshotReaderImpl.readIncrementalDiff): both are planned in full as a
// batch read would, and per partition and bucket the files both hold are
// dropped; what remains of to is read against what remains of from. On a
// primary-key table that returns per key the newer merged row where it is
// new or changed (removed keys are not returned: Java's plain batch read
// drops their -D); on an append table the rows of the files to added.
func (rb *ReadBuilder) planDiff(ctx context.Context, sch *schema.TableSchema, filter *predicate.Predicate, from, to *snapshot.Snapshot) (*Plan, error) {
	t := rb.t
	pk := len(sch.PrimaryKeys) > 0
	if pk && filter != nil {
		// Which rows a diff returns depends on which files each side
		// keeps: a pruned file is one fewer to compare with.
		for _, name := range filter.Fields() {
			if !slices.Contains(sch.PartitionKeys, name) {
				return nil, fmt.Errorf("table %s: filter on column %s of an incremental diff (incremental-between two tags or incremental-between-scan-mode=diff): on a primary-key table Java's result depends on the files its statistics prune, so such a read filters on partition columns only (%s): %w",
					t.name, name, strings.Join(sch.PartitionKeys, ", "), types.ErrUnsupported)
			}
		}
	}
	if pk && sch.NumBuckets() == scan.PostponeBucket {
		return nil, fmt.Errorf("table %s: incremental diff of a table with bucket = %d (postpone): %w", t.name, scan.PostponeBucket, types.ErrUnsupported)
	}
	if from.SchemaID != to.SchemaID {
		a, err := t.schemas.Schema(ctx, from.SchemaID)
		if err != nil {
			return nil, fmt.Errorf("table %s: schema of snapshot %d: %w", t.name, from.ID, err)
		}
		b, err := t.schemas.Schema(ctx, to.SchemaID)
		if err != nil {
			return nil, fmt.Errorf("table %s: schema of snapshot %d: %w", t.name, to.ID, err)
		}
		if a.NumBuckets() != b.NumBuckets() {
			return nil, fmt.Errorf("table %s: incremental diff of snapshots %d and %d: the bucket number of two snapshots are different (%d, %d), which Java does not read either",
				t.name, from.ID, to.ID, a.NumBuckets(), b.NumBuckets())
		}
	}
	planner := t.planner(sch, filter, rb.opts.BucketFilter, batchLevels(sch))
	before, err := planner.PlanSnapshot(ctx, from, scan.Full)
	if err != nil {
		return nil, fmt.Errorf("table %s: incremental diff, snapshot %d: %w", t.name, from.ID, err)
	}
	after, err := planner.PlanSnapshot(ctx, to, scan.Full)
	if err != nil {
		return nil, fmt.Errorf("table %s: incremental diff, snapshot %d: %w", t.name, to.ID, err)
	}
	type bucketKey struct {
		part   string
		bucket int32
	}
	earlier := map[bucketKey]*split.Split{}
	for _, sp := range before.Splits {
		earlier[bucketKey{string(sp.Partition), sp.Bucket}] = sp
	}
	kept := after.Splits[:0]
	for _, sp := range after.Splits {
		if b := earlier[bucketKey{string(sp.Partition), sp.Bucket}]; b != nil {
			sp.Files, sp.Before = dropCommonFiles(sp.Files, b.Files)
		}
		// A bucket only from has holds no row to return (removed keys
		// are dropped), and one whose files did not change holds none.
		if len(sp.Files) == 0 {
			continue
		}
		sp.Diff = true
		kept = append(kept, sp)
	}
	after.Splits = kept
	return wrapPlan(after, sch), nil
}

// dropCommonFiles removes the files both lists hold (Java compares the
// manifest entries: a file a compaction moved to another level is another
// entry) and returns what remains of each.
func dropCommonFiles(after, before []split.DataFile) (a, b []split.DataFile) {
	type id struct {
		name  string
		level int32
	}
	in := map[id]bool{}
	for _, f := range after {
		in[id{f.Meta.FileName, f.Meta.Level}] = true
	}
	common := map[id]bool{}
	for _, f := range before {
		k := id{f.Meta.FileName, f.Meta.Level}
		if in[k] {
			common[k] = true
			continue
		}
		b = append(b, f)
	}
	for _, f := range after {
		if !common[id{f.Meta.FileName, f.Meta.Level}] {
			a = append(a, f)
		}
	}
	return a, b
}

// incrementalMode is how an incremental read reads its range (Java's
// incremental-between-scan-mode): "delta", "changelog" (auto reads
// changelog files when the table has a changelog producer) or "diff".
func incrementalMode(sch *schema.TableSchema) (string, error) {
	mode := strings.ToLower(strings.TrimSpace(sch.Option("incremental-between-scan-mode", "auto")))
	switch mode {
	case "auto":
		if p := sch.ChangelogProducer(); p != "" && p != "none" {
			return "changelog", nil
		}
		return "delta", nil
	case "delta", "changelog", "diff":
		return mode, nil
	}
	return "", fmt.Errorf("option incremental-between-scan-mode=%s: want auto, delta, changelog or diff", sch.Options["incremental-between-scan-mode"])
}

// incrementalBetween resolves incremental-between "start,end": two tags
// (a diff of their snapshots) or two snapshot ids, with Java's checks.
func (t *Table) incrementalBetween(ctx context.Context, v string, diff bool) (incrementalRange, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 2 || parts[1] == "" {
		return incrementalRange{}, fmt.Errorf("table %s: option incremental-between=%s: want the start (exclusive) and the end snapshot, e.g. '5,10'", t.name, v)
	}
	startTag, err := t.tagIfAny(ctx, parts[0])
	if err != nil {
		return incrementalRange{}, err
	}
	endTag, err := t.tagIfAny(ctx, parts[1])
	if err != nil {
		return incrementalRange{}, err
	}
	if startTag != nil && endTag != nil {
		from, to := startTag.Snapshot, endTag.Snapshot
		if to.ID < from.ID {
			return incrementalRange{}, fmt.Errorf("table %s: option incremental-between=%s: tag %s (snapshot %d) is before tag %s (snapshot %d)", t.name, v, parts[1], to.ID, parts[0], from.ID)
		}
		if to.ID == from.ID {
			return incrementalRange{empty: true}, nil
		}
		return incrementalRange{from: &from, to: &to}, nil
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
	if diff {
		// Java reads both snapshot files, whatever their distance.
		from, err := t.snapshots.Snapshot(ctx, start)
		if err != nil {
			return incrementalRange{}, fmt.Errorf("table %s: option incremental-between=%s: %w", t.name, v, err)
		}
		to, err := t.snapshots.Snapshot(ctx, end)
		if err != nil {
			return incrementalRange{}, fmt.Errorf("table %s: option incremental-between=%s: %w", t.name, v, err)
		}
		return incrementalRange{from: from, to: to}, nil
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
// none is; a diff starts at the earliest), the end the last one at or
// before it.
func (t *Table) incrementalBetweenTimestamp(ctx context.Context, v string, diff bool) (incrementalRange, error) {
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
	s, sOK, err := t.snapshots.EarlierOrEqualTime(ctx, start)
	if err != nil {
		return incrementalRange{}, fmt.Errorf("table %s: %w", t.name, err)
	}
	e, eOK, err := t.snapshots.EarlierOrEqualTime(ctx, end)
	if err != nil {
		return incrementalRange{}, fmt.Errorf("table %s: %w", t.name, err)
	}
	if diff {
		r := incrementalRange{from: first, to: last}
		if sOK {
			r.from = s
		}
		if eOK {
			r.to = e
		}
		return r, nil
	}
	r := incrementalRange{start: first.ID - 1, end: last.ID}
	if sOK && first.TimeMillis <= start {
		r.start = s.ID
	}
	if eOK {
		r.end = e.ID
	}
	if r.end <= r.start {
		return incrementalRange{empty: true}, nil
	}
	return r, nil
}

// tagIfAny returns the table's tag, nil when it has none of that name.
func (t *Table) tagIfAny(ctx context.Context, name string) (*snapshot.Tag, error) {
	tag, err := snapshot.NewTagManager(t.fio, t.root, t.branch).Tag(ctx, name)
	switch {
	case err == nil:
		return tag, nil
	case fileio.IsNotExist(err):
		return nil, nil
	}
	return nil, fmt.Errorf("table %s: %w", t.name, err)
}
