// Package bench holds the end-to-end benchmarks of the library on tables
// written by pypaimon (resources/bench/make_tables.py) and the raw arrow-go
// baseline they are compared with. Everything here skips unless
// PAIMON_BENCH_DIR names a directory holding the generated tables; results
// are recorded in docs/benchmarks.md, never asserted (the machines are
// shared and noisy). What is asserted is that every read returns the rows the
// generator wrote, so a benchmark cannot "win" by reading less.
package bench

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// Shapes of the generated tables; they must match the constants of
// resources/bench/make_tables.py (the marker file check below makes a
// mismatch skip instead of mis-measuring).
const (
	wideCommits       = 8
	wideRowsPerCommit = 131072
	wideRows          = wideCommits * wideRowsPerCommit
	manyCommits       = 1000
	manyPartitions    = 10
	manyFiles         = manyCommits * manyPartitions
)

// proj2 is the 2-column projection: a fixed-width and a string column.
var proj2 = [2]string{"id", "s"}

// benchDir returns $PAIMON_BENCH_DIR or skips.
// openBenchTable opens bench.<name> after checking the generator finished
// it (the marker is written last, so a half-written table is never timed).
func openBenchTable(tb testing.TB, name string) *paimon.Table {
	tb.Helper()
	dir := testenv.BenchTable(tb, name)
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	t, err := cat.GetTable(ctx, "bench."+name)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// readAll plans rb and reads every split, returning rows and files read.
func readAll(ctx context.Context, tb testing.TB, rb *paimon.ReadBuilder) (rows int64, files int) {
	plan, err := rb.Plan(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	rd := rb.NewRead()
	for _, sp := range plan.Splits {
		files += len(sp.Files())
		n, err := interop.CountRows(ctx, rd, sp)
		if err != nil {
			tb.Fatal(err)
		}
		rows += n
	}
	return rows, files
}

// wideFiles lists the data files of bench.wide's latest snapshot, through
// the library's planner: the raw baseline then reads exactly these files.
func wideFiles(tb testing.TB, t *paimon.Table) []string {
	tb.Helper()
	plan, err := t.NewReadBuilder().Plan(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, sp := range plan.Splits {
		out = append(out, sp.Files()...)
	}
	if len(out) != wideCommits {
		tb.Fatalf("bench.wide has %d data files, want %d (one per commit)", len(out), wideCommits)
	}
	return out
}

func reportRows(b *testing.B, rowsPerOp int64) {
	b.ReportMetric(float64(rowsPerOp)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadWide reads bench.wide (1,048,576 rows, 10 columns, 8 Parquet
// zstd files) through the public API: plan the latest snapshot, then read
// every split into Arrow records. Planning is inside the timed loop (it is
// part of what a caller pays; BenchmarkPlanMany isolates it).
func BenchmarkReadWide(b *testing.B) {
	benchReadWide(b, "wide")
}

// BenchmarkReadWideORC is BenchmarkReadWide on bench.wide_orc: the same rows
// and commits written as ORC + zstd (issue 14: ORC within 1.5x of Parquet).
func BenchmarkReadWideORC(b *testing.B) {
	benchReadWide(b, "wide_orc")
}

func benchReadWide(b *testing.B, table string) {
	t := openBenchTable(b, table)
	ctx := context.Background()
	run := func(b *testing.B, proj []string, mem memory.Allocator, dict bool) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			rb := t.NewReadBuilder().WithAllocator(mem).WithDictionary(dict)
			if proj != nil {
				rb = rb.WithProjection(proj...)
			}
			rows, files := readAll(ctx, b, rb)
			if rows != wideRows || files != wideCommits {
				b.Fatalf("read %d rows from %d files, want %d from %d", rows, files, wideRows, wideCommits)
			}
		}
		reportRows(b, wideRows)
		reportCPU(b, cpu0, wideRows)
	}
	b.Run("all", func(b *testing.B) { run(b, nil, nil, false) })
	b.Run("proj2", func(b *testing.B) { run(b, proj2[:], nil, false) })
	// pooled is all through a pool the reader keeps across its reads (as
	// the input does): the buffers of released batches serve the next.
	b.Run("pooled", func(b *testing.B) { run(b, nil, arrowpool.New(arrowpool.Options{}), false) })
	// The same reads with dictionary arrays allowed (ReadOptions.Dictionary):
	// pyarrow dictionary-encodes s and tag throughout, so both come back as
	// dictionaries on bench.wide (ORC: no effect).
	b.Run("all-dict", func(b *testing.B) { run(b, nil, nil, true) })
	b.Run("proj2-dict", func(b *testing.B) { run(b, proj2[:], nil, true) })
	// pooled-dict is both, which is how the input reads.
	b.Run("pooled-dict", func(b *testing.B) { run(b, nil, arrowpool.New(arrowpool.Options{}), true) })
}

// BenchmarkRawPqarrow reads the same data files with arrow-go's pqarrow
// directly (same batch size as the library, no Paimon metadata): the floor
// the library's overhead is measured against.
func BenchmarkRawPqarrow(b *testing.B) {
	t := openBenchTable(b, "wide")
	files := wideFiles(b, t)
	ctx := context.Background()
	run := func(b *testing.B, proj []string) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			var rows int64
			for _, path := range files {
				rows += rawRead(ctx, b, path, proj)
			}
			if rows != wideRows {
				b.Fatalf("read %d rows, want %d", rows, wideRows)
			}
		}
		reportRows(b, wideRows)
		reportCPU(b, cpu0, wideRows)
	}
	b.Run("all", func(b *testing.B) { run(b, nil) })
	b.Run("proj2", func(b *testing.B) { run(b, proj2[:]) })
}

func rawRead(ctx context.Context, tb testing.TB, path string, proj []string) int64 {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	defer pf.Close()
	var cols []int
	for _, name := range proj {
		i := pf.MetaData().Schema.ColumnIndexByName(name)
		if i < 0 {
			tb.Fatalf("%s: no column %q", path, name)
		}
		cols = append(cols, i)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096 /* the library's default batch */}, memory.DefaultAllocator)
	if err != nil {
		tb.Fatal(err)
	}
	rr, err := fr.GetRecordReader(ctx, cols, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		tb.Fatalf("%s: %v", path, err)
	}
	return n
}

// BenchmarkPlanMany plans the latest snapshot of bench.many: 1,000
// snapshots, 10,000 live data files in 10 partitions.
func BenchmarkPlanMany(b *testing.B) {
	t := openBenchTable(b, "many")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		plan, err := t.NewReadBuilder().Plan(ctx)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, sp := range plan.Splits {
			n += len(sp.Files())
		}
		if n != manyFiles || plan.SnapshotID != manyCommits {
			b.Fatalf("planned %d files of snapshot %d, want %d of %d", n, plan.SnapshotID, manyFiles, manyCommits)
		}
	}
	b.ReportMetric(float64(manyFiles)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkStreamCatchUp follows bench.many from snapshot 1 to 1,000 (a
// consumer that fell behind): "plan" only plans each snapshot's delta,
// "read" also reads every split (10 one-row files per snapshot).
func BenchmarkStreamCatchUp(b *testing.B) {
	t := openBenchTable(b, "many")
	ctx := context.Background()
	run := func(b *testing.B, read bool) {
		b.ReportAllocs()
		for b.Loop() {
			srb := t.NewStreamReadBuilder().WithStartMode(paimon.StartFromSnapshot).
				WithStartSnapshot(1).WithEndSnapshot(manyCommits)
			s, err := srb.NewStreamingScan(ctx)
			if err != nil {
				b.Fatal(err)
			}
			rd := srb.NewRead()
			var plans, files int
			var rows int64
			for {
				p, err := s.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				plans++
				for _, sp := range p.Splits {
					files += len(sp.Files())
					if !read {
						continue
					}
					n, err := interop.CountRows(ctx, rd, sp)
					if err != nil {
						b.Fatal(err)
					}
					rows += n
				}
			}
			if plans != manyCommits || files != manyFiles || (read && rows != manyFiles) {
				b.Fatalf("got %d plans, %d files, %d rows; want %d plans, %d files (one row each)", plans, files, rows, manyCommits, manyFiles)
			}
		}
		b.ReportMetric(float64(manyCommits)*float64(b.N)/b.Elapsed().Seconds(), "snapshots/s")
	}
	b.Run("plan", func(b *testing.B) { run(b, false) })
	b.Run("read", func(b *testing.B) { run(b, true) })
}

// BenchmarkFollowUpPlan plans one follow-up (delta) snapshot of bench.many,
// whose latest snapshot has 10,000 live files: the per-snapshot cost of a
// streaming read that keeps up. The scan is repositioned with
// SetNextSnapshotID, so the start-position resolution is not timed.
func BenchmarkFollowUpPlan(b *testing.B) {
	t := openBenchTable(b, "many")
	ctx := context.Background()
	s, err := t.NewStreamReadBuilder().WithStartMode(paimon.StartFromSnapshot).
		WithStartSnapshot(manyCommits).NewStreamingScan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.SetNextSnapshotID(manyCommits)
		p, err := s.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, sp := range p.Splits {
			n += len(sp.Files())
		}
		if p.SnapshotID != manyCommits || n != manyPartitions {
			b.Fatalf("follow-up plan of snapshot %d has %d files, want snapshot %d with %d", p.SnapshotID, n, manyCommits, manyPartitions)
		}
	}
}

// TestWideMemory reads bench.wide at snapshot 4 (524,288 rows) and 8
// (1,048,576 rows) and logs the peak HeapInuse sampled during each read: a
// streaming reader's peak must not grow with the table. The numbers go to
// docs/benchmarks.md; only the row counts are asserted (heap peaks on a
// shared machine are too noisy for a pass/fail bound).
func TestWideMemory(t *testing.T) {
	tbl := openBenchTable(t, "wide")
	ctx := context.Background()
	for _, snap := range []int64{4, 8} {
		for _, proj := range [][]string{nil, proj2[:]} {
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			peak, stop := sampleHeap()
			rb := tbl.NewReadBuilder().WithSnapshot(snap)
			if proj != nil {
				rb = rb.WithProjection(proj...)
			}
			rows, _ := readAll(ctx, t, rb)
			stop()
			if want := snap * wideRowsPerCommit; rows != want {
				t.Fatalf("snapshot %d: read %d rows, want %d", snap, rows, want)
			}
			t.Logf("snapshot %d (%d rows), projection %v: peak HeapInuse %.1f MiB (baseline %.1f MiB)",
				snap, rows, proj, float64(*peak)/(1<<20), float64(base.HeapInuse)/(1<<20))
		}
	}
}

// sampleHeap samples HeapInuse every 2 ms until stop is called and keeps the
// maximum. ReadMemStats stops the world briefly, so this slows the read a
// little; it is only used by the memory test, never by the timed benchmarks.
func sampleHeap() (peak *uint64, stop func()) {
	peak = new(uint64)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > *peak {
				*peak = ms.HeapInuse
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return peak, func() { close(done); <-finished }
}

// TestWideORCEqualsParquet checks that the ORC benchmark reads the same data
// as the Parquet one: bench.wide_orc's first two snapshots (262,144 rows, two
// files written by pyarrow's C++ ORC writer) must read exactly as
// bench.wide's, every column, so the ORC timings measure a correct read.
func TestWideORCEqualsParquet(t *testing.T) {
	ctx := context.Background()
	read := func(name string) []string {
		rb := openBenchTable(t, name).NewReadBuilder().WithSnapshot(2)
		plan, err := rb.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := interop.ReadSplits(ctx, rb.NewRead(), plan.Splits)
		if err != nil {
			t.Fatalf("bench.%s: %v", name, err)
		}
		return lines
	}
	pq, orc := read("wide"), read("wide_orc")
	if len(pq) != 2*wideRowsPerCommit {
		t.Fatalf("bench.wide snapshot 2: %d rows, want %d", len(pq), 2*wideRowsPerCommit)
	}
	if d := interop.DiffLines(pq, orc); d != "" {
		t.Fatalf("bench.wide_orc differs from bench.wide:\n%s", d)
	}
}
