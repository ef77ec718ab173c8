package paimon

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/suggest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/read"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/internal/stream"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// ReadBuilder configures a batch read of one snapshot. Its With methods
// return the builder for chaining; configuration errors are reported by
// Plan and NewRead().Read.
type ReadBuilder struct {
	t          *Table
	opts       readOptions
	snapshotID int64
	tag        string
	filterExpr string
}

// NewReadBuilder starts a batch read of the latest snapshot.
func (t *Table) NewReadBuilder() *ReadBuilder { return &ReadBuilder{t: t} }

// The With methods below set the options both kinds of read share. They are repeated on
// StreamReadBuilder (one line each) rather than promoted from an embedded
// type, because a promoted method would return the embedded type and break
// chaining on the builder.

// WithProjection selects the output columns, in this order.
func (rb *ReadBuilder) WithProjection(columns ...string) *ReadBuilder {
	rb.opts.Projection = append([]string(nil), columns...)
	return rb
}

// WithFilter keeps only rows matching p; it is also pushed down to prune
// partitions, files and row groups. p's columns are found by name in the
// schema the read uses (a past snapshot's own schema with WithSnapshot or
// WithTag), whatever fields p was built with; a name that schema lacks
// fails Plan.
func (rb *ReadBuilder) WithFilter(p *predicate.Predicate) *ReadBuilder {
	rb.opts.Filter = p
	return rb
}

// WithFilterExpr is WithFilter with the filter in predicate.Parse's
// syntax (the input's and the CLI's filter), parsed in the schema the read
// uses, so that its literals take that schema's types. With both, rows must
// match both.
func (rb *ReadBuilder) WithFilterExpr(expr string) *ReadBuilder {
	rb.filterExpr = expr
	return rb
}

// WithSnapshot reads snapshot id instead of the latest (time travel); the
// snapshot's own schema is the read schema.
func (rb *ReadBuilder) WithSnapshot(id int64) *ReadBuilder {
	rb.snapshotID = id
	return rb
}

// WithTag reads the snapshot a tag points at.
func (rb *ReadBuilder) WithTag(name string) *ReadBuilder {
	rb.tag = name
	return rb
}

// WithBatchSize sets the rows per record batch read from data files.
func (rb *ReadBuilder) WithBatchSize(n int) *ReadBuilder {
	rb.opts.BatchSize = n
	return rb
}

// WithAllocator sets the Arrow allocator of the reads (nil: the catalog's
// WithAllocator, else the Go allocator). paimon/arrowpool.New is a pooled
// allocator that reuses the buffers of released record batches; with it,
// no Arrow memory (a string from array.String.Value aliases its buffer)
// may be used after the record's last Release. A chosen allocator also
// serves the reader's own scratch buffers, which otherwise come from the
// catalog's pool (scratchRetained bytes kept).
func (rb *ReadBuilder) WithAllocator(mem memory.Allocator) *ReadBuilder {
	rb.opts.Allocator = mem
	return rb
}

// WithBucketFilter keeps only the buckets f accepts.
func (rb *ReadBuilder) WithBucketFilter(f func(bucket int32) bool) *ReadBuilder {
	rb.opts.BucketFilter = f
	return rb
}

// WithIncludeRowKind adds a leading types.RowKindColumn; a batch read of a
// primary-key table yields the merged rows, +I or +U.
func (rb *ReadBuilder) WithIncludeRowKind(v bool) *ReadBuilder {
	rb.opts.IncludeRowKind = v
	return rb
}

// WithStats makes the reads count files, bytes and rows into st.
func (rb *ReadBuilder) WithStats(st *ReadStats) *ReadBuilder {
	rb.opts.Stats = st
	return rb
}

// WithDictionary (default false: every column is a plain array of the
// type ArrowSchema gives it) lets a read return a STRING/CHAR/VARCHAR
// or BYTES/BINARY/VARBINARY column as an Arrow dictionary array
// (dictionary<int32, string|binary>) where a Parquet data file holds
// it dictionary-encoded throughout: the dictionary is decoded once per
// column chunk and no value is copied per row. It is decided per data
// file, so the batches of one read may mix dictionary and plain arrays
// for the same column, and a batch's schema (RecordBatch.Schema) then
// differs from the reader's (array.RecordReader.Schema) in exactly
// those column types. Columns of ORC and Avro files, columns cast by
// schema evolution, nested columns and every column of a primary-key
// table are always plain.
func (rb *ReadBuilder) WithDictionary(v bool) *ReadBuilder {
	rb.opts.Dictionary = v
	return rb
}

// WithWideTimestamps (default false: Arrow nanosecond timestamps) gives
// a top-level TIMESTAMP(7..9) or TIMESTAMP_LTZ(7..9) column of an append
// table as types.WideTimestampType, which holds every value Paimon can
// store (years 0001..9999) where an Arrow nanosecond timestamp ends at
// 1677-09-21 and 2262-04-11. Without it a value beyond either end fails
// the read with an error wrapping types.ErrNanosecondRange that names the
// column and the value. Nested TIMESTAMP(7..9) values and those of
// primary-key tables stay nanosecond timestamps either way.
func (rb *ReadBuilder) WithWideTimestamps(v bool) *ReadBuilder {
	rb.opts.WideTimestamps = v
	return rb
}

// ReadFields returns the projected read row type of the table's current
// schema.
func (rb *ReadBuilder) ReadFields() []types.DataField {
	fs, err := projectFields(rb.t.schema, rb.opts.Projection)
	if err != nil {
		return nil
	}
	return fs
}

func projectFields(s *schema.TableSchema, projection []string) ([]types.DataField, error) {
	if projection == nil {
		return s.Fields, nil
	}
	out := make([]types.DataField, 0, len(projection))
	seen := map[string]bool{}
	for _, c := range projection {
		i := typeutil.FieldByName(s.Fields, c)
		if i < 0 {
			names := make([]string, len(s.Fields))
			for j, f := range s.Fields {
				names[j] = f.Name
			}
			return nil, fmt.Errorf("projection: no column %q in schema %d%s", c, s.ID, suggest.Hint(c, names, "columns"))
		}
		if seen[c] {
			return nil, fmt.Errorf("projection: column %q listed twice", c)
		}
		seen[c] = true
		out = append(out, s.Fields[i])
	}
	return out, nil
}

// Plan is the files of one snapshot, grouped into splits.
type Plan struct {
	// SnapshotID is the planned snapshot; 0 when the table has none yet.
	SnapshotID int64
	Splits     []*Split
	schema     *schema.TableSchema
}

// Split is the unit of reading: the files of one partition and bucket.
type Split struct {
	s      *split.Split
	schema *schema.TableSchema
	// filter is the filter the split was planned with, bound to schema;
	// the read applies exactly this one.
	filter *predicate.Predicate
	// from is the table the split was planned on when it is not the
	// read's own: its fallback branch.
	from *Table
}

// Partition returns the typed partition values, aligned with the partition
// keys of the table.
func (sp *Split) Partition() []any { return sp.s.PartitionValues }

// PartitionKeys returns the names of the partition columns.
func (sp *Split) PartitionKeys() []string { return sp.schema.PartitionKeys }

// Bucket returns the split's bucket.
func (sp *Split) Bucket() int32 { return sp.s.Bucket }

// RowCount returns the physical rows in the split's files (before deletion
// vectors and filters).
func (sp *Split) RowCount() int64 { return sp.s.RowCount() }

// Files returns the paths of the split's data files.
func (sp *Split) Files() []string {
	out := make([]string, len(sp.s.Files))
	for i, f := range sp.s.Files {
		out[i] = f.Path
	}
	return out
}

// SnapshotID returns the snapshot the split belongs to.
func (sp *Split) SnapshotID() int64 { return sp.s.SnapshotID }

// FileCount returns the number of data files the split reads.
func (sp *Split) FileCount() int { return len(sp.s.Files) }

// Bytes returns the total size of the split's data files.
func (sp *Split) Bytes() int64 {
	var n int64
	for _, f := range sp.s.Files {
		n += f.Meta.FileSize
	}
	return n
}

// FileInfo describes one data file of a split, as its manifest entry
// records it.
type FileInfo struct {
	Path     string
	Level    int32
	RowCount int64
	Size     int64
	SchemaID int64
}

// DataFiles describes the split's data files, in read order.
func (sp *Split) DataFiles() []FileInfo {
	out := make([]FileInfo, len(sp.s.Files))
	for i, f := range sp.s.Files {
		out[i] = FileInfo{Path: f.Path, Level: f.Meta.Level, RowCount: f.Meta.RowCount, Size: f.Meta.FileSize, SchemaID: f.Meta.SchemaID}
	}
	return out
}

// resolve picks the snapshot and the read schema.
func (rb *ReadBuilder) resolve(ctx context.Context) (*snapshot.Snapshot, *schema.TableSchema, error) {
	t := rb.t
	var snap *snapshot.Snapshot
	var err error
	switch {
	case rb.tag != "":
		tag, err := t.tag(ctx, rb.tag)
		if err != nil {
			return nil, nil, err
		}
		snap = &tag.Snapshot
	case rb.snapshotID > 0:
		snap, err = t.snapshots.Snapshot(ctx, rb.snapshotID)
		if err != nil {
			if fileio.IsNotExist(err) {
				return nil, nil, t.noSnapshot(ctx, rb.snapshotID, err)
			}
			return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
		}
	default:
		stored, err := storedStart(t.schema)
		if err != nil {
			return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		switch {
		case stored.Mode == "incremental":
			// Several snapshots' changes, not one snapshot: only Plan reads it.
			return nil, nil, fmt.Errorf("table %s: option %s (an incremental read stored in the table) names no single snapshot: %w", t.name, stored.Stored, types.ErrUnsupported)
		case stored.Tag != "":
			return (&ReadBuilder{t: t, tag: stored.Tag}).resolve(ctx)
		case stored.SnapshotID > 0:
			return (&ReadBuilder{t: t, snapshotID: stored.SnapshotID}).resolve(ctx)
		case stored.Millis != nil:
			at, ok, err := t.snapshots.EarlierOrEqualTime(ctx, *stored.Millis)
			if err != nil {
				return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
			}
			if !ok {
				return nil, nil, notExist(fmt.Sprintf("table %s: option scan.timestamp-millis=%d: no snapshot was committed at or before it", t.name, *stored.Millis))
			}
			return (&ReadBuilder{t: t, snapshotID: at.ID}).resolve(ctx)
		}
		var ok bool
		snap, ok, err = t.snapshots.Latest(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		if !ok {
			snap = nil
		}
		if snap != nil && stored.Mode == "compacted-full" {
			// Java's batch compacted-full read: the latest (full)
			// compaction's snapshot in full, read in the current schema.
			earliest, _, err := t.snapshots.EarliestID(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
			}
			id, err := stream.CompactedFullID(ctx, t.snapshots, t.schema, earliest, snap.ID)
			if err != nil {
				return nil, nil, fmt.Errorf("table %s: scan.mode=compacted-full: %w", t.name, err)
			}
			if snap, err = t.snapshots.Snapshot(ctx, id); err != nil {
				return nil, nil, fmt.Errorf("table %s: %w", t.name, err)
			}
		}
	}
	s := t.schema
	if snap != nil && (rb.tag != "" || rb.snapshotID > 0) {
		if s, err = t.timeTravelSchema(ctx, snap); err != nil {
			return nil, nil, err
		}
	}
	return snap, s, nil
}

// storedStart is where a batch read that names no snapshot or tag starts
// when the table stores a read position in its own options: Java's batch
// scans apply them (TimeTravelUtil, the scan.mode starting scanners), so a
// read of the latest snapshot instead would return other rows than Java's
// without a word. The positions this reader does not take are refused by
// name.
func storedStart(s *schema.TableSchema) (schema.ReadPosition, error) {
	pos, err := s.ReadPosition()
	if err != nil {
		return pos, err
	}
	refuse := func(key string) error {
		return fmt.Errorf("option %s=%s (a read position stored in the table, which Java's batch reads start from): %w", key, s.Options[key], types.ErrUnsupported)
	}
	if pos.Mode == "incremental" && (pos.Other == "incremental-between" || pos.Other == "incremental-between-timestamp") {
		return pos, nil // Plan reads it (planIncremental)
	}
	if pos.Other != "" {
		return pos, refuse(pos.Other)
	}
	switch pos.Mode {
	case "latest-full", "latest", "from-snapshot", "from-snapshot-full", "from-timestamp", "compacted-full":
		return pos, nil
	}
	return pos, refuse("scan.mode")
}

// noSnapshot is the error of a read of snapshot id, which does not exist:
// it names the snapshots the table holds (and wraps err, a not-exist
// error, so it stays permanent).
func (t *Table) noSnapshot(ctx context.Context, id int64, err error) error {
	held := "the table has no snapshot"
	lo, okLo, err1 := t.snapshots.EarliestID(ctx)
	hi, okHi, err2 := t.snapshots.LatestID(ctx)
	switch {
	case err1 != nil || err2 != nil:
		held = "the snapshots it holds could not be listed"
	case okLo && okHi && id > hi:
		held = fmt.Sprintf("the latest is %d, the table holds snapshots %d..%d", hi, lo, hi)
	case okLo && okHi:
		held = fmt.Sprintf("expired or never written: the table holds snapshots %d..%d", lo, hi)
	}
	return notExist(fmt.Sprintf("table %s: snapshot %d does not exist (%s)", t.name, id, held))
}

// timeTravelSchema is the schema a read of exactly one past snapshot (or
// tag) uses: the one that snapshot was written under, as Java's time travel
// (scan.snapshot-id, scan.tag-name; Spark VERSION AS OF, Flink FOR
// SYSTEM_TIME AS OF) switches the table to it. Columns added later are not
// in it; columns dropped later are.
func (t *Table) timeTravelSchema(ctx context.Context, snap *snapshot.Snapshot) (*schema.TableSchema, error) {
	if snap.SchemaID == t.schema.ID {
		return t.schema, nil
	}
	s, err := t.schemas.Schema(ctx, snap.SchemaID)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if err := checkSupported(s); err != nil {
		return nil, fmt.Errorf("table %s schema %d: %w", t.name, s.ID, err)
	}
	return s, nil
}

// Plan resolves the snapshot and plans its live files, grouped into
// splits (pypaimon's new_scan().plan()). A table without snapshots yields
// an empty plan. Without WithSnapshot or WithTag, a read position the
// table stores in its options is where the read starts, as in Java; an
// incremental one (incremental-between) plans the changes of several
// snapshots, read unmerged with their row kinds, or in the diff scan mode
// and between two tags the difference of two snapshots' contents; its
// SnapshotID is the last snapshot of the range.
func (rb *ReadBuilder) Plan(ctx context.Context) (*Plan, error) {
	if rb.tag == "" && rb.snapshotID == 0 && rb.t.fallback == nil {
		if pos, err := rb.t.schema.ReadPosition(); err == nil && pos.Mode == "incremental" {
			if _, err := storedStart(rb.t.schema); err != nil {
				return nil, fmt.Errorf("table %s: %w", rb.t.name, err)
			}
			filter, err := bindFilter(rb.t.schema, rb.filterExpr, rb.opts.Filter)
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", rb.t.name, err)
			}
			return rb.planIncremental(ctx, rb.t.schema, filter)
		}
	}
	snap, sch, err := rb.resolve(ctx)
	if err != nil {
		return nil, err
	}
	filter, err := bindFilter(sch, rb.filterExpr, rb.opts.Filter)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", rb.t.name, err)
	}
	if rb.t.fallback != nil {
		if err := partitionOnly(rb.t, sch, filter); err != nil {
			return nil, err
		}
	}
	out := &Plan{schema: sch}
	if snap != nil {
		planner := rb.t.planner(sch, filter, rb.opts.BucketFilter, batchLevels(sch))
		p, err := planner.PlanSnapshot(ctx, snap, scan.Full)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", rb.t.name, err)
		}
		out = wrapPlan(p, sch)
	}
	if rb.t.fallback != nil {
		if err := rb.addFallback(ctx, out, snap, sch); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// partitionOnly refuses a batch read's filter on other than partition
// columns when the table has a fallback branch: Java reads a partition
// from the fallback when its filtered plan of the table has no split
// there, which depends on the files the table's statistics pruned, so no
// reader that prunes by other rules can return Java's rows.
func partitionOnly(t *Table, sch *schema.TableSchema, filter *predicate.Predicate) error {
	if filter == nil {
		return nil
	}
	for _, name := range filter.Fields() {
		if !slices.Contains(sch.PartitionKeys, name) {
			return fmt.Errorf("table %s: filter on column %s with scan.fallback-branch=%s: a batch read of a table with a fallback branch filters on partition columns only (%s); Java picks the fallback's partitions from its statistics-pruned plan: %w",
				t.name, name, sch.ScanFallbackBranch(), strings.Join(sch.PartitionKeys, ", "), types.ErrUnsupported)
		}
	}
	return nil
}

// addFallback adds to plan the fallback branch's splits of the partitions
// plan has no split in, as Java's batch scan of a table with
// scan.fallback-branch. The fallback is read at its latest snapshot; for a
// read of snapshot N, at its newest snapshot committed by N's time, or its
// first when it has none that old; for a tag, at its own tag of that name.
func (rb *ReadBuilder) addFallback(ctx context.Context, plan *Plan, snap *snapshot.Snapshot, sch *schema.TableSchema) error {
	f := rb.t.fallback
	fb := &ReadBuilder{t: f, opts: rb.opts, tag: rb.tag, filterExpr: rb.filterExpr}
	if rb.snapshotID > 0 {
		fb.snapshotID = 1
		s, ok, err := f.snapshots.EarlierOrEqualTime(ctx, snap.TimeMillis)
		if err != nil {
			return fmt.Errorf("table %s: %w", f.name, err)
		}
		if ok {
			fb.snapshotID = s.ID
		}
	}
	fsnap, fsch, err := fb.resolve(ctx)
	if err != nil {
		return err
	}
	if err := sameRowType(rb.t, sch, f, fsch); err != nil {
		return err
	}
	if fsnap == nil {
		return nil
	}
	filter, err := bindFilter(fsch, rb.filterExpr, rb.opts.Filter)
	if err != nil {
		return fmt.Errorf("table %s: %w", f.name, err)
	}
	p, err := f.planner(fsch, filter, rb.opts.BucketFilter, batchLevels(fsch)).PlanSnapshot(ctx, fsnap, scan.Full)
	if err != nil {
		return fmt.Errorf("table %s: %w", f.name, err)
	}
	// Partitions are compared as Java compares them: by their serialized
	// BinaryRow.
	have := make(map[string]bool, len(plan.Splits))
	for _, sp := range plan.Splits {
		have[string(sp.s.Partition)] = true
	}
	for _, sp := range p.Splits {
		if !have[string(sp.Partition)] {
			plan.Splits = append(plan.Splits, &Split{s: sp, schema: fsch, filter: p.Filter, from: f})
		}
	}
	return nil
}

// sameRowType is Java's check of a table and its fallback branch before a
// batch scan: the same column types in order (nullability aside) and, when
// the table has a primary key, the same one. Column names must match too:
// rows of both are read into one output by name.
func sameRowType(t *Table, sch *schema.TableSchema, f *Table, fsch *schema.TableSchema) error {
	mismatch := func(what string) error {
		return fmt.Errorf("table %s and its fallback branch %s (scan.fallback-branch): %s: %w", t.name, f.name, what, types.ErrUnsupported)
	}
	if len(sch.Fields) != len(fsch.Fields) {
		return mismatch(fmt.Sprintf("%d columns against %d", len(sch.Fields), len(fsch.Fields)))
	}
	for i, a := range sch.Fields {
		b := fsch.Fields[i]
		if a.Name != b.Name || !a.Type.WithNullable(true).Equal(b.Type.WithNullable(true)) {
			return mismatch(fmt.Sprintf("column %d is %s %s against %s %s", i, a.Name, a.Type, b.Name, b.Type))
		}
	}
	if len(sch.PrimaryKeys) > 0 && !slices.Equal(sch.PrimaryKeys, fsch.PrimaryKeys) {
		return mismatch(fmt.Sprintf("primary key (%s) against (%s)", strings.Join(sch.PrimaryKeys, ", "), strings.Join(fsch.PrimaryKeys, ", ")))
	}
	return nil
}

func wrapPlan(p *scan.Plan, sch *schema.TableSchema) *Plan {
	out := &Plan{SnapshotID: p.Snapshot.ID, schema: sch, Splits: make([]*Split, len(p.Splits))}
	for i, sp := range p.Splits {
		out.Splits[i] = &Split{s: sp, schema: sch, filter: p.Filter}
	}
	return out
}

// bindFilter resolves a read's filter — text in Parse's syntax and/or a
// built predicate — by column name in sch, the schema its rows are read
// in: a past snapshot's in time travel, the scan's at a stream's first
// plan. It is the one place a filter meets a schema, so that pruning and
// the row filter can never resolve a name differently.
func bindFilter(sch *schema.TableSchema, text string, built *predicate.Predicate) (*predicate.Predicate, error) {
	var parsed *predicate.Predicate
	if text != "" {
		p, err := predicate.Parse(text, sch.Fields)
		if err != nil {
			return nil, fmt.Errorf("filter in schema %d: %w", sch.ID, columnHint(err, sch))
		}
		parsed = p
	}
	bound, err := predicate.Bind(built, sch.Fields)
	if err != nil {
		return nil, fmt.Errorf("filter in schema %d: %w", sch.ID, columnHint(err, sch))
	}
	return predicate.AndOf(bound, parsed), nil
}

// Read reads splits with a fixed copy of a builder's options.
type Read struct {
	t    *Table
	opts readOptions
}

// ReadStats are counters of the files, bytes and rows reads really opened;
// a caller can read them while reads run.
type ReadStats = read.Stats

// WithStats makes reads count files, bytes and rows into st.
func (r *Read) WithStats(st *ReadStats) *Read {
	nr := *r
	nr.opts.Stats = st
	return &nr
}

// WithDictionary returns a copy of the read that returns dictionary
// arrays where WithDictionary allows them (v true) or plain arrays
// only (v false).
func (r *Read) WithDictionary(v bool) *Read {
	nr := *r
	nr.opts.Dictionary = v
	return &nr
}

// NewRead returns the reader of this read.
func (rb *ReadBuilder) NewRead() *Read { return &Read{t: rb.t, opts: rb.opts} }

// Read returns a record reader over one split; the caller must Release it.
func (r *Read) Read(ctx context.Context, sp *Split) (array.RecordReader, error) {
	rd, err := r.opts.readerFor(cmp.Or(sp.from, r.t), sp)
	if err != nil {
		return nil, err
	}
	return rd.Read(ctx, sp.s)
}

// WithWideTimestamps returns a copy of the read that gives TIMESTAMP(7..9)
// columns as types.WideTimestampType (v true) or Arrow nanosecond
// timestamps (v false); see ReadBuilder.WithWideTimestamps.
func (r *Read) WithWideTimestamps(v bool) *Read {
	nr := *r
	nr.opts.WideTimestamps = v
	return &nr
}

// OutputSchema returns the Arrow schema of the records of a read of the
// table's current schema.
func (r *Read) OutputSchema() (*arrow.Schema, error) {
	fields, err := projectFields(r.t.schema, r.opts.Projection)
	if err != nil {
		return nil, err
	}
	rd := &read.Reader{Schema: r.t.schema, Fields: fields, IncludeRowKind: r.opts.IncludeRowKind, WideTimestamps: r.opts.WideTimestamps}
	return rd.OutputSchema()
}
