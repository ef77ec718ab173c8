//go:build !interop_noapi

package interop

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// fixedHistoryTables are the hand-written schema histories: a column renamed
// and its name reused for a new column, a column dropped and re-added with
// another type, widenings, BIGINT to STRING, a column moved.
var fixedHistoryTables = []string{"javagen.rename_reuse", "javagen.rename_reuse_orc", "interop.evolution", "javagen.orc_evolve"}

// randomHistoryDB is the database resources/java SchemaHistGen writes its
// random schema histories into (random adds at random positions, drops,
// renames and renames back, reused names, widenings, INT/BIGINT to STRING,
// moves, over Parquet, ORC and Avro, append and primary-key tables).
const randomHistoryDB = "randhist"

// TestFilterInSnapshotSchemaProperty: on tables whose schema history renames
// columns (and reuses an old name for a new column), drops and re-adds a
// column with another type, widens, changes BIGINT to STRING and moves a
// column — the fixed histories above and the committed random ones of
// randomHistoryDB —, every snapshot is read with random filters built on that
// snapshot's own schema. The filtered read must equal the unfiltered read
// of the snapshot filtered row by row (propEval, which shares no code with
// package predicate), asked for three ways: the filter as text (the input's
// and the CLI's form), built on the table's current schema (a library
// user's predicate, whose names the read resolves in the snapshot's
// schema), and as a stream bounded to the snapshot (the input and tail).
// A filter naming a column that only another schema of the table has must
// fail, naming the column and the snapshot's schema, all three ways.
func TestFilterInSnapshotSchemaProperty(t *testing.T) {
	seed := offlineSeed(t, "TestFilterInSnapshotSchemaProperty")
	dir := fixturesDir(t)
	random := runSchemaHistoryProperty(t, dir, seed, fixedHistoryTables, 10)
	if random < 2 {
		t.Errorf("%d random schema histories in the fixtures' %s database, want at least 2 (resources/regen-fixtures.sh)", random, randomHistoryDB)
	}
}

// runSchemaHistoryProperty runs the property on the tables listed and on
// every table of dir's randomHistoryDB database (randomFilters random
// filters per snapshot of those), and returns how many of the latter it
// checked.
func runSchemaHistoryProperty(t *testing.T, dir string, seed uint64, tables []string, randomFilters int) int {
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	random, err := cat.ListTables(ctx, randomHistoryDB)
	if err != nil {
		t.Fatalf("list %s: %v", randomHistoryDB, err)
	}
	all := append([]string(nil), tables...)
	for _, n := range random {
		all = append(all, randomHistoryDB+"."+n)
	}
	for _, table := range all {
		t.Run(table, func(t *testing.T) { checkSchemaHistory(t, ctx, cat, table, seed, randomFilters) })
	}
	return len(random)
}

// checkSchemaHistory checks every snapshot of table (see
// TestFilterInSnapshotSchemaProperty).
func checkSchemaHistory(t *testing.T, ctx context.Context, cat *paimon.Catalog, table string, seed uint64, randomFilters int) {
	tbl, err := cat.GetTable(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	earliest, ok, err := tbl.Snapshots().EarliestID(ctx)
	if err != nil || !ok {
		t.Fatalf("earliest snapshot: %v %v", ok, err)
	}
	latest, ok, err := tbl.Snapshots().LatestID(ctx)
	if err != nil || !ok {
		t.Fatalf("latest snapshot: %v %v", ok, err)
	}
	// Every name any schema of the table gives a column, with the schemas that have it.
	ids, err := tbl.Schemas().ListIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, sid := range ids {
		s, err := tbl.Schemas().Schema(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range s.Fields {
			names[f.Name] = true
		}
	}
	latestFields := tbl.Schema().Fields
	h := fnv.New64a()
	h.Write([]byte(table))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	// The random histories have many snapshots: fewer filters each.
	filters := 25
	if strings.HasPrefix(table, randomHistoryDB+".") {
		filters = randomFilters
	}
	selective, foreign, built := 0, 0, 0
	for id := earliest; id <= latest; id++ {
		snap, err := tbl.Snapshots().Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		sch, err := tbl.Schemas().Schema(ctx, snap.SchemaID)
		if err != nil {
			t.Fatal(err)
		}
		c := Case{Table: table, Snapshot: &id}
		full, err := ReadCase(ctx, cat, c)
		if err != nil {
			t.Fatalf("snapshot %d: %v", id, err)
		}
		parsed := parseLines(t, full)
		rows := parsed
		if len(rows) == 0 {
			rows = []map[string]any{{}} // literals come from extraLits and NULL
		}
		// A comparison on every column of the snapshot (every type it has), then random
		// filters over all of them.
		var exprs []*pexpr
		for _, f := range sch.Fields {
			if kindOf(f.Type) != "" {
				exprs = append(exprs, genExpr(r, []types.DataField{f}, rows, 0))
			}
		}
		for k := 0; k < filters; k++ {
			exprs = append(exprs, genExpr(r, sch.Fields, rows, 2))
		}
		for _, e := range exprs {
			var want []string
			for i, row := range parsed {
				if e.eval(row) == tTrue {
					want = append(want, full[i])
				}
			}
			if len(want) < len(full) {
				selective++
			}
			text := e.String()
			c.Filter = &text
			where := fmt.Sprintf("%s snapshot %d (schema %d) filter %s", table, id, sch.ID, text)
			got, err := ReadCase(ctx, cat, c)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if d := DiffLines(want, got); d != "" {
				t.Fatalf("%s:\n%s", where, d)
			}
			got, ok, err := ReadCaseWithBuiltFilter(ctx, cat, c)
			if err != nil {
				t.Fatalf("%s built on the current schema: %v", where, err)
			}
			if ok {
				built++
				if d := DiffLines(want, got); d != "" {
					t.Fatalf("%s built on the current schema:\n%s", where, d)
				}
			}
			got, err = ReadCaseAsStream(ctx, cat, c)
			if err != nil {
				t.Fatalf("%s as a bounded stream: %v", where, err)
			}
			if d := DiffLines(want, got); d != "" {
				t.Fatalf("%s as a bounded stream:\n%s", where, d)
			}
		}
		// Names only other schemas have: an error naming the column and this
		// snapshot's schema, never an empty (or any) result.
		var absent []string
		for n := range names {
			if fieldIndex(sch.Fields, n) < 0 {
				absent = append(absent, n)
			}
		}
		sort.Strings(absent)
		for _, n := range absent {
			foreign++
			e := foreignFilter(r, n, sch.Fields, rows)
			text := e.String()
			c.Filter = &text
			where := fmt.Sprintf("%s snapshot %d (schema %d) filter %s naming a column of another schema", table, id, sch.ID, text)
			schemaText := fmt.Sprintf("schema %d", sch.ID)
			if got, err := ReadCase(ctx, cat, c); err == nil {
				t.Fatalf("%s: no error, %d rows", where, len(got))
			} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", n)) || !strings.Contains(err.Error(), schemaText) {
				t.Fatalf("%s: the error names not %q and %s: %v", where, n, schemaText, err)
			}
			if got, err := ReadCaseAsStream(ctx, cat, c); err == nil {
				t.Fatalf("%s as a bounded stream: no error, %d rows", where, len(got))
			} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", n)) {
				t.Fatalf("%s as a bounded stream: the error names not %q: %v", where, n, err)
			}
			if fieldIndex(latestFields, n) >= 0 {
				// A predicate built on the current schema, naming a column the
				// snapshot's schema lacks.
				got, ok, err := ReadCaseWithBuiltFilter(ctx, cat, c)
				if ok && err == nil {
					t.Fatalf("%s built on the current schema: no error, %d rows", where, len(got))
				}
				if ok && (!strings.Contains(err.Error(), fmt.Sprintf("%q", n)) || !strings.Contains(err.Error(), schemaText)) {
					t.Fatalf("%s built on the current schema: the error names not %q and %s: %v", where, n, schemaText, err)
				}
			}
		}
	}
	if selective == 0 {
		t.Error("no random filter excluded a row: the test tests nothing")
	}
	t.Logf("%d snapshots, %d filters also built on the current schema, %d filters naming columns of other schemas",
		latest-earliest+1, built, foreign)
}

// foreignFilter is a filter naming n, a column the snapshot's schema lacks,
// alone or inside AND/OR/NOT with a random filter on the snapshot's own
// columns.
func foreignFilter(r *rand.Rand, n string, fields []types.DataField, rows []map[string]any) *pexpr {
	leaf := &pexpr{op: "IS NULL", col: n}
	if r.IntN(2) == 0 {
		leaf = &pexpr{op: "IS NOT NULL", col: n}
	}
	switch r.IntN(4) {
	case 0:
		return leaf
	case 1:
		return &pexpr{op: "NOT", kids: []*pexpr{leaf}}
	case 2:
		return &pexpr{op: "OR", kids: []*pexpr{genExpr(r, fields, rows, 1), leaf}}
	}
	return &pexpr{op: "AND", kids: []*pexpr{leaf, genExpr(r, fields, rows, 1)}}
}

func fieldIndex(fields []types.DataField, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}
