//go:build !interop_noapi

package interop

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// TestFilterInSnapshotSchemaProperty: on tables whose schema history renames
// columns (and reuses an old name for a new column), drops and re-adds a
// column with another type, widens, changes BIGINT to STRING and moves a
// column, every snapshot is read with random filters built on that
// snapshot's own schema. The filtered read must equal the unfiltered read
// of the snapshot filtered row by row (propEval, which shares no code with
// package predicate), asked for three ways: the filter as text (the input's
// and the CLI's form), built on the table's current schema (a library
// user's predicate, whose names the read resolves in the snapshot's
// schema), and as a stream bounded to the snapshot (the input and tail).
func TestFilterInSnapshotSchemaProperty(t *testing.T) {
	seed := offlineSeed(t, "TestFilterInSnapshotSchemaProperty")
	dir := fixturesDir(t)
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	for _, table := range []string{"javagen.rename_reuse", "javagen.rename_reuse_orc", "interop.evolution", "javagen.orc_evolve"} {
		t.Run(table, func(t *testing.T) {
			tbl, err := cat.GetTable(ctx, table)
			if err != nil {
				t.Fatal(err)
			}
			latest, ok, err := tbl.Snapshots().LatestID(ctx)
			if err != nil || !ok {
				t.Fatalf("latest snapshot: %v %v", ok, err)
			}
			h := fnv.New64a()
			h.Write([]byte(table))
			r := rand.New(rand.NewPCG(seed, h.Sum64()))
			selective := 0
			for id := int64(1); id <= latest; id++ {
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
				for k := 0; k < 25; k++ {
					e := genExpr(r, sch.Fields, parsed, 2)
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
					where := fmt.Sprintf("snapshot %d (schema %d) filter %s", id, sch.ID, text)
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
					if d := DiffLines(want, got); ok && d != "" {
						t.Fatalf("%s built on the current schema:\n%s", where, d)
					}
					got, err = ReadCaseAsStream(ctx, cat, c)
					if err != nil {
						t.Fatalf("%s as a bounded stream: %v", where, err)
					}
					if d := DiffLines(want, got); d != "" {
						t.Fatalf("%s as a bounded stream:\n%s", where, d)
					}
				}
			}
			if selective == 0 {
				t.Error("no random filter excluded a row: the test tests nothing")
			}
		})
	}
}
