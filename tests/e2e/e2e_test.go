// Package e2e measures the paimon input end to end: bench.wide (1,048,576
// rows, 10 columns, written by pypaimon via resources/bench/make_tables.py)
// through a Benthos pipeline `paimon → drop`, in process and through the
// built binary, next to raw pqarrow decoding of the same files and
// pypaimon's streaming read of the same table as Python dicts.
//
// Everything skips unless PAIMON_BENCH_DIR holds the generated tables.
// Throughput is reported, not asserted (the machine is shared); what is
// asserted is that every row arrives, so a fast wrong answer cannot pass.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/redpanda-data/benthos/v4/public/service"

	_ "github.com/redpanda-data/benthos/v4/public/components/pure"

	_ "github.com/connect-paimon/connect-paimon/input"
	// The binary's `none` tracer, so per-message costs are the binary's.
	_ "github.com/connect-paimon/connect-paimon/internal/observe/notrace"
	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// wideRows must match make_tables.py (8 commits of 131,072 rows).
const wideRows = 8 * 131072

func benchWarehouse(tb testing.TB) string {
	return benchWarehouseOf(tb, "wide")
}

// benchWarehouseOf is the warehouse holding the generated bench.<table>.
func benchWarehouseOf(tb testing.TB, table string) string {
	tb.Helper()
	return filepath.Join(testenv.BenchTable(tb, table), "warehouse")
}

// pipelineYAML is the input of every measurement: a bounded full read.
func pipelineYAML(wh string) string {
	return pipelineYAMLOf(wh, "bench.wide")
}

func pipelineYAMLOf(wh, table string) string {
	return fmt.Sprintf(`paimon:
  warehouse: %s
  table: %s
  scan_mode: latest-full
  end: {at_latest: true}
`, wh, table)
}

// runPipeline runs paimon → a counting consumer that drops the messages
// and returns the rows and the wall time.
func runPipeline(tb testing.TB, wh string) (int64, time.Duration) {
	tb.Helper()
	return runInput(tb, pipelineYAMLOf(wh, "bench.wide"))
}

// runInput runs the input config → a counting consumer that drops the
// messages, with the binary's tracer (`none`, internal/observe/notrace), logging
// only errors (a warning line would break the benchmark output).
func runInput(tb testing.TB, inputYAML string) (int64, time.Duration) {
	tb.Helper()
	sb := service.NewStreamBuilder()
	if err := sb.SetLoggerYAML("level: error"); err != nil {
		tb.Fatal(err)
	}
	if err := sb.AddInputYAML(inputYAML); err != nil {
		tb.Fatal(err)
	}
	var rows, bytes atomic.Int64
	if err := sb.AddBatchConsumerFunc(func(_ context.Context, b service.MessageBatch) error {
		rows.Add(int64(len(b)))
		if len(b) > 0 {
			body, err := b[0].AsBytes()
			if err != nil {
				return err
			}
			bytes.Add(int64(len(body)))
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	if err := strm.Run(ctx); err != nil {
		tb.Fatal(err)
	}
	return rows.Load(), time.Since(start)
}

// benchInput runs inputYAML → drop b.N times, checks every run delivered
// rows messages, and reports rows/s and CPU-µs per row.
func benchInput(b *testing.B, inputYAML string, rows int64) {
	b.ReportAllocs()
	var total time.Duration
	cpu0 := testenv.CPUTime()
	for b.Loop() {
		n, d := runInput(b, inputYAML)
		if n != rows {
			b.Fatalf("delivered %d rows, want %d", n, rows)
		}
		total += d
	}
	b.ReportMetric(float64(rows)*float64(b.N)/total.Seconds(), "rows/s")
	testenv.ReportCPU(b, cpu0, rows)
}

// BenchmarkPipelineDrop is bench.wide through the paimon input in process.
// Profile with -cpuprofile.
func BenchmarkPipelineDrop(b *testing.B) {
	benchInput(b, pipelineYAMLOf(benchWarehouse(b), "bench.wide"), wideRows)
}

// BenchmarkPipelineDropORC is BenchmarkPipelineDrop on bench.wide_orc (the
// same rows as ORC + zstd, issue 14).
func BenchmarkPipelineDropORC(b *testing.B) {
	benchInput(b, pipelineYAMLOf(benchWarehouseOf(b, "wide_orc"), "bench.wide_orc"), wideRows)
}

// BenchmarkBenthosFloor is what Benthos itself costs per message in the
// binary's setup: an input that only hands out wideRows ready messages,
// built as the paimon input builds them (a copy of a template carrying the
// same eleven metadata entries, a body sliced from one buffer per batch of
// 1024), into the same consumer. No Paimon read and no JSON encoding: the
// floor under BenchmarkPipelineDrop's CPU per row with one row per message
// (issue 16 asks for ≤ 1.0 CPU-µs per row through the binary).
func BenchmarkBenthosFloor(b *testing.B) {
	benchInput(b, "paimon_floor_bench: {}", wideRows)
}

func init() {
	err := service.RegisterBatchInput("paimon_floor_bench", service.NewConfigSpec(),
		func(*service.ParsedConfig, *service.Resources) (service.BatchInput, error) {
			return &floorInput{left: wideRows}, nil
		})
	if err != nil {
		panic(err)
	}
}

// floorInput is BenchmarkBenthosFloor's input.
type floorInput struct {
	tmpl *service.Message
	left int
}

func (f *floorInput) Connect(context.Context) error {
	f.tmpl = service.NewMessage(nil)
	for k, v := range map[string]any{
		"paimon_row_kind": "+I", "paimon_snapshot_id": int64(8), "paimon_commit_kind": "APPEND",
		"paimon_commit_time": time.Unix(1700000000, 0), "paimon_schema_id": int64(0),
		"paimon_partition": map[string]any{}, "paimon_bucket": int64(0), "paimon_table": "bench.wide",
		"paimon_schema": map[string]any{"type": "OBJECT"}, "paimon_file": "data-0.parquet", "operation": "read",
	} {
		f.tmpl.MetaSetMut(k, v)
	}
	return nil
}

// floorRow is the size of one bench.wide row as JSON.
const floorRow = 190

func (f *floorInput) ReadBatch(context.Context) (service.MessageBatch, service.AckFunc, error) {
	if f.left == 0 {
		return nil, nil, service.ErrEndOfInput
	}
	n := min(f.left, 1024)
	f.left -= n
	body := make([]byte, n*floorRow)
	out := make(service.MessageBatch, n)
	for i := range out {
		out[i] = f.tmpl.Copy()
		out[i].SetBytes(body[i*floorRow : (i+1)*floorRow : (i+1)*floorRow])
	}
	return out, func(context.Context, error) error { return nil }, nil
}

func (f *floorInput) Close(context.Context) error { return nil }

// wideFiles lists bench.wide's data files on disk (8 Parquet files).
func wideFiles(tb testing.TB, wh string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(wh, "bench.db", "wide", "bucket-0", "data-*.parquet"))
	if err != nil || len(files) != 8 {
		tb.Fatalf("bench.wide data files: %v %v (want 8)", files, err)
	}
	return files
}

// rawDecode decodes every column of the files with pqarrow, the floor any
// Parquet reader in Go pays.
func rawDecode(tb testing.TB, files []string) int64 {
	tb.Helper()
	var n int64
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			tb.Fatal(err)
		}
		pf, err := file.NewParquetReader(f)
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096 /* the library's default batch */, Parallel: true}, memory.DefaultAllocator)
		if err != nil {
			tb.Fatal(err)
		}
		rr, err := fr.GetRecordReader(context.Background(), nil, nil)
		if err != nil {
			tb.Fatal(err)
		}
		for rr.Next() {
			n += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			tb.Fatalf("%s: %v", path, err)
		}
		rr.Release()
		_ = pf.Close()
	}
	return n
}

// TestEndToEndSideBySide runs, one after the other on the same table and
// machine: raw pqarrow decoding, the in-process pipeline, the built binary
// (paimon → drop, peak RSS from /usr/bin/time -v when present) and
// pypaimon's streaming read as Python dicts. It logs rows/s and the ratios;
// run with -v. Set PAIMON_E2E_SKIP_PY=1 to leave pypaimon out.
func TestEndToEndSideBySide(t *testing.T) {
	wh := benchWarehouse(t)
	if testing.Short() {
		t.Skip("benchmark")
	}
	files := wideFiles(t, wh)

	start := time.Now()
	if n := rawDecode(t, files); n != wideRows {
		t.Fatalf("raw pqarrow decoded %d rows, want %d", n, wideRows)
	}
	raw := time.Since(start)

	rows, inproc := runPipeline(t, wh)
	if rows != wideRows {
		t.Fatalf("pipeline delivered %d rows, want %d", rows, wideRows)
	}

	bin, binRSS := runBinary(t, wh)

	rate := func(d time.Duration) float64 { return float64(wideRows) / d.Seconds() }
	t.Logf("raw pqarrow decode (all columns): %8.0f rows/s (%s)", rate(raw), raw.Round(time.Millisecond))
	t.Logf("pipeline in process paimon→drop: %8.0f rows/s (%s), %.2f of raw", rate(inproc), inproc.Round(time.Millisecond), raw.Seconds()/inproc.Seconds())
	if bin > 0 {
		t.Logf("binary paimon→drop (wall, incl. start-up): %8.0f rows/s (%s), peak RSS %d MiB", rate(bin), bin.Round(time.Millisecond), binRSS>>10)
	}
	if os.Getenv("PAIMON_E2E_SKIP_PY") == "" {
		py := pypaimonStream(t)
		t.Logf("pypaimon streaming read as dicts: %8.0f rows/s (%s); in-process pipeline is %.1fx pypaimon", rate(py), py.Round(time.Millisecond), py.Seconds()/inproc.Seconds())
	}
}

// runBinary builds cmd/connect-paimon and runs the pipeline with the drop
// output, returning wall time and peak RSS in KiB (0 without GNU time).
func runBinary(t *testing.T, wh string) (time.Duration, int64) {
	t.Helper()
	dir := t.TempDir()
	bin := testenv.Binary(t)
	cfg := filepath.Join(dir, "drop.yaml")
	yaml := "logger: {level: warn}\nmetrics: {none: {}}\ninput:\n" + indent(pipelineYAML(wh)) + "output:\n  drop: {}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{bin, "run", cfg}
	gnuTime := false
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		args = append([]string{"/usr/bin/time", "-v"}, args...)
		gnuTime = true
	}
	cmd := exec.Command(args[0], args[1:]...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		t.Fatalf("binary: %v\n%s", err, out)
	}
	if !gnuTime {
		return d, 0
	}
	m := regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no peak RSS in /usr/bin/time output:\n%s", out)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return d, kb
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}

// pypaimonStream times resources/bench/pypaimon_read.py's stream_wide_dicts
// (which checks the row count itself), median of one run.
func pypaimonStream(t *testing.T) time.Duration {
	t.Helper()
	script := filepath.Join(testenv.RepoRoot(t), "resources", "bench", "pypaimon_read.py")
	out := testenv.RunPython(t, script, "--dir", filepath.Dir(benchWarehouse(t)), "--repeat", "1", "--only", "stream_wide_dicts")
	f := strings.Fields(out)
	if len(f) < 2 || f[0] != "stream_wide_dicts" {
		t.Fatalf("unexpected pypaimon_read.py output %q", out)
	}
	secs, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		t.Fatalf("pypaimon_read.py output %q: %v", out, err)
	}
	return time.Duration(secs * float64(time.Second))
}
