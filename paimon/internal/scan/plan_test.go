package scan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/read"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// The planner on the committed fixture tables of resources/fixtures: pypaimon- and
// Java-written append tables (whose oracle reads are expected/*.jsonl) and the Java
// primary-key tables of resources/fixtures/pk. The truth each test compares with comes from
// outside the planner: the data files on disk, the writers' own reads, Java's batch reads.

type table struct {
	root    string
	fio     fileio.FileIO
	schemas *schema.Manager
	schema  *schema.TableSchema
	snaps   *snapshot.Manager
}

func fixturesDir(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "resources", "fixtures")
}

func openTable(t *testing.T, dir, name string) *table {
	t.Helper()
	db, tbl, _ := strings.Cut(name, ".")
	root := filepath.Join(dir, "warehouse", db+".db", tbl)
	fio := fileio.NewLocal()
	sm := schema.NewManager(fio, root, "main")
	s, err := sm.Latest(context.Background())
	if err != nil {
		t.Fatalf("schema of %s: %v", name, err)
	}
	return &table{root: root, fio: fio, schemas: sm, schema: s, snaps: snapshot.NewManager(fio, root, "main")}
}

// planner is set up the way the public Table sets it up, without filter or level rules.
func (tb *table) planner() *scan.Planner {
	return &scan.Planner{
		FIO: tb.fio, TableRoot: tb.root, Schema: tb.schema, Schemas: tb.schemas,
		PrimaryKey: len(tb.schema.PrimaryKeys) > 0,
		Paths:      scan.NewPathFactory(tb.root, tb.schema),
	}
}

// plan plans snapshot id (the latest when id <= 0).
func (tb *table) plan(t *testing.T, p *scan.Planner, id int64, kind scan.ManifestKind) *scan.Plan {
	t.Helper()
	ctx := context.Background()
	var snap *snapshot.Snapshot
	var err error
	if id <= 0 {
		var ok bool
		snap, ok, err = tb.snaps.Latest(ctx)
		if err == nil && !ok {
			t.Fatalf("%s has no snapshot", tb.root)
		}
	} else {
		snap, err = tb.snaps.Snapshot(ctx, id)
	}
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.PlanSnapshot(ctx, snap, kind)
	if err != nil {
		t.Fatalf("plan snapshot %d of %s: %v", snap.ID, tb.root, err)
	}
	return pl
}

// readAll reads splits in full (every column, no filter) into canonical JSON lines, with wide
// timestamps (javagen.ts_extreme_* holds TIMESTAMP(7..9) values no nanosecond column holds).
func (tb *table) readAll(t *testing.T, splits []*split.Split) []string {
	t.Helper()
	rd := &read.Reader{FIO: tb.fio, Schema: tb.schema, Schemas: tb.schemas, Fields: tb.schema.Fields, WideTimestamps: true}
	var out []string
	for _, sp := range splits {
		rr, err := rd.Read(context.Background(), sp)
		if err != nil {
			t.Fatalf("read split %s: %v", sp.BucketPath, err)
		}
		l, err := canon.Reader(rr)
		rr.Release()
		if err != nil {
			t.Fatalf("read split %s: %v", sp.BucketPath, err)
		}
		out = append(out, l...)
	}
	sort.Strings(out)
	return out
}

// dataFilesOnDisk lists every data file under the table directory.
func dataFilesOnDisk(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "data-") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func plannedFiles(pl *scan.Plan) []string {
	var out []string
	for _, sp := range pl.Splits {
		for _, f := range sp.Files {
			out = append(out, filepath.FromSlash(f.Path))
		}
	}
	sort.Strings(out)
	return out
}

// appendTables never overwrote, compacted or branched: every data file on disk is live.
var appendTables = []string{
	"interop.bucket4", "interop.part_date_region", "interop.part_special_chars",
	"interop.types_avro_snappy", "interop.types_parquet_zstd", "interop.types_single",
	"interop.evolution", "javagen.part_legacy", "javagen.ts_decimal", "javagen.avro_types", "javagen.path_dir",
}

// A full plan has one split per (partition, bucket), in partition-bytes then bucket order,
// each file in its split's bucket directory, and together exactly the data files on disk,
// holding as many rows as the writer's own full read returned.
func TestSplitPerPartitionAndBucket(t *testing.T) {
	dir := fixturesDir(t)
	for _, name := range appendTables {
		t.Run(name, func(t *testing.T) {
			tb := openTable(t, dir, name)
			pl := tb.plan(t, tb.planner(), 0, scan.Full)
			if len(pl.Splits) == 0 {
				t.Fatal("no splits")
			}
			var rows int64
			buckets := map[string]bool{}
			for i, sp := range pl.Splits {
				key := string(sp.Partition) + "/" + strconv.Itoa(int(sp.Bucket))
				if buckets[key] {
					t.Errorf("two splits for partition %v bucket %d", sp.PartitionValues, sp.Bucket)
				}
				buckets[key] = true
				if i > 0 {
					prev := pl.Splits[i-1]
					if c := bytes.Compare(prev.Partition, sp.Partition); c > 0 || (c == 0 && prev.Bucket >= sp.Bucket) {
						t.Errorf("split %d (%v, bucket %d) is out of order after (%v, bucket %d)", i, sp.PartitionValues, sp.Bucket, prev.PartitionValues, prev.Bucket)
					}
				}
				if got := filepath.Base(sp.BucketPath); got != "bucket-"+strconv.Itoa(int(sp.Bucket)) {
					t.Errorf("split of bucket %d has bucket directory %s", sp.Bucket, sp.BucketPath)
				}
				if len(sp.PartitionValues) != len(tb.schema.PartitionKeys) {
					t.Errorf("split %s has %d partition values for keys %v", sp.BucketPath, len(sp.PartitionValues), tb.schema.PartitionKeys)
				}
				if sp.SnapshotID != pl.Snapshot.ID || sp.Raw || sp.Changelog || sp.Retract {
					t.Errorf("append split %s: snapshot %d (plan %d) raw %v changelog %v retract %v", sp.BucketPath, sp.SnapshotID, pl.Snapshot.ID, sp.Raw, sp.Changelog, sp.Retract)
				}
				if len(sp.Files) == 0 {
					t.Errorf("split %s has no files", sp.BucketPath)
				}
				for _, f := range sp.Files {
					if filepath.Dir(filepath.FromSlash(f.Path)) != filepath.FromSlash(sp.BucketPath) {
						t.Errorf("file %s is not in its split's bucket directory %s", f.Path, sp.BucketPath)
					}
					if f.Deletion != nil {
						t.Errorf("append file %s has a deletion vector", f.Path)
					}
				}
				rows += sp.RowCount()
			}
			onDisk := dataFilesOnDisk(t, tb.root)
			if got := plannedFiles(pl); strings.Join(got, "\n") != strings.Join(onDisk, "\n") {
				t.Errorf("planned files\n%s\nwant the data files on disk\n%s", strings.Join(got, "\n"), strings.Join(onDisk, "\n"))
			}
			full := testenv.ReadLines(t, filepath.Join(dir, "expected", name, "full.jsonl"))
			if rows != int64(len(full)) {
				t.Errorf("splits hold %d rows, the writer's full read %d", rows, len(full))
			}
		})
	}
}

// interop.bucket4 has four buckets and no partitions: four splits, buckets 0 to 3.
// interop.part_date_region is partitioned by (dt, region) with one bucket: one split per
// partition directory.
func TestSplitCounts(t *testing.T) {
	dir := fixturesDir(t)
	tb := openTable(t, dir, "interop.bucket4")
	pl := tb.plan(t, tb.planner(), 0, scan.Full)
	var got []int32
	for _, sp := range pl.Splits {
		got = append(got, sp.Bucket)
	}
	if len(got) != 4 || got[0] != 0 || got[1] != 1 || got[2] != 2 || got[3] != 3 {
		t.Errorf("bucket4 split buckets %v, want [0 1 2 3]", got)
	}

	tb = openTable(t, dir, "interop.part_date_region")
	pl = tb.plan(t, tb.planner(), 0, scan.Full)
	parts := map[string]bool{}
	for _, f := range dataFilesOnDisk(t, tb.root) {
		parts[filepath.Dir(f)] = true
	}
	if len(pl.Splits) != len(parts) || len(parts) < 2 {
		t.Errorf("part_date_region: %d splits, %d partition directories with data", len(pl.Splits), len(parts))
	}
	for _, sp := range pl.Splits {
		if !parts[filepath.FromSlash(sp.BucketPath)] {
			t.Errorf("split directory %s holds no data file", sp.BucketPath)
		}
	}
}

// filterCases are the oracle's filter cases on append tables at the latest snapshot.
func filterCases(t *testing.T, dir string) []interop.Case {
	t.Helper()
	cases, err := interop.LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []interop.Case
	for _, c := range cases {
		if c.Filter != nil && c.Snapshot == nil && c.Branch == "" && c.Projection == nil && !c.Facade {
			out = append(out, c)
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d filter cases under %s", len(out), dir)
	}
	return out
}

// Pruning by partition and by file statistics may keep files without a matching row but
// never drops one with a matching row: every file that holds a row of the writer's own
// filtered read is in the filtered plan. Which files hold those rows is found by reading each
// file of the unfiltered plan on its own.
func TestPruningNeverDropsAMatchingFile(t *testing.T) {
	dir := fixturesDir(t)
	pruned := 0
	for _, c := range filterCases(t, dir) {
		t.Run(c.Table+"/"+c.Case, func(t *testing.T) {
			tb := openTable(t, dir, c.Table)
			want := map[string]bool{}
			for _, l := range testenv.ReadLines(t, filepath.Join(dir, filepath.FromSlash(c.Expected))) {
				want[l] = true
			}
			p := tb.planner()
			full := tb.plan(t, p, 0, scan.Full)
			filter, err := predicate.Parse(*c.Filter, tb.schema.Fields)
			if err != nil {
				t.Fatalf("parse %q: %v", *c.Filter, err)
			}
			p = tb.planner()
			p.Filter = filter
			kept := map[string]bool{}
			for _, f := range plannedFiles(tb.plan(t, p, 0, scan.Full)) {
				kept[f] = true
			}
			if tb.schema.DataEvolutionEnabled() {
				// A data-evolution file alone is some columns of rows, not rows:
				// such files are never pruned, so the filtered plan keeps them all.
				all := plannedFiles(full)
				for _, f := range all {
					if !kept[f] {
						t.Errorf("filter %q pruned data-evolution file %s", *c.Filter, f)
					}
				}
				if len(all) == 0 {
					t.Error("no files planned")
				}
				return
			}
			found := 0
			for _, sp := range full.Splits {
				for _, f := range sp.Files {
					one := *sp
					one.Files = []split.DataFile{f}
					matches := 0
					for _, l := range tb.readAll(t, []*split.Split{&one}) {
						if want[l] {
							matches++
						}
					}
					found += matches
					path := filepath.FromSlash(f.Path)
					if matches > 0 && !kept[path] {
						t.Errorf("filter %q pruned %s, which holds %d matching rows", *c.Filter, f.Path, matches)
					}
					if !kept[path] {
						pruned++
					}
				}
			}
			if found < len(want) {
				t.Errorf("the files hold %d of the %d expected rows", found, len(want))
			}
		})
	}
	// The cases include partition filters and selective ranges; if nothing were pruned the
	// test above would hold trivially.
	if pruned == 0 {
		t.Error("no filter case pruned any file")
	}
}

// A filter on partition columns only prunes exactly: the kept files are those of the
// partitions the writer's filtered read returned rows from.
func TestPartitionPruningIsExact(t *testing.T) {
	dir := fixturesDir(t)
	for _, tc := range []struct{ table, filter string }{
		{"interop.part_date_region", "region = 'eu' OR region IS NULL"},
		{"interop.part_special_chars", "region IN ('a/b', 'x=y', 'sp ace', '')"},
		{"interop.part_date_region", "dt > DATE '2024-01-01'"},
	} {
		t.Run(tc.table+"/"+tc.filter, func(t *testing.T) {
			tb := openTable(t, dir, tc.table)
			filter, err := predicate.Parse(tc.filter, tb.schema.Fields)
			if err != nil {
				t.Fatal(err)
			}
			full := tb.plan(t, tb.planner(), 0, scan.Full)
			p := tb.planner()
			p.Filter = filter
			got := tb.plan(t, p, 0, scan.Full)
			// Which splits match, decided from their rows: the partition columns of the
			// rows read with the filter applied row by row.
			rd := &read.Reader{FIO: tb.fio, Schema: tb.schema, Schemas: tb.schemas, Fields: tb.schema.Fields, Filter: filter, WideTimestamps: true}
			var wantFiles []string
			for _, sp := range full.Splits {
				rr, err := rd.Read(context.Background(), sp)
				if err != nil {
					t.Fatal(err)
				}
				l, err := canon.Reader(rr)
				rr.Release()
				if err != nil {
					t.Fatal(err)
				}
				if len(l) > 0 {
					for _, f := range sp.Files {
						wantFiles = append(wantFiles, filepath.FromSlash(f.Path))
					}
				}
			}
			sort.Strings(wantFiles)
			if g := plannedFiles(got); strings.Join(g, "\n") != strings.Join(wantFiles, "\n") {
				t.Errorf("kept\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(wantFiles, "\n"))
			}
			if len(wantFiles) == 0 || len(wantFiles) == len(plannedFiles(full)) {
				t.Errorf("filter keeps %d of %d files: not a pruning case", len(wantFiles), len(plannedFiles(full)))
			}
		})
	}
}

// BucketFilter keeps exactly the accepted buckets.
func TestBucketFilter(t *testing.T) {
	tb := openTable(t, fixturesDir(t), "interop.bucket4")
	p := tb.planner()
	p.BucketFilter = func(b int32) bool { return b == 1 || b == 3 }
	pl := tb.plan(t, p, 0, scan.Full)
	var got []int32
	for _, sp := range pl.Splits {
		got = append(got, sp.Bucket)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("buckets %v, want [1 3]", got)
	}
}

// pkBatchCases returns Java's batch reads of a primary-key table, by snapshot.
func pkBatchCases(t *testing.T, table string) map[int64]string {
	t.Helper()
	var cf struct {
		Cases []struct {
			Table, Kind, Expected string
			Snapshot              int64
		}
	}
	b, err := os.ReadFile(filepath.Join(fixturesDir(t), "pk", "cases-pk.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cf); err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, c := range cf.Cases {
		if c.Table == table && c.Kind == "batch" {
			out[c.Snapshot] = filepath.Join(fixturesDir(t), "pk", filepath.FromSlash(c.Expected))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no batch cases for %s", table)
	}
	return out
}

// Level 0: a LevelFilter applies to full plans only and drops exactly the files it rejects;
// delta plans keep every file. Primary-key splits of full plans are merged, those of delta
// plans are read raw.
func TestLevelFilter(t *testing.T) {
	dir := filepath.Join(fixturesDir(t), "pk")
	tb := openTable(t, dir, "javapk.pk_dedup_dv")
	snaps := pkBatchCases(t, "javapk.pk_dedup_dv")
	sawLevel0 := false
	for id := range snaps {
		all := tb.plan(t, tb.planner(), id, scan.Full)
		p := tb.planner()
		p.LevelFilter = func(l int32) bool { return l > 0 }
		skip := tb.plan(t, p, id, scan.Full)
		var want []string
		for _, sp := range all.Splits {
			if sp.Raw {
				t.Errorf("snapshot %d: full split %s of a primary-key table is raw", id, sp.BucketPath)
			}
			for _, f := range sp.Files {
				if f.Meta.Level > 0 {
					want = append(want, filepath.FromSlash(f.Path))
				} else {
					sawLevel0 = true
				}
			}
		}
		sort.Strings(want)
		if got := plannedFiles(skip); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("snapshot %d: level > 0 plan\n%s\nwant the level > 0 files of the full plan\n%s", id, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		delta := tb.plan(t, p, id, scan.Delta)
		deltaAll := tb.plan(t, tb.planner(), id, scan.Delta)
		if a, b := plannedFiles(delta), plannedFiles(deltaAll); strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("snapshot %d: the level filter changed a delta plan:\n%v\nvs\n%v", id, a, b)
		}
		for _, sp := range delta.Splits {
			if !sp.Raw {
				t.Errorf("snapshot %d: delta split %s of a primary-key table is not raw", id, sp.BucketPath)
			}
		}
	}
	if !sawLevel0 {
		t.Fatal("no level-0 file in any snapshot of pk_dedup_dv: the fixture does not exercise level 0")
	}
	// Snapshot 1 is one commit of level-0 files: Java's batch read (which skips level 0 with
	// deletion vectors) returns nothing, and so does the plan.
	p := tb.planner()
	p.LevelFilter = func(l int32) bool { return l > 0 }
	if n := len(plannedFiles(tb.plan(t, p, 1, scan.Full))); n != 0 || len(testenv.ReadLines(t, snaps[1])) != 0 {
		t.Errorf("snapshot 1: %d files above level 0, Java read %d rows", n, len(testenv.ReadLines(t, snaps[1])))
	}
}

// Deletion vectors are attached to the files they belong to: with level 0 skipped (as batch
// reads of deletion-vector tables do), the rows of the planned files minus the rows their
// vectors delete are exactly as many as Java's batch read of every snapshot returned. Delta
// plans carry none.
func TestDeletionVectorsAttached(t *testing.T) {
	dir := filepath.Join(fixturesDir(t), "pk")
	for _, name := range []string{"javapk.pk_dedup_dv", "javapk.pk_dedup_dv64"} {
		t.Run(name, func(t *testing.T) {
			tb := openTable(t, dir, name)
			attached := 0
			for id, expected := range pkBatchCases(t, name) {
				p := tb.planner()
				p.LevelFilter = func(l int32) bool { return l > 0 }
				pl := tb.plan(t, p, id, scan.Full)
				var live int64
				for _, sp := range pl.Splits {
					for _, f := range sp.Files {
						live += f.Meta.RowCount
						d := f.Deletion
						if d == nil {
							continue
						}
						attached++
						if d.Cardinality == nil {
							t.Fatalf("snapshot %d: deletion vector of %s has no cardinality", id, f.Path)
						}
						live -= *d.Cardinality
						st, err := os.Stat(filepath.FromSlash(d.Path))
						if err != nil {
							t.Fatalf("snapshot %d: deletion vector file of %s: %v", id, f.Path, err)
						}
						if d.Offset < 0 || d.Length <= 0 || d.Offset+d.Length > st.Size() {
							t.Errorf("snapshot %d: vector of %s at [%d, +%d) outside %s (%d bytes)", id, f.Path, d.Offset, d.Length, d.Path, st.Size())
						}
						if *d.Cardinality <= 0 || *d.Cardinality > f.Meta.RowCount {
							t.Errorf("snapshot %d: vector of %s deletes %d of %d rows", id, f.Path, *d.Cardinality, f.Meta.RowCount)
						}
					}
				}
				if want := int64(len(testenv.ReadLines(t, expected))); live != want {
					t.Errorf("snapshot %d: %d live rows in the plan, Java read %d", id, live, want)
				}
				for _, sp := range tb.plan(t, tb.planner(), id, scan.Delta).Splits {
					for _, f := range sp.Files {
						if f.Deletion != nil {
							t.Errorf("snapshot %d: delta file %s has a deletion vector", id, f.Path)
						}
					}
				}
			}
			if attached == 0 {
				t.Fatal("no deletion vector attached in any snapshot")
			}
		})
	}
}
