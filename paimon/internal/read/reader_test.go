package read_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
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
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// The split reader on the committed append tables of resources/fixtures, compared with the
// writers' own reads (expected/*.jsonl). Splits come from an unfiltered planner, so what is
// checked here is the reader alone: projection by field id, schema evolution, partition
// columns, and the residual filter, which must be exact.

type table struct {
	root    string
	fio     fileio.FileIO
	schemas *schema.Manager
	snaps   *snapshot.Manager
	// schema is the read schema: the schema of the snapshot read.
	schema *schema.TableSchema
	splits []*split.Split
}

func fixturesDir(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "resources", "fixtures")
}

// open plans snapshot id (the latest when <= 0) of db.table, without filter, in the
// snapshot's own schema.
func open(t *testing.T, name string, id int64) *table {
	t.Helper()
	ctx := context.Background()
	db, tbl, _ := strings.Cut(name, ".")
	root := filepath.Join(fixturesDir(t), "warehouse", db+".db", tbl)
	fio := fileio.NewLocal()
	tb := &table{root: root, fio: fio, schemas: schema.NewManager(fio, root, "main"), snaps: snapshot.NewManager(fio, root, "main")}
	var snap *snapshot.Snapshot
	var err error
	if id <= 0 {
		var ok bool
		snap, ok, err = tb.snaps.Latest(ctx)
		if err == nil && !ok {
			t.Fatalf("%s has no snapshot", name)
		}
	} else {
		snap, err = tb.snaps.Snapshot(ctx, id)
	}
	if err != nil {
		t.Fatal(err)
	}
	if tb.schema, err = tb.schemas.Schema(ctx, snap.SchemaID); err != nil {
		t.Fatal(err)
	}
	p := &scan.Planner{
		FIO: fio, TableRoot: root, Schema: tb.schema, Schemas: tb.schemas,
		Paths: scan.NewPathFactory(root, tb.schema),
	}
	// The cases are Java's batch reads, which hide level-0 files of tables with deletion
	// vectors (and first-row); the facade's batch plans do the same.
	if len(tb.schema.PrimaryKeys) > 0 && tb.schema.BatchScanSkipLevel0() {
		p.LevelFilter = func(l int32) bool { return l > 0 }
	}
	pl, err := p.PlanSnapshot(ctx, snap, scan.Full)
	if err != nil {
		t.Fatalf("plan %s: %v", name, err)
	}
	tb.splits = pl.Splits
	return tb
}

// fields returns the read schema's fields named, in that order.
func (tb *table) fields(t *testing.T, names ...string) []types.DataField {
	t.Helper()
	if names == nil {
		return tb.schema.Fields
	}
	out := make([]types.DataField, len(names))
	for i, n := range names {
		j := typeutil.FieldByName(tb.schema.Fields, n)
		if j < 0 {
			t.Fatalf("no column %q in %v", n, tb.schema.Fields)
		}
		out[i] = tb.schema.Fields[j]
	}
	return out
}

// read reads splits with the given output fields and filter into sorted canonical lines,
// checking every batch has the reader's output schema. Wide timestamps: the Java fixtures
// javagen.ts_extreme_* hold TIMESTAMP(7..9) values no nanosecond column holds.
func (tb *table) read(t *testing.T, splits []*split.Split, fields []types.DataField, filter *predicate.Predicate) []string {
	t.Helper()
	rd := &read.Reader{FIO: tb.fio, Schema: tb.schema, Schemas: tb.schemas, Fields: fields, Filter: filter, BatchSize: 7, WideTimestamps: true}
	want, err := rd.OutputSchema()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range splits {
		rr, err := rd.Read(context.Background(), sp)
		if err != nil {
			t.Fatalf("read split %s: %v", sp.BucketPath, err)
		}
		if !rr.Schema().Equal(want) {
			t.Fatalf("split %s schema\n%s\nwant\n%s", sp.BucketPath, rr.Schema(), want)
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

// project keeps only the named keys of canonical lines (sorted again).
func project(t *testing.T, lines []string, names ...string) []string {
	t.Helper()
	keys := append([]string(nil), names...)
	sort.Strings(keys)
	out := make([]string, len(lines))
	for i, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		var sb strings.Builder
		sb.WriteByte('{')
		for j, k := range keys {
			v, ok := m[k]
			if !ok {
				t.Fatalf("line %q has no key %q", l, k)
			}
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(canon.Quote(k) + ":" + string(v))
		}
		sb.WriteByte('}')
		out[i] = sb.String()
	}
	sort.Strings(out)
	return out
}

func expected(t *testing.T, c interop.Case) []string {
	t.Helper()
	return testenv.ReadSortedLines(t, filepath.Join(fixturesDir(t), filepath.FromSlash(c.Expected)))
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if d := interop.DiffLines(want, got); d != "" {
		t.Errorf("%s differs from the writer's read:\n%s", what, d)
	}
}

func cases(t *testing.T) []interop.Case {
	t.Helper()
	cs, err := interop.LoadCases(fixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var out []interop.Case
	for _, c := range cs {
		if c.Branch == "" && !c.Facade {
			out = append(out, c)
		}
	}
	return out
}

// Every unbranched oracle case, read straight from the unfiltered plan's splits: full reads
// at each snapshot (in that snapshot's schema), projections in the case's column order, and
// filters applied by the reader alone (no pruning), which must therefore be exact.
func TestReaderMatchesWriters(t *testing.T) {
	n := 0
	for _, c := range cases(t) {
		t.Run(c.Table+"/"+c.Case, func(t *testing.T) {
			var id int64
			if c.Snapshot != nil {
				id = *c.Snapshot
			}
			tb := open(t, c.Table, id)
			var filter *predicate.Predicate
			if c.Filter != nil {
				var err error
				if filter, err = predicate.Parse(*c.Filter, tb.schema.Fields); err != nil {
					t.Fatalf("parse %q: %v", *c.Filter, err)
				}
			}
			same(t, c.Case, tb.read(t, tb.splits, tb.fields(t, c.Projection...), filter), expected(t, c))
		})
		n++
	}
	if n < 50 {
		t.Fatalf("only %d cases", n)
	}
}

// Columns are found by field id, not name or position: the renamed column (name → label,
// id 1) reads the old files' "name" values, in any output order, and a projection that
// leaves out the columns a filter uses still filters by them.
func TestProjectionByFieldID(t *testing.T) {
	tb := open(t, "interop.evolution", 0)
	full := testenv.ReadSortedLines(t, filepath.Join(fixturesDir(t), "expected", "interop.evolution", "full.jsonl"))
	for _, cols := range [][]string{{"label"}, {"extra", "label", "id"}, {"ts", "price", "amount", "id"}} {
		same(t, strings.Join(cols, ","), tb.read(t, tb.splits, tb.fields(t, cols...), nil), project(t, full, cols...))
	}
	old := 0
	for _, sp := range tb.splits {
		for _, f := range sp.Files {
			if f.Meta.SchemaID < 2 {
				old++
			}
		}
	}
	if old == 0 {
		t.Fatal("no file predates the rename: the fixture does not exercise it")
	}

	filter, err := predicate.Parse("label IS NOT NULL AND amount > 0", tb.schema.Fields)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases(t) {
		if c.Table == "interop.evolution" && c.Case == "filter_renamed" {
			same(t, "id only, filtered on label and amount", tb.read(t, tb.splits, tb.fields(t, "id"), filter), project(t, expected(t, c), "id"))
			return
		}
	}
	t.Fatal("no filter_renamed case for interop.evolution")
}

// A column added after a file was written (extra, id 8, added by schema 1) reads as null
// from that file, and with its values from files written later.
func TestAddedColumnReadsNull(t *testing.T) {
	ctx := context.Background()
	tb := open(t, "interop.evolution", 0)
	extra := tb.fields(t, "extra", "id")
	var before, after int
	for _, sp := range tb.splits {
		for _, f := range sp.Files {
			fs, err := tb.schemas.Schema(ctx, f.Meta.SchemaID)
			if err != nil {
				t.Fatal(err)
			}
			one := *sp
			one.Files = []split.DataFile{f}
			rows := tb.read(t, []*split.Split{&one}, extra, nil)
			if int64(len(rows)) != f.Meta.RowCount {
				t.Errorf("%s: %d rows, the manifest says %d", f.Path, len(rows), f.Meta.RowCount)
			}
			hasExtra := typeutil.FieldByID(fs.Fields, extra[0].ID) >= 0
			nonNull := 0
			for _, r := range rows {
				if !strings.HasPrefix(r, `{"extra":null,`) {
					nonNull++
				}
			}
			switch {
			case !hasExtra:
				before++
				if nonNull != 0 {
					t.Errorf("%s (schema %d, before extra) has %d non-null extra values", f.Path, f.Meta.SchemaID, nonNull)
				}
			default:
				after++
			}
		}
	}
	if before == 0 || after == 0 {
		t.Fatalf("%d files before the column was added, %d after: the fixture does not exercise both", before, after)
	}
	// Values in the later files are checked against the writer by TestReaderMatchesWriters;
	// here the whole column must equal the writer's read too.
	full := testenv.ReadSortedLines(t, filepath.Join(fixturesDir(t), "expected", "interop.evolution", "full.jsonl"))
	same(t, "extra,id", tb.read(t, tb.splits, extra, nil), project(t, full, "extra", "id"))
}

// Partition columns come from the split's partition, not from the file: a read of only the
// partition columns returns one row per physical row, every row of a split the same, and
// equals the writer's read of those columns.
func TestPartitionColumnsFilled(t *testing.T) {
	for _, name := range []string{"interop.part_date_region", "interop.part_special_chars", "javagen.part_legacy"} {
		t.Run(name, func(t *testing.T) {
			tb := open(t, name, 0)
			keys := tb.schema.PartitionKeys
			if len(keys) == 0 {
				t.Fatal("not partitioned")
			}
			parts := tb.fields(t, keys...)
			var all []string
			for _, sp := range tb.splits {
				rows := tb.read(t, []*split.Split{sp}, parts, nil)
				if int64(len(rows)) != sp.RowCount() {
					t.Errorf("split %s: %d rows, %d in its files", sp.BucketPath, len(rows), sp.RowCount())
				}
				for _, r := range rows {
					if r != rows[0] {
						t.Errorf("split %s: partition rows %s and %s differ", sp.BucketPath, rows[0], r)
						break
					}
				}
				all = append(all, rows...)
			}
			sort.Strings(all)
			full := testenv.ReadSortedLines(t, filepath.Join(fixturesDir(t), "expected", name, "full.jsonl"))
			same(t, "partition columns", all, project(t, full, keys...))
			// And mixed with file columns, partition columns first.
			cols := append(append([]string(nil), keys...), "id")
			same(t, strings.Join(cols, ","), tb.read(t, tb.splits, tb.fields(t, cols...), nil), project(t, full, cols...))
		})
	}
}

// The residual filter is exact per row: on a split whose files hold both matching and other
// rows, the read returns exactly the matching ones, also when the filter's columns are not
// in the output.
func TestResidualFilterExact(t *testing.T) {
	dropping := 0
	for _, c := range cases(t) {
		if c.Filter == nil || c.Snapshot != nil || c.Projection != nil {
			continue
		}
		t.Run(c.Table+"/"+c.Case, func(t *testing.T) {
			tb := open(t, c.Table, 0)
			filter, err := predicate.Parse(*c.Filter, tb.schema.Fields)
			if err != nil {
				t.Fatal(err)
			}
			want := expected(t, c)
			if all := tb.read(t, tb.splits, tb.schema.Fields, nil); len(want) < len(all) {
				dropping++
			}
			col := tb.schema.Fields[0].Name
			same(t, "filtered, "+col+" only", tb.read(t, tb.splits, tb.fields(t, col), filter), project(t, want, col))
		})
	}
	// Filters that keep every row would pass without filtering anything.
	if dropping < 10 {
		t.Fatalf("only %d filter cases drop rows", dropping)
	}
}
