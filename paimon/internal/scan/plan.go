// Package scan plans reads: it turns a snapshot into the live data files of
// the table, prunes them by partition, bucket and statistics, and groups them
// into splits of one (partition, bucket) each. The streaming scan builds on
// the same planner for the delta and changelog files of later snapshots.
package scan

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/binrow"
	"github.com/connect-paimon/connect-paimon/paimon/internal/format"
	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Plan is the result of planning one snapshot.
type Plan struct {
	Snapshot *snapshot.Snapshot
	Splits   []*split.Split
	// Filter is the planner's filter: the splits must be read with the
	// filter that pruned them.
	Filter *predicate.Predicate
}

// Planner plans reads of one table.
type Planner struct {
	FIO       fileio.FileIO
	TableRoot string
	// Schema is the read schema (the latest, or the snapshot's schema when
	// time travelling).
	Schema *schema.TableSchema
	// Schemas resolves the schemas data files were written with, for stats.
	Schemas *schema.Manager
	// Filter, over Schema's fields, prunes partitions and files. Files are
	// only skipped when the filter can't match any of their rows.
	Filter *predicate.Predicate
	// BucketFilter, when set, keeps only the buckets it accepts.
	BucketFilter func(bucket int32) bool
	// FileShare, when set, keeps only the data files of one part of a
	// bucket-unaware table (Share).
	FileShare *Share
	Paths     *PathFactory

	// Parallelism bounds concurrent manifest reads (default 8).
	Parallelism int
	// Manifests decodes manifest files, caching writer schemas; share one
	// per table. Nil decodes without a cache.
	Manifests *manifest.Decoder
	// PrimaryKey is set for primary-key tables: value statistics never
	// prune their files, because a file whose rows don't match may hold the
	// newest version of a key whose older version does.
	PrimaryKey bool
	// ReadPostpone includes the postpone bucket (-2): Java's streaming scans
	// read it (its splits unmerged, every record with its kind), batch scans
	// and changelog-producer streams don't.
	ReadPostpone bool
	// LevelFilter, when set, keeps only ADD entries whose level it accepts
	// in full plans (Java's level-0 skipping and first-plan level rules).
	LevelFilter func(level int32) bool

	partFilter  *predicate.Predicate
	partTypes   []types.DataType
	levelFilter func(int32) bool // LevelFilter, for the plan being built
	prepared    bool
}

func (p *Planner) prepare() error {
	if p.prepared {
		return nil
	}
	pf := p.Schema.PartitionFields()
	p.partTypes = make([]types.DataType, len(pf))
	for i, f := range pf {
		p.partTypes[i] = f.Type
	}
	if p.Filter != nil && len(pf) > 0 {
		p.partFilter = predicate.PartitionPart(p.Filter, pf)
	}
	p.prepared = true
	return nil
}

// PostponeBucket is the bucket id of bucket = -2 tables' not yet assigned
// files.
const PostponeBucket = -2

func (p *Planner) parallelism() int {
	if p.Parallelism > 0 {
		return p.Parallelism
	}
	return 8
}

// ManifestKind selects which manifest list of a snapshot to plan.
type ManifestKind int

// The manifest lists a snapshot has.
const (
	// Full is base + delta: the table's whole content at the snapshot.
	Full ManifestKind = iota
	// Delta is the files this snapshot's commit added or removed.
	Delta
	// Changelog is the changelog files this commit produced.
	Changelog
)

// PlanSnapshot plans the snapshot's files of the given kind.
func (p *Planner) PlanSnapshot(ctx context.Context, snap *snapshot.Snapshot, kind ManifestKind) (*Plan, error) {
	if err := p.prepare(); err != nil {
		return nil, err
	}
	p.levelFilter = nil
	if kind == Full {
		p.levelFilter = p.LevelFilter
	}
	lists, rows := manifestLists(snap, kind)
	entries, err := p.readEntries(ctx, snap, lists, rows)
	if err != nil {
		return nil, err
	}
	live, err := manifest.MergeEntries(entries)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %w", snap.ID, err)
	}
	splits, err := p.group(ctx, snap, live, kind == Changelog)
	if err != nil {
		return nil, err
	}
	for _, sp := range splits {
		// Streaming delta/changelog splits and postpone-bucket splits are
		// read unmerged: postpone files are written unsorted, one run each.
		if p.PrimaryKey && (kind != Full || sp.Bucket == PostponeBucket) {
			sp.Raw = true
		}
	}
	if kind == Full {
		if err := p.attachDeletionVectors(ctx, snap, splits); err != nil {
			return nil, err
		}
	}
	return &Plan{Snapshot: snap, Splits: splits, Filter: p.Filter}, nil
}

// listRef is one manifest list of a snapshot with the size the snapshot
// records for it (nil: not recorded).
type listRef struct {
	name string
	size *int64
}

// manifestLists returns the snapshot's manifest lists of a kind and the
// row count the snapshot records over all their entries, ADD rows minus
// DELETE rows (nil when not recorded): totalRecordCount for base + delta,
// deltaRecordCount for delta, changelogRecordCount for the changelog.
func manifestLists(snap *snapshot.Snapshot, kind ManifestKind) ([]listRef, *int64) {
	switch kind {
	case Full:
		return []listRef{{snap.BaseManifestList, snap.BaseManifestListSize}, {snap.DeltaManifestList, snap.DeltaManifestListSize}}, snap.TotalRecordCount
	case Delta:
		return []listRef{{snap.DeltaManifestList, snap.DeltaManifestListSize}}, snap.DeltaRecordCount
	case Changelog:
		if snap.ChangelogManifestList != nil && *snap.ChangelogManifestList != "" {
			return []listRef{{*snap.ChangelogManifestList, snap.ChangelogManifestListSize}}, snap.ChangelogRecordCount
		}
	}
	return nil, nil
}

// readEntries reads the entries of the given manifest lists that may match
// the planner's filters, in manifest order. Every file is checked against
// what its parent records (list sizes from the snapshot; manifest sizes and
// entry counts from the list), and when no manifest was pruned the rows of
// all entries against wantRows: a file cut short parses as a shorter valid
// one, and must be an error, not fewer rows.
func (p *Planner) readEntries(ctx context.Context, snap *snapshot.Snapshot, lists []listRef, wantRows *int64) ([]manifest.Entry, error) {
	var metas []manifest.FileMeta
	for _, l := range lists {
		if l.name == "" {
			continue
		}
		var want manifest.Want
		if l.size != nil {
			want.Size = *l.size
		}
		ms, err := p.Manifests.ReadManifestList(ctx, p.FIO, p.manifestPath(l.name), want)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", snap.ID, err)
		}
		metas = append(metas, ms...)
	}
	var todo []*manifest.FileMeta
	for i := range metas {
		if p.manifestMayMatch(&metas[i]) {
			todo = append(todo, &metas[i])
		}
	}
	complete := len(todo) == len(metas)
	rows := make([]int64, len(todo)) // ADD minus DELETE rows, per manifest
	// Manifests are read concurrently (object stores answer slowly, local
	// decoding is CPU-bound) and concatenated in manifest-list order, so the
	// plan is the same as a sequential read.
	per := make([][]manifest.Entry, len(todo))
	errs := make([]error, len(todo))
	workers := min(p.parallelism(), len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				path := p.manifestPath(todo[i].FileName)
				errs[i] = p.Manifests.ReadManifestFunc(ctx, p.FIO, path, manifest.WantManifest(todo[i]), func(e *manifest.Entry) error {
					if e.Kind == manifest.Add {
						rows[i] += e.File.RowCount
					} else {
						rows[i] -= e.File.RowCount
					}
					keep, err := p.entryMayMatch(ctx, e)
					if err != nil {
						return fmt.Errorf("manifest %s: %w", path, err)
					}
					if keep {
						per[i] = append(per[i], *e)
					}
					return nil
				})
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	n := 0
	var total int64
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", snap.ID, err)
		}
		n += len(per[i])
		total += rows[i]
	}
	if complete && wantRows != nil && total != *wantRows {
		return nil, fmt.Errorf("snapshot %d: its manifests hold %d rows (added minus deleted), the snapshot records %d: %w",
			snap.ID, total, *wantRows, types.ErrCorrupt)
	}
	entries := make([]manifest.Entry, 0, n)
	for _, es := range per {
		entries = append(entries, es...)
	}
	return entries, nil
}

// PlanOverwriteChanges plans what an OVERWRITE snapshot changed: the files
// it removed (as retraction splits, every row -D) and the files it added,
// leaving out files both removed and re-added (Java's readChanges).
func (p *Planner) PlanOverwriteChanges(ctx context.Context, snap *snapshot.Snapshot) (*Plan, error) {
	if err := p.prepare(); err != nil {
		return nil, err
	}
	lists, rows := manifestLists(snap, Delta)
	entries, err := p.readEntries(ctx, snap, lists, rows)
	if err != nil {
		return nil, err
	}
	type id = manifest.Identifier
	added := map[id]bool{}
	deleted := map[id]bool{}
	for i := range entries {
		k := manifest.EntryIdentifier(entries[i])
		if entries[i].Kind == manifest.Add {
			added[k] = true
		} else {
			deleted[k] = true
		}
	}
	var before, after []manifest.Entry
	for i := range entries {
		e := entries[i]
		k := manifest.EntryIdentifier(e)
		if added[k] && deleted[k] {
			continue
		}
		if e.Kind == manifest.Add {
			after = append(after, e)
		} else {
			e.Kind = manifest.Add
			before = append(before, e)
		}
	}
	bs, err := p.group(ctx, snap, before, false)
	if err != nil {
		return nil, err
	}
	for _, sp := range bs {
		sp.Retract = true
	}
	as, err := p.group(ctx, snap, after, false)
	if err != nil {
		return nil, err
	}
	return &Plan{Snapshot: snap, Splits: append(bs, as...), Filter: p.Filter}, nil
}

func (p *Planner) manifestPath(name string) string {
	return fileio.Join(p.TableRoot, "manifest", name)
}

// manifestMayMatch prunes whole manifests by their partition stats and
// bucket range.
func (p *Planner) manifestMayMatch(m *manifest.FileMeta) bool {
	if p.BucketFilter != nil && m.MinBucket != nil && m.MaxBucket != nil && *m.MaxBucket-*m.MinBucket < 64 {
		any := false
		for b := *m.MinBucket; b <= *m.MaxBucket; b++ {
			if p.BucketFilter(b) {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	if p.partFilter == nil || len(m.PartitionStats.MinValues) == 0 {
		return true
	}
	minV, err1 := binrow.Decode(m.PartitionStats.MinValues, p.partTypes)
	maxV, err2 := binrow.Decode(m.PartitionStats.MaxValues, p.partTypes)
	if err1 != nil || err2 != nil || len(minV) != len(p.partTypes) || len(maxV) != len(p.partTypes) {
		return true // stats are hints: unreadable ones never prune
	}
	return p.partFilter.TestStats(m.NumAddedFiles+m.NumDeletedFiles, minV, maxV, m.PartitionStats.NullCounts)
}

// entryMayMatch decides whether a manifest entry can hold matching rows.
// DELETE entries are only pruned by partition and bucket (never by stats,
// which writers may drop for them), so a pruned ADD never outlives its
// DELETE.
func (p *Planner) entryMayMatch(ctx context.Context, e *manifest.Entry) (bool, error) {
	if e.Bucket == PostponeBucket && !p.ReadPostpone {
		// Batch reads only see real buckets (onlyReadRealBuckets): postpone
		// files become visible after compaction moves them.
		return false, nil
	}
	if p.BucketFilter != nil && !p.BucketFilter(e.Bucket) {
		return false, nil
	}
	if p.FileShare != nil && !p.FileShare.Owns(e) {
		return false, nil
	}
	if p.partFilter != nil {
		vals, err := binrow.Decode(e.Partition, p.partTypes)
		if err != nil {
			return false, fmt.Errorf("partition of %s: %w", e.File.FileName, err)
		}
		if !p.partFilter.Test(vals) {
			return false, nil
		}
	}
	if e.Kind == manifest.Add && p.levelFilter != nil && !p.levelFilter(e.File.Level) {
		return false, nil
	}
	// A data-evolution file's statistics cover only the columns it holds
	// of rows whose other columns other files hold: pruning one file of
	// such rows would return the others' columns alone. Java does not
	// prune them either (DataEvolutionFileStoreScan).
	if e.Kind != manifest.Add || p.Filter == nil || p.PrimaryKey || p.Schema.DataEvolutionEnabled() {
		return true, nil
	}
	return p.statsMayMatch(ctx, &e.File)
}

// statsMayMatch evaluates the filter on a file's value stats, evolved from
// the file's schema to the read schema by field id.
func (p *Planner) statsMayMatch(ctx context.Context, f *manifest.DataFileMeta) (bool, error) {
	fileSchema, err := p.Schemas.Schema(ctx, f.SchemaID)
	if err != nil {
		return false, fmt.Errorf("schema %d of data file %s: %w", f.SchemaID, f.FileName, err)
	}
	statsFields, err := schema.StatsFields(fileSchema, f.ValueStatsCols, f.WriteCols)
	if err != nil {
		return true, nil
	}
	if len(statsFields) == 0 {
		return true, nil
	}
	st := make([]types.DataType, len(statsFields))
	for i, sf := range statsFields {
		st[i] = sf.Type.WithNullable(true)
	}
	minV, err1 := binrow.Decode(f.ValueStats.MinValues, st)
	maxV, err2 := binrow.Decode(f.ValueStats.MaxValues, st)
	if err1 != nil || err2 != nil {
		return true, nil
	}
	// ORC's writer pads CHAR(n) values to n characters and records the
	// padded values in its statistics, which Java's OrcSimpleStatsExtractor
	// copies into the manifest; the reader returns the values right-trimmed.
	// A bound "ab0  " above the value "ab0" would prune files holding
	// matching rows, so CHAR bounds of ORC files are unknown.
	fileFormat, _ := format.FormatOf(f.FileName)
	padsChar := fileFormat == format.ORC
	target := p.Schema.Fields
	tMin := make([]any, len(target))
	tMax := make([]any, len(target))
	tNulls := make([]*int64, len(target))
	for i, tf := range target {
		j := typeutil.FieldByID(statsFields, tf.ID)
		if j < 0 {
			if typeutil.FieldByID(fileSchema.Fields, tf.ID) < 0 {
				// Column added after the file was written: all null.
				rc := f.RowCount
				tNulls[i] = &rc
			}
			continue
		}
		// Stats of a column whose type changed are in the old type; they
		// would compare wrongly, so they are left unknown.
		if statsFields[j].Type.WithNullable(true).String() != tf.Type.WithNullable(true).String() {
			continue
		}
		if j < len(f.ValueStats.NullCounts) {
			tNulls[i] = f.ValueStats.NullCounts[j]
		}
		if padsChar && tf.Type.Root == types.Char {
			continue
		}
		if j < len(minV) {
			tMin[i] = minV[j]
		}
		if j < len(maxV) {
			tMax[i] = maxV[j]
			if m, ok := tMax[i].(string); ok && strings.HasSuffix(m, "?") && fileSchema.StatsMayRoundUpMax(statsFields[j].Name) {
				tMax[i] = nil // may be a lone surrogate Java wrote as '?': no bound
			}
		}
	}
	return p.Filter.TestStats(f.RowCount, tMin, tMax, tNulls), nil
}

// group builds one split per (partition, bucket), ordered by partition bytes
// then bucket so plans are deterministic.
func (p *Planner) group(ctx context.Context, snap *snapshot.Snapshot, live []manifest.Entry, changelog bool) ([]*split.Split, error) {
	type key struct {
		part   string
		bucket int32
	}
	idx := map[key]*split.Split{}
	var out []*split.Split
	for i := range live {
		e := &live[i]
		k := key{string(e.Partition), e.Bucket}
		sp := idx[k]
		if sp == nil {
			vals, err := decodePartition(e.Partition, p.partTypes)
			if err != nil {
				return nil, fmt.Errorf("partition of data file %s: %w", e.File.FileName, err)
			}
			dir, err := p.Paths.BucketDir(vals, e.Bucket)
			if err != nil {
				return nil, fmt.Errorf("data file %s: %w", e.File.FileName, err)
			}
			sp = &split.Split{
				SnapshotID: snap.ID, Partition: e.Partition, PartitionValues: vals,
				Bucket: e.Bucket, TotalBuckets: e.TotalBuckets, BucketPath: dir, Changelog: changelog,
			}
			idx[k] = sp
			out = append(out, sp)
		}
		path := fileio.Join(sp.BucketPath, e.File.FileName)
		if e.File.ExternalPath != nil && *e.File.ExternalPath != "" {
			path = *e.File.ExternalPath
		}
		sp.Files = append(sp.Files, split.DataFile{Meta: e.File, Path: path})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if c := bytes.Compare(out[i].Partition, out[j].Partition); c != 0 {
			return c < 0
		}
		return out[i].Bucket < out[j].Bucket
	})
	for _, sp := range out {
		// Within a bucket, older files first: sequence order is the order
		// rows were written, which keeps reads stable and is what the merge
		// of primary-key tables needs.
		sort.SliceStable(sp.Files, func(i, j int) bool {
			a, b := sp.Files[i].Meta, sp.Files[j].Meta
			if a.MinSequenceNumber != b.MinSequenceNumber {
				return a.MinSequenceNumber < b.MinSequenceNumber
			}
			return a.FileName < b.FileName
		})
	}
	return out, nil
}

// decodePartition decodes a partition row; an unpartitioned table's empty
// row decodes to no values.
func decodePartition(b []byte, partTypes []types.DataType) ([]any, error) {
	if len(partTypes) == 0 {
		return nil, nil
	}
	return binrow.Decode(b, partTypes)
}
