package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// pkGenerator is the generator version make_pk_table.py and BenchPkGen write
// into the marker; a marker from another version skips instead of measuring
// a table of a different shape.
const pkGenerator = "BenchPkGen/1"

// pkMeta is the marker BenchPkGen writes after Java Paimon's own merged read
// of the table matched the history it wrote: the expected values every Go
// read is checked against come from Java, never from the code under test.
type pkMeta struct {
	Params struct {
		Keys      int64  `json:"keys"`
		Buckets   int    `json:"buckets"`
		Generator string `json:"generator"`
	} `json:"params"`
	// Rows is the live (merged) row count and SumVer the sum of the ver
	// column over them, as Java read them.
	Rows   int64 `json:"rows"`
	SumVer int64 `json:"sum_ver"`
	// Files and RowsInFiles describe the latest snapshot's data files.
	Files       int   `json:"files"`
	RowsInFiles int64 `json:"rows_in_files"`
	Snapshot    int64 `json:"snapshot"`
	// Levels is bucket -> level -> file count from Java's plan.
	Levels map[string]map[string]int `json:"levels"`
}

// openPKTable opens bench.<name> written by resources/bench/make_pk_table.py
// and returns its marker.
func openPKTable(tb testing.TB, name string) (*paimon.Table, pkMeta) {
	tb.Helper()
	dir := testenv.BenchDir(tb)
	marker := filepath.Join(dir, "bench."+name+".done")
	raw, err := os.ReadFile(marker)
	if err != nil {
		tb.Skipf("table bench.%s is not generated in %s (%v): run `resources/bench/make_pk_table.py --dir %s`", name, dir, err, dir)
	}
	var m pkMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("marker %s: %v", marker, err)
	}
	if m.Params.Generator != pkGenerator {
		tb.Skipf("marker %s is from generator %q, want %q: rerun make_pk_table.py --force", marker, m.Params.Generator, pkGenerator)
	}
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	t, err := cat.GetTable(ctx, "bench."+name)
	if err != nil {
		tb.Fatal(err)
	}
	return t, m
}

// pkReadResult is what one merged read of a whole table returned.
type pkReadResult struct {
	rows, sumVer int64
	files        int
	// levels is bucket -> level -> file count of the planned splits.
	levels map[string]map[string]int
}

// readPK plans rb and reads every split, summing the ver column so a read
// that returns a stale version of a key (a wrong merge) fails the check.
func readPK(ctx context.Context, tb testing.TB, rb *paimon.ReadBuilder) pkReadResult {
	plan, err := rb.Plan(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	res := pkReadResult{levels: map[string]map[string]int{}}
	rd := rb.NewRead()
	for _, sp := range plan.Splits {
		b := strconv.Itoa(int(sp.Bucket()))
		if res.levels[b] == nil {
			res.levels[b] = map[string]int{}
		}
		for _, f := range sp.DataFiles() {
			res.levels[b][strconv.Itoa(int(f.Level))]++
			res.files++
		}
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			tb.Fatalf("read bucket %s: %v", b, err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			idx := rec.Schema().FieldIndices("ver")
			if len(idx) != 1 {
				rr.Release()
				tb.Fatalf("bucket %s: record has no single ver column: %s", b, rec.Schema())
			}
			ver, ok := rec.Column(idx[0]).(*array.Int32)
			if !ok {
				rr.Release()
				tb.Fatalf("bucket %s: ver is %s, want int32", b, rec.Column(idx[0]).DataType())
			}
			for i := 0; i < ver.Len(); i++ {
				res.sumVer += int64(ver.Value(i))
			}
			res.rows += rec.NumRows()
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			tb.Fatalf("read bucket %s: %v", b, err)
		}
	}
	return res
}

// checkPK compares a read with Java's: rows, sum of ver and, when
// checkShape is set, the planned files per bucket and level.
func checkPK(tb testing.TB, name string, m pkMeta, got pkReadResult, checkShape bool) {
	tb.Helper()
	if got.rows != m.Rows || got.sumVer != m.SumVer {
		tb.Fatalf("bench.%s: read %d rows with sum(ver) %d, Java read %d with %d", name, got.rows, got.sumVer, m.Rows, m.SumVer)
	}
	if !checkShape {
		return
	}
	if got.files != m.Files || fmt.Sprint(got.levels) != fmt.Sprint(m.Levels) {
		tb.Fatalf("bench.%s: planned %d files on %v, Java planned %d on %v", name, got.files, got.levels, m.Files, m.Levels)
	}
}

// runsPerBucket is the number of sorted runs in each bucket of a shape:
// every level-0 file is a run of its own, each higher level is one run.
func runsPerBucket(levels map[string]map[string]int) string {
	var bs []string
	for b := range levels {
		bs = append(bs, b)
	}
	sort.Strings(bs)
	out := ""
	for _, b := range bs {
		runs := 0
		for l, n := range levels[b] {
			if l == "0" {
				runs += n
			} else {
				runs++
			}
		}
		out += fmt.Sprintf(" bucket %s: %d runs on %d levels;", b, runs, len(levels[b]))
	}
	return out
}

// BenchmarkPKMergedRead reads bench.pk (1,000,000 keys in 4 buckets, each
// bucket 8 sorted runs on levels 0-3, written and compacted by Java Paimon)
// through the public API: plan, then a merge-on-read of every split. "all"
// reads the 5 columns, "ver" only id and ver (the key and sequence number
// are read either way). rows/s counts merged (output) rows; file-rows/s the
// rows stored in the files the merge consumed.
func BenchmarkPKMergedRead(b *testing.B) {
	t, m := openPKTable(b, "pk")
	ctx := context.Background()
	run := func(b *testing.B, proj []string) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			rb := t.NewReadBuilder()
			if proj != nil {
				rb = rb.WithProjection(proj...)
			}
			checkPK(b, "pk", m, readPK(ctx, b, rb), true)
		}
		sec := b.Elapsed().Seconds()
		b.ReportMetric(float64(m.Rows)*float64(b.N)/sec, "rows/s")
		b.ReportMetric(float64(m.RowsInFiles)*float64(b.N)/sec, "file-rows/s")
		reportCPU(b, cpu0, m.Rows)
	}
	b.Run("all", func(b *testing.B) { run(b, nil) })
	b.Run("ver", func(b *testing.B) { run(b, []string{"id", "ver"}) })
}

// TestPKMergedMemory reads bench.pk_half (500,000 keys) and bench.pk
// (1,000,000 keys), which have the same buckets and the same 8 runs per
// bucket, and logs the peak HeapInuse sampled during each read. A merge that
// streams its runs holds about one batch per run, so the two peaks should be
// close; a merge that buffered a bucket would double. Only correctness (rows,
// sum(ver), the planned shape against Java's) is asserted: heap peaks on a
// shared machine are too noisy for a pass/fail bound. The numbers go to
// docs/benchmarks.md.
func TestPKMergedMemory(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"pk_half", "pk"} {
		tbl, m := openPKTable(t, name)
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		peak, stop := sampleHeap()
		got := readPK(ctx, t, tbl.NewReadBuilder())
		stop()
		checkPK(t, name, m, got, true)
		t.Logf("bench.%s: %d rows (%d in %d files),%s peak HeapInuse %.1f MiB (baseline %.1f MiB)",
			name, got.rows, m.RowsInFiles, got.files, runsPerBucket(got.levels),
			float64(*peak)/(1<<20), float64(base.HeapInuse)/(1<<20))
	}
}
