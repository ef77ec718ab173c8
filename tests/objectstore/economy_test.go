package objectstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// pollMarks wraps a FileIO and, each time the scan reads the snapshot it
// waits for, records how many requests the Metrics hook and the server had
// seen: the differences between marks are the exact cost of each poll.
// After limit marks it cancels the scan.
type pollMarks struct {
	fileio.FileIO
	target  string
	limit   int
	cancel  context.CancelFunc
	counter *requestCounter
	meter   *meter

	mu    sync.Mutex
	hooks []int
	reqs  []int
	bytes []int64
	calls []string // every FileIO call after the first mark
}

func (p *pollMarks) note(call string) {
	p.mu.Lock()
	if len(p.hooks) > 0 {
		p.calls = append(p.calls, call)
	}
	p.mu.Unlock()
}

func (p *pollMarks) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if path == p.target {
		h, _ := p.counter.snapshot()
		r, b, _ := p.meter.stats()
		p.mu.Lock()
		p.hooks, p.reqs, p.bytes = append(p.hooks, h), append(p.reqs, r), append(p.bytes, b)
		n := len(p.hooks)
		p.mu.Unlock()
		if n > p.limit {
			p.cancel()
			return nil, context.Canceled
		}
	}
	p.note("ReadFile " + path)
	return p.FileIO.ReadFile(ctx, path)
}

func (p *pollMarks) Exists(ctx context.Context, path string) (bool, error) {
	p.note("Exists " + path)
	return p.FileIO.Exists(ctx, path)
}

func (p *pollMarks) List(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	p.note("List " + dir)
	return p.FileIO.List(ctx, dir)
}

func (p *pollMarks) Stat(ctx context.Context, path string) (fileio.FileInfo, error) {
	p.note("Stat " + path)
	return p.FileIO.Stat(ctx, path)
}

// TestIdleStreamingPollRequests follows a table with no new snapshot and
// measures each poll of the library's streaming scan (not a bare Exists):
// a poll must cost one request, one GET of the missing snapshot-<next>,
// except the position range check the scan runs on the 1st, 17th, 33rd...
// consecutive miss (Java's every-16 check for expiry/recreation), whose
// cost is pinned here so a change shows up.
func TestIdleStreamingPollRequests(t *testing.T) {
	base := versity(t, fileiotest.FaultConfig{})
	s, m := base.another(t, "metered", fileiotest.FaultConfig{})
	dir := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	root := "s3://" + bucket + "/econ"
	// javagen.db.commits has LATEST and EARLIEST hints (Java writes both),
	// interop.db.types_single only LATEST (pypaimon 2.1.0).
	for _, tc := range []struct {
		table     string
		next      int64
		rangeCost int
	}{
		// The range check first asks whether snapshot next-1 exists (one
		// HEAD); when it does, the position can't be expired or beyond the
		// end and the full check (EARLIEST and LATEST hints, 5 requests) is
		// skipped.
		{"javagen.db/commits", 6, 1},
		{"interop.db/types_single", 2, 1},
	} {
		t.Run(tc.table, func(t *testing.T) {
			upload(t, s.open(t, s.options()), filepath.Join(dir, filepath.FromSlash(tc.table)), fileio.Join(root, tc.table))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			counter := newRequestCounter()
			opts := s.options()
			opts.Metrics = counter.hook
			fio := s.open(t, opts)
			const polls = 48
			pm := &pollMarks{FileIO: fio, target: fileio.Join(root, tc.table, "snapshot", fmt.Sprintf("snapshot-%d", tc.next)),
				limit: polls, cancel: cancel, counter: counter, meter: m}
			cat, err := paimon.OpenCatalog(ctx, root, paimon.WithFileIO(pm), interop.CheckedAlloc(t))
			if err != nil {
				t.Fatal(err)
			}
			db, name, _ := strings.Cut(tc.table, ".db/")
			tbl, err := cat.GetTable(ctx, db+"."+name)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartLatest).WithPollInterval(time.Millisecond).NewStreamingScan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			m.reset()
			if p, err := sc.Next(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("Next on an idle table = %+v, %v; want it to poll until cancelled", p, err)
			}
			if len(pm.hooks) != polls+1 {
				t.Fatalf("%d polls recorded, want %d", len(pm.hooks), polls+1)
			}
			var steadyReqs int
			var steadyBytes int64
			steady := 0
			for i := range polls {
				hook := pm.hooks[i+1] - pm.hooks[i]
				reqs := pm.reqs[i+1] - pm.reqs[i]
				bytes := pm.bytes[i+1] - pm.bytes[i]
				if hook != reqs {
					t.Errorf("poll %d: the Metrics hook counted %d requests, the server %d", i+1, hook, reqs)
				}
				want := 1
				if i%16 == 0 {
					want = 1 + tc.rangeCost
				} else {
					steady++
					steadyReqs += reqs
					steadyBytes += bytes
				}
				if reqs != want {
					t.Errorf("poll %d cost %d requests, want %d", i+1, reqs, want)
				}
			}
			total := pm.reqs[polls] - pm.reqs[0]
			t.Logf("%s: %d idle polls, %d requests (%.3f per poll); steady polls %d requests %d bytes (%.0f B/poll); range-check poll calls: %v",
				tc.table, polls, total, float64(total)/polls, steadyReqs, steadyBytes, float64(steadyBytes)/float64(steady), rangeCheckCalls(pm))
		})
	}
}

// rangeCheckCalls returns the FileIO calls of the 17th poll (a range check)
// for the log.
func rangeCheckCalls(pm *pollMarks) []string {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	var out []string
	n := 0
	for _, c := range pm.calls {
		if c == "ReadFile "+pm.target {
			n++
		}
		if n == 17 {
			out = append(out, c)
		}
	}
	return out
}

// fileReads is the cost of reading a table's data files through the
// library, planning excluded.
type fileReads struct {
	files, rows    int64
	requests, gets int
	bytes          int64
	hooked         int
}

// readDataFiles plans tbl (projected) and reads every split through cat,
// counting only the reads: the meter and the hook are reset after
// planning.
func readDataFiles(t testing.TB, tbl *paimon.Table, m *meter, counter *requestCounter, projection ...string) fileReads {
	t.Helper()
	ctx := context.Background()
	rb := tbl.NewReadBuilder()
	if projection != nil {
		rb = rb.WithProjection(projection...)
	}
	plan, err := rb.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m.reset()
	counter.reset()
	var r fileReads
	rd := rb.NewRead()
	for _, sp := range plan.Splits {
		r.files += int64(len(sp.Files()))
		n, err := interop.CountRows(ctx, rd, sp)
		if err != nil {
			t.Fatal(err)
		}
		r.rows += n
	}
	var bm map[string]int
	r.requests, r.bytes, bm = m.stats()
	r.gets = bm["GET"]
	r.hooked, _ = counter.snapshot()
	return r
}

// TestDataFileReadRequests reads the data files of committed fixture
// tables through s3:// with all columns and with 2: a file smaller than
// the tail cache (64 KiB) costs exactly one GET of exactly its bytes, and
// no HEAD (the manifest's file size is used).
func TestDataFileReadRequests(t *testing.T) {
	base := versity(t, fileiotest.FaultConfig{})
	s, m := base.another(t, "metered", fileiotest.FaultConfig{})
	dir := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	root := "s3://" + bucket + "/files"
	counter := newRequestCounter()
	opts := s.options()
	opts.Metrics = counter.hook
	ctx := context.Background()
	for _, tc := range []struct {
		table string
	}{{"interop.db/types_single"}, {"interop.db/types_parquet_zstd"}} {
		t.Run(tc.table, func(t *testing.T) {
			local := filepath.Join(dir, filepath.FromSlash(tc.table))
			upload(t, s.open(t, s.options()), local, fileio.Join(root, tc.table))
			var size int64
			files, _ := filepath.Glob(filepath.Join(local, "bucket-*", "data-*.parquet"))
			for _, f := range files {
				st, err := os.Stat(f)
				if err != nil {
					t.Fatal(err)
				}
				size += st.Size()
			}
			cat, err := paimon.OpenCatalog(ctx, root, paimon.WithStorageOptions(opts), interop.CheckedAlloc(t))
			if err != nil {
				t.Fatal(err)
			}
			db, name, _ := strings.Cut(tc.table, ".db/")
			tbl, err := cat.GetTable(ctx, db+"."+name)
			if err != nil {
				t.Fatal(err)
			}
			fields := tbl.Schema().Fields
			all := readDataFiles(t, tbl, m, counter)
			two := readDataFiles(t, tbl, m, counter, fields[0].Name, fields[len(fields)-1].Name)
			for _, r := range []struct {
				name string
				r    fileReads
			}{{"all columns", all}, {"2 columns", two}} {
				t.Logf("%s, %s: %d files (%d bytes on disk), %d rows: %d requests (%d GET), %d bytes; hook %d",
					tc.table, r.name, r.r.files, size, r.r.rows, r.r.requests, r.r.gets, r.r.bytes, r.r.hooked)
				if r.r.files != int64(len(files)) || r.r.requests != len(files) || r.r.gets != len(files) || r.r.bytes != size || r.r.hooked != r.r.requests {
					t.Errorf("%s: want one GET of exactly the file per file (%d files, %d bytes)", r.name, len(files), size)
				}
			}
			if all.rows == 0 || two.rows != all.rows {
				t.Errorf("rows: all columns %d, 2 columns %d", all.rows, two.rows)
			}
		})
	}
}
