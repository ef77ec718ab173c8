package datafile_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/datafile"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/types"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// table is a committed pypaimon fixture table, planned at its latest
// snapshot.
type table struct {
	fio     fileio.FileIO
	schema  *schema.TableSchema
	schemas *schema.Manager
	splits  []*split.Split
}

func openTable(t *testing.T, name string) *table {
	t.Helper()
	return openTableAt(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "interop.db", name))
}

func openTableAt(t *testing.T, root string) *table {
	t.Helper()
	ctx := context.Background()
	fio := fileio.NewLocal()
	sm := schema.NewManager(fio, root, "main")
	s, err := sm.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap, ok, err := snapshot.NewManager(fio, root, "main").Latest(ctx)
	if err != nil || !ok {
		t.Fatalf("latest snapshot of %s: %v (found %v)", root, err, ok)
	}
	p := &scan.Planner{FIO: fio, TableRoot: root, Schema: s, Schemas: sm,
		Paths: scan.NewPathFactory(root, s)}
	pl, err := p.PlanSnapshot(ctx, snap, scan.Full)
	if err != nil {
		t.Fatal(err)
	}
	return &table{fio: fio, schema: s, schemas: sm, splits: pl.Splits}
}

// rows reads every file of the table through datafile with the given
// read-schema fields and returns the canonical JSON lines of its rows,
// sorted, checking that nothing leaks.
func (tb *table) rows(t *testing.T, fields []types.DataField, check func(f *split.DataFile, rec arrow.RecordBatch)) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
	defer mem.AssertSize(t, 0)
	var out []string
	for _, sp := range tb.splits {
		o := &datafile.Options{FIO: tb.fio, ReadSchema: tb.schema, Schemas: tb.schemas, Fields: fields,
			PartitionValues: sp.PartitionValues, BatchSize: 7, Alloc: mem}
		for i := range sp.Files {
			f := &sp.Files[i]
			r, err := datafile.Open(context.Background(), f, o)
			if err != nil {
				t.Fatal(err)
			}
			for {
				rec, err := r.Next(context.Background())
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if check != nil {
					check(f, rec)
				}
				lines, err := canon.Record(rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, lines...)
			}
			r.Close()
		}
	}
	sort.Strings(out)
	return out
}

// expected is the oracle's read (pypaimon's) of a fixture, sorted.
func expected(t *testing.T, table, file string) []string {
	t.Helper()
	return testenv.ReadSortedLines(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "expected", "interop."+table, file))
}

func sameLines(t *testing.T, got, want []string) {
	t.Helper()
	if d := interop.DiffLines(want, got); d != "" {
		t.Fatalf("datafile read differs from pypaimon's:\n%s", d)
	}
}

// Files written with older schemas are read in the latest one by field id:
// the renamed column (name → label) keeps its values, the added one
// (extra) is NULL in files that predate it, the widened ones (INT →
// BIGINT, DECIMAL(12,2) → DECIMAL(20,4)) are cast, the dropped one (flag)
// is gone. The rows equal pypaimon's read of the same table.
func TestEvolvedFilesReadByFieldID(t *testing.T) {
	tb := openTable(t, "evolution")
	sawOld := false
	got := tb.rows(t, tb.schema.Fields, func(f *split.DataFile, rec arrow.RecordBatch) {
		if f.Meta.SchemaID == 0 {
			sawOld = true
			extra := rec.Column(rec.Schema().FieldIndices("extra")[0])
			if extra.NullN() != extra.Len() {
				t.Errorf("file %s (schema 0) has %d non-null values of the column added later", f.Path, extra.Len()-extra.NullN())
			}
		}
	})
	if !sawOld {
		t.Fatal("fixture has no file written with schema 0: the test proves nothing")
	}
	sameLines(t, got, expected(t, "evolution", "full.jsonl"))
}

// Partition columns come from the split's partition row, not the file.
func TestPartitionColumnsFromSplit(t *testing.T) {
	tb := openTable(t, "part_date_region")
	var need []types.DataField
	for _, name := range []string{"id", "region"} {
		f, ok := tb.schema.Field(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		need = append(need, f)
	}
	sameLines(t, tb.rows(t, need, nil), expected(t, "part_date_region", "proj_id_region.jsonl"))
}

// A file whose schema can't be resolved is an error naming the file, never
// a read in the wrong schema.
func TestUnresolvableSchemaIsAnError(t *testing.T) {
	tb := openTable(t, "evolution")
	for _, sp := range tb.splits {
		for i := range sp.Files {
			f := &sp.Files[i]
			if f.Meta.SchemaID == tb.schema.ID {
				continue
			}
			_, err := datafile.Open(context.Background(), f, &datafile.Options{FIO: tb.fio, ReadSchema: tb.schema, Fields: tb.schema.Fields})
			if err == nil || !strings.Contains(err.Error(), f.Path) {
				t.Fatalf("want an error naming %s, got %v", f.Path, err)
			}
			return
		}
	}
	t.Fatal("no file with an older schema in the fixture")
}

// A deletion vector is checked against the row count the index manifest
// records for it: a vector that disagrees would return deleted rows or drop
// live ones, so it is an error naming the data file.
func TestDeletionVectorCheckedAgainstIndexManifest(t *testing.T) {
	tb := openTableAt(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "pk", "warehouse", "javapk.db", "pk_dedup_dv"))
	for _, sp := range tb.splits {
		for i := range sp.Files {
			f := sp.Files[i]
			if f.Deletion == nil || f.Deletion.Cardinality == nil {
				continue
			}
			o := &datafile.Options{FIO: tb.fio, ReadSchema: tb.schema, Schemas: tb.schemas, Fields: tb.schema.Fields, PartitionValues: sp.PartitionValues}
			r, err := datafile.Open(context.Background(), &f, o)
			if err != nil {
				t.Fatalf("intact vector: %v", err)
			}
			r.Close()
			d := *f.Deletion
			wrong := *d.Cardinality + 1
			d.Cardinality = &wrong
			f.Deletion = &d
			_, err = datafile.Open(context.Background(), &f, o)
			if !errors.Is(err, types.ErrCorrupt) || !strings.Contains(err.Error(), f.Path) {
				t.Fatalf("want ErrCorrupt naming %s, got %v", f.Path, err)
			}
			return
		}
	}
	t.Fatal("no data file with a deletion vector and a recorded cardinality in the fixture")
}
