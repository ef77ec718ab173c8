package objectstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// wideRows is the row count of bench.wide, the 1M-row table of
// resources/bench/make_tables.py (8 commits x 131072 rows, 10 columns).
const wideRows = 8 * 131072

// wideWarehouse returns the local warehouse holding bench.wide, or skips:
// these are measurements for docs/objectstore.md, run by hand with
// PAIMON_BENCH_DIR set (`resources/bench/make_tables.py --dir DIR --only
// wide` generates the table once and caches it there).
func wideWarehouse(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(testenv.BenchTable(tb, "wide"), "warehouse")
}

// wideOnS3 uploads bench.wide to a fresh versitygw and opens it there; the
// meter and counter see every request of the returned table.
func wideOnS3(tb testing.TB) (*paimon.Table, *meter, *requestCounter) {
	tb.Helper()
	wh := wideWarehouse(tb)
	base := versity(tb, fileiotest.FaultConfig{})
	s, m := base.another(tb, "metered", fileiotest.FaultConfig{})
	root := "s3://" + bucket + "/bench"
	upload(tb, s.open(tb, s.options()), filepath.Join(wh, "bench.db", "wide"), fileio.Join(root, "bench.db", "wide"))
	counter := newRequestCounter()
	opts := s.options()
	opts.Metrics = counter.hook
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, root, paimon.WithStorageOptions(opts))
	if err != nil {
		tb.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, "bench.wide")
	if err != nil {
		tb.Fatal(err)
	}
	return tbl, m, counter
}

// TestWideDataFileRequests logs requests and bytes per data file of the
// 1M-row table read through s3:// with all 10 columns and with 2 (id, s).
// It asserts the rows, that the hook saw what the server saw, that no
// HEAD is sent, and that a 2-column read moves fewer bytes than a full
// one; the counts themselves go to docs/objectstore.md.
func TestWideDataFileRequests(t *testing.T) {
	tbl, m, counter := wideOnS3(t)
	all := readDataFiles(t, tbl, m, counter)
	two := readDataFiles(t, tbl, m, counter, "id", "s")
	var size int64
	files, _ := filepath.Glob(filepath.Join(wideWarehouse(t), "bench.db", "wide", "bucket-0", "data-*.parquet"))
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	for _, r := range []struct {
		name string
		r    fileReads
	}{{"all columns", all}, {"2 columns", two}} {
		t.Logf("bench.wide, %s: %d files (%.1f MB on disk), %d rows: %d requests (%d GET) = %.1f per file, %.2f MB = %.2f MB per file",
			r.name, r.r.files, float64(size)/1e6, r.r.rows, r.r.requests, r.r.gets, float64(r.r.requests)/float64(r.r.files),
			float64(r.r.bytes)/1e6, float64(r.r.bytes)/1e6/float64(r.r.files))
		if r.r.rows != wideRows || r.r.hooked != r.r.requests || r.r.gets != r.r.requests || r.r.files != int64(len(files)) {
			t.Errorf("%s: %+v, want %d rows from %d files, GETs only, hook = server", r.name, r.r, wideRows, len(files))
		}
	}
	if two.bytes >= all.bytes {
		t.Errorf("2 columns moved %d bytes, all columns %d", two.bytes, all.bytes)
	}
}

// BenchmarkWideTableRead reads the whole 1M-row table (plan + all splits)
// from local disk and from versitygw on loopback, all columns and 2.
func BenchmarkWideTableRead(b *testing.B) {
	wh := wideWarehouse(b)
	ctx := context.Background()
	localCat, err := paimon.OpenCatalog(ctx, wh)
	if err != nil {
		b.Fatal(err)
	}
	local, err := localCat.GetTable(ctx, "bench.wide")
	if err != nil {
		b.Fatal(err)
	}
	remote, _, _ := wideOnS3(b)
	for _, src := range []struct {
		name string
		tbl  *paimon.Table
	}{{"local", local}, {"versitygw", remote}} {
		for _, proj := range []struct {
			name string
			cols []string
		}{{"all", nil}, {"2cols", []string{"id", "s"}}} {
			b.Run(src.name+"/"+proj.name, func(b *testing.B) {
				start := time.Now()
				for b.Loop() {
					rb := src.tbl.NewReadBuilder()
					if proj.cols != nil {
						rb = rb.WithProjection(proj.cols...)
					}
					plan, err := rb.Plan(ctx)
					if err != nil {
						b.Fatal(err)
					}
					rows := int64(0)
					rd := rb.NewRead()
					for _, sp := range plan.Splits {
						n, err := interop.CountRows(ctx, rd, sp)
						if err != nil {
							b.Fatal(err)
						}
						rows += n
					}
					if rows != wideRows {
						b.Fatalf("read %d rows, want %d", rows, wideRows)
					}
				}
				b.ReportMetric(float64(wideRows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
			})
		}
	}
}
