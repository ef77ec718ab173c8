package schema

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// runPypaimon runs script with pypaimon's Python, passing a fresh warehouse
// directory as argv[1], and returns the warehouse. Without the venv the test
// is skipped loudly (testenv): CI installs it, and a silent skip would hide
// the only end-to-end check.
func runPypaimon(t *testing.T, script string) string {
	t.Helper()
	wh := t.TempDir()
	testenv.RunPypaimon(t, script, wh)
	return wh
}

// TestPypaimonEvolution lets pypaimon evolve a table (add, rename, drop,
// set option) and create a branch, then reads every schema back.
func TestPypaimonEvolution(t *testing.T) {
	wh := runPypaimon(t, `
import sys, pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.schema_change import SchemaChange
from pypaimon.schema.data_types import AtomicType
cat = CatalogFactory.create({"warehouse": sys.argv[1]})
cat.create_database("db", True)
s = Schema.from_pyarrow_schema(pa.schema([pa.field("a", pa.int32(), nullable=False), ("b", pa.string()), ("c", pa.int64())]),
    primary_keys=["a"], options={"bucket": "1"})
cat.create_table("db.t", s, False)
cat.alter_table("db.t", [SchemaChange.add_column("d", AtomicType("DOUBLE"))])
cat.alter_table("db.t", [SchemaChange.rename_column("b", "bb")])
cat.alter_table("db.t", [SchemaChange.drop_column("c"), SchemaChange.set_option("deletion-vectors.enabled", "true")])
t = cat.get_table("db.t")
t.branch_manager().create_branch("dev")
`)
	ctx := context.Background()
	root := filepath.Join(wh, "db.db", "t")
	m := NewManager(fileio.NewLocal(), root, "main")
	ids, err := m.ListIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{0, 1, 2, 3}) {
		t.Fatalf("schema ids = %v, want [0 1 2 3]", ids)
	}
	s0, err := m.Schema(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := m.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := latest.FieldNames(); !reflect.DeepEqual(got, []string{"a", "bb", "d"}) {
		t.Errorf("latest columns = %v, want [a bb d]", got)
	}
	if latest.HighestFieldID != 3 || !latest.DeletionVectorsEnabled() || latest.NumBuckets() != 1 {
		t.Errorf("latest = highest %d dv %v buckets %d", latest.HighestFieldID, latest.DeletionVectorsEnabled(), latest.NumBuckets())
	}
	// A file written with schema 0 (a, b, c) read as the latest (a, bb, d):
	// a and the renamed b map by id, d is new, c is dropped.
	if got, want := IndexMapping(latest.Fields, s0.Fields), []int{0, 1, -1}; !reflect.DeepEqual(got, want) {
		t.Errorf("IndexMapping(latest, schema 0) = %v, want %v", got, want)
	}
	dev, err := NewManager(fileio.NewLocal(), root, "dev").Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dev.ID != latest.ID || !reflect.DeepEqual(dev.FieldNames(), latest.FieldNames()) {
		t.Errorf("branch dev schema %d %v, want a copy of %d", dev.ID, dev.FieldNames(), latest.ID)
	}
}
