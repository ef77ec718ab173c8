package datafile_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/datafile"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/schema"
	"github.com/connect-paimon/connect-paimon/paimon/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/types"
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
	ctx := context.Background()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", "resources", "fixtures", "warehouse", "interop.db", name))
	if err != nil {
		t.Fatal(err)
	}
	fio := fileio.NewLocal()
	sm := schema.NewManager(fio, root, "main")
	s, err := sm.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap, ok, err := snapshot.NewManager(fio, root, "main").Latest(ctx)
	if err != nil || !ok {
		t.Fatalf("latest snapshot of %s: %v (found %v)", name, err, ok)
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
// read-schema fields and returns one map per row (column → Go value as
// ValueStr renders it), checking that nothing leaks.
func (tb *table) rows(t *testing.T, fields []types.DataField, check func(f *split.DataFile, rec arrow.RecordBatch)) []map[string]string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out []map[string]string
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
				for row := 0; row < int(rec.NumRows()); row++ {
					m := map[string]string{}
					for c, col := range rec.Columns() {
						v := "null"
						if col.IsValid(row) {
							v = col.ValueStr(row)
						}
						m[rec.Schema().Field(c).Name] = v
					}
					out = append(out, m)
				}
				rec.Release()
			}
			r.Close()
		}
	}
	return out
}

// expected reads the oracle's rows (pypaimon's own read) of a fixture.
func expected(t *testing.T, table, file string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "resources", "fixtures", "expected", "interop."+table, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func key(vals ...any) string { return fmt.Sprintln(vals...) }

// price normalises a decimal's text (Arrow's ValueStr drops trailing
// zeros, the oracle keeps the scale).
func price(t *testing.T, s string) string {
	if s == "null" {
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("price %q: %v", s, err)
	}
	return strconv.FormatFloat(f, 'f', 4, 64)
}

// Files written with older schemas are read in the latest one by field id:
// the renamed column (name → label) keeps its values, the added one
// (extra) is NULL in files that predate it, the widened ones (INT →
// BIGINT, DECIMAL(12,2) → DECIMAL(20,4)) are cast, the dropped one (flag)
// is gone. The result equals pypaimon's read of the same table.
func TestEvolvedFilesReadByFieldID(t *testing.T) {
	tb := openTable(t, "evolution")
	sawOld := false
	got := tb.rows(t, tb.schema.Fields, func(f *split.DataFile, rec arrow.RecordBatch) {
		if rec.Schema().HasField("flag") {
			t.Fatal("dropped column flag is in the output")
		}
		if f.Meta.SchemaID == 0 {
			sawOld = true
			extra := rec.Column(rec.Schema().FieldIndices("extra")[0])
			if extra.NullN() != extra.Len() {
				t.Errorf("file %s (schema 0) has %d non-null values of the column added later", f.Path, extra.Len()-extra.NullN())
			}
		}
		if dt := rec.Column(rec.Schema().FieldIndices("amount")[0]).DataType(); dt.ID() != arrow.INT64 {
			t.Errorf("amount read as %s, want int64 (cast from the old INT)", dt)
		}
		if dt := rec.Column(rec.Schema().FieldIndices("price")[0]).DataType(); dt.String() != "decimal(20, 4)" {
			t.Errorf("price read as %s, want decimal(20, 4) (cast from DECIMAL(12, 2))", dt)
		}
	})
	if !sawOld {
		t.Fatal("fixture has no file written with schema 0: the test proves nothing")
	}
	var g, w []string
	for _, m := range got {
		g = append(g, key(m["id"], m["label"], m["amount"], price(t, m["price"]), m["extra"]))
	}
	for _, m := range expected(t, "evolution", "full.jsonl") {
		str := func(k string) string {
			if m[k] == nil {
				return "null"
			}
			return fmt.Sprint(m[k])
		}
		w = append(w, key(str("id"), str("label"), str("amount"), price(t, str("price")), str("extra")))
	}
	sort.Strings(g)
	sort.Strings(w)
	if len(g) != len(w) {
		t.Fatalf("read %d rows, pypaimon %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("row %d: got %s, pypaimon %s", i, g[i], w[i])
		}
	}
}

// Partition columns come from the split's partition row, not the file,
// for every row of every batch.
func TestPartitionColumnsFromSplit(t *testing.T) {
	tb := openTable(t, "part_date_region")
	need := []types.DataField{}
	for _, name := range []string{"id", "region", "dt"} {
		f, ok := tb.schema.Field(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		need = append(need, f)
	}
	got := map[string]string{}
	for _, m := range tb.rows(t, need, nil) {
		got[m["id"]] = m["region"] + " " + m["dt"]
	}
	want := expected(t, "part_date_region", "full.jsonl")
	if len(got) != len(want) {
		t.Fatalf("read %d ids, pypaimon %d rows", len(got), len(want))
	}
	for _, m := range want {
		id := fmt.Sprint(m["id"])
		region := "null"
		if m["region"] != nil {
			region = fmt.Sprint(m["region"])
		}
		if g := got[id]; g != region+" "+fmt.Sprint(m["dt"]) {
			t.Errorf("id %s: got region/dt %q, pypaimon %s %v", id, g, region, m["dt"])
		}
	}
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
