package mergetree_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// kvSchema is a PK table (id INT, v BIGINT) with the given extra options.
func kvSchema(t testing.TB, opts string) *schema.TableSchema {
	t.Helper()
	s, err := schema.Parse([]byte(`{"version":3,"id":0,"fields":[
		{"id":0,"name":"id","type":"INT NOT NULL"},{"id":1,"name":"v","type":"BIGINT"}],
		"highestFieldId":1,"partitionKeys":[],"primaryKeys":["id"],"options":{"bucket":"1"` + opts + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// kv is one record of a hand-built run.
type kv struct {
	id   int32
	seq  int64
	kind int8
	v    any // int64 or nil
}

// writeRun writes records as a key-value Parquet file with the physical
// layout of paimon-format.md §6.2 (_KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND,
// id, v).
func writeRun(t testing.TB, dir string, n int, level int32, recs []kv) split.DataFile {
	t.Helper()
	mem := memory.NewGoAllocator()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "_KEY_id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "_SEQUENCE_NUMBER", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_VALUE_KIND", Type: arrow.PrimitiveTypes.Int8},
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for _, r := range recs {
		b.Field(0).(*array.Int32Builder).Append(r.id)
		b.Field(1).(*array.Int64Builder).Append(r.seq)
		b.Field(2).(*array.Int8Builder).Append(r.kind)
		b.Field(3).(*array.Int32Builder).Append(r.id)
		if r.v == nil {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.Int64Builder).Append(r.v.(int64))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(dir, fmt.Sprintf("data-run-%d.parquet", n))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sch, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(64*1024)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return split.DataFile{Path: path, Meta: manifest.DataFileMeta{FileName: filepath.Base(path), RowCount: int64(len(recs)), Level: level}}
}

func mergeRuns(t testing.TB, s *schema.TableSchema, files []split.DataFile, batch int) ([]string, error) {
	sp := &split.Split{Files: files}
	rr, err := mergetree.NewMergeReader(context.Background(), fileio.NewLocal(), sp,
		mergetree.Options{Schema: s, Fields: s.Fields, BatchSize: batch, RowKinds: true})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out []string
	for rr.Next() {
		rec := rr.RecordBatch()
		k := rec.Column(0).(*array.Int8)
		id := rec.Column(1).(*array.Int32)
		v := rec.Column(2).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			vs := "null"
			if v.IsValid(i) {
				vs = fmt.Sprint(v.Value(i))
			}
			out = append(out, fmt.Sprintf("%s %d %s", types.RowKind(k.Value(i)), id.Value(i), vs))
		}
	}
	return out, rr.Err()
}

// TestMergeOrder checks the k-way merge order on hand-built runs: output
// sorted by key; inside a key the record with the larger
// _SEQUENCE_NUMBER wins whatever run or level it is in; on equal sequence
// numbers a retract sorts before an add, so the add wins; retract results
// vanish; +U results keep their kind.
func TestMergeOrder(t *testing.T) {
	dir := t.TempDir()
	I, UB, UA, D := int8(0), int8(1), int8(2), int8(3)
	files := []split.DataFile{
		writeRun(t, dir, 0, 2, []kv{{1, 1, I, int64(10)}, {2, 2, I, int64(20)}, {3, 3, I, int64(30)}, {5, 4, I, int64(50)}}),
		writeRun(t, dir, 1, 0, []kv{{2, 9, UB, int64(20)}, {3, 7, D, nil}, {4, 8, I, int64(40)}}),
		writeRun(t, dir, 2, 0, []kv{{2, 10, UA, int64(21)}, {4, 8, D, nil}, {5, 12, I, int64(-1)}}),
		writeRun(t, dir, 3, 1, []kv{{1, 5, UA, int64(11)}}),
	}
	want := []string{"+U 1 11", "+U 2 21", "+I 4 40", "+I 5 -1"}
	for _, bs := range []int{1, 2, 100} {
		got, err := mergeRuns(t, kvSchema(t, ""), files, bs)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("batch %d: got %v, want %v", bs, got, want)
		}
	}
	// sequence.field=v orders before _SEQUENCE_NUMBER: for key 5 the
	// newer record (seq 12) has the smaller v and loses; key 2's -U (v 20) sorts before
	// +U (v 21); NULL v sorts first so key 3's delete loses to v=30.
	got, err := mergeRuns(t, kvSchema(t, `,"sequence.field":"v"`), files, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"+U 1 11", "+U 2 21", "+I 3 30", "+I 4 40", "+I 5 50"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sequence.field: got %v, want %v", got, want)
	}
}

// TestLookupLevels pins Java's read of a lookup-mode bucket
// (LookupMergeFunction under ReducerMergeFunctionWrapper): of a key's
// records above level 0 only the lowest level's is merged, together with
// every level-0 record in merge order; a key with one record is returned as
// it is (its kind kept, a lone retract dropped), never run through the
// merge function. Without lookup every record is merged.
func TestLookupLevels(t *testing.T) {
	dir := t.TempDir()
	I, UA, D := int8(0), int8(2), int8(3)
	files := []split.DataFile{
		// Key 1: 5 at level 5, lookup-compacted to 12 at level 4 and
		// 20 at level 3 (each holding the one above), then two level-0
		// deltas. Key 2: one -D. Key 3: one +U. Key 4: level 5 and
		// level 4 only.
		writeRun(t, dir, 0, 5, []kv{{1, 1, I, int64(5)}, {4, 2, I, int64(40)}}),
		writeRun(t, dir, 1, 4, []kv{{1, 3, I, int64(12)}, {4, 4, I, int64(41)}}),
		writeRun(t, dir, 2, 3, []kv{{1, 5, I, int64(20)}}),
		writeRun(t, dir, 3, 0, []kv{{1, 6, I, int64(3)}, {2, 7, D, int64(9)}}),
		writeRun(t, dir, 4, 0, []kv{{1, 8, I, int64(4)}, {3, 9, UA, int64(30)}}),
	}
	agg := `,"merge-engine":"aggregation","fields.v.aggregate-function":"sum"`
	for _, c := range []struct {
		opts string
		want []string
	}{
		{agg + `,"changelog-producer":"lookup"`, []string{"+I 1 27", "+U 3 30", "+I 4 41"}},
		{agg + `,"force-lookup":"true"`, []string{"+I 1 27", "+U 3 30", "+I 4 41"}},
		{agg + `,"deletion-vectors.enabled":"true"`, []string{"+I 1 27", "+U 3 30", "+I 4 41"}},
		{agg, []string{"+I 1 44", "+U 3 30", "+I 4 81"}},
		{`,"changelog-producer":"lookup"`, []string{"+I 1 4", "+U 3 30", "+I 4 41"}},
	} {
		got, err := mergeRuns(t, kvSchema(t, c.opts), files, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.opts, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.opts, got, c.want)
		}
	}
}

// TestBadValueKind: a _VALUE_KIND outside 0..3 is an error naming the file.
func TestBadValueKind(t *testing.T) {
	f := writeRun(t, t.TempDir(), 0, 0, []kv{{1, 1, 7, int64(1)}})
	_, err := mergeRuns(t, kvSchema(t, ""), []split.DataFile{f}, 10)
	if err == nil || !strings.Contains(err.Error(), f.Path) || !strings.Contains(err.Error(), "_VALUE_KIND") {
		t.Fatalf("want error naming the file and _VALUE_KIND, got %v", err)
	}
}

// BenchmarkMerge merges 1M records spread over 8 runs on 4 levels (level 0
// with 5 overlapping files, levels 1-3 one file each), every key present in
// two runs, and reports merged rows/s and the peak Go heap in use.
func BenchmarkMerge(b *testing.B) {
	const total = 1 << 20
	const runs = 8
	dir := b.TempDir()
	levels := []int32{0, 0, 0, 0, 0, 1, 2, 3}
	var files []split.DataFile
	per := total / runs
	keys := total / 2
	for r := 0; r < runs; r++ {
		recs := make([]kv, 0, per)
		// run r holds keys ≡ r, r+1 (mod runs) in order, so every key
		// lives in exactly two runs.
		for k := 0; k < keys; k++ {
			if k%runs == r || k%runs == (r+1)%runs {
				recs = append(recs, kv{int32(k), int64(r*total + k), 0, int64(k)})
			}
		}
		files = append(files, writeRun(b, dir, r, levels[r], recs))
	}
	s := kvSchema(b, "")
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		stop := make(chan struct{})
		done := make(chan uint64)
		go func() {
			var m runtime.MemStats
			var p uint64
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > p {
					p = m.HeapInuse
				}
				select {
				case <-stop:
					done <- p
					return
				case <-t.C:
				}
			}
		}()
		sp := &split.Split{Files: files}
		rr, err := mergetree.NewMergeReader(context.Background(), fileio.NewLocal(), sp, mergetree.Options{Schema: s, Fields: s.Fields})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rr.Next() {
			n += int(rr.RecordBatch().NumRows())
		}
		if err := rr.Err(); err != nil {
			b.Fatal(err)
		}
		rr.Release()
		close(stop)
		if p := <-done; p > peak {
			peak = p
		}
		if n != keys {
			b.Fatalf("merged %d rows, want %d", n, keys)
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "input-rows/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
