package objectstore_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// meter counts requests and response body bytes as the server sends them.
// It sits behind the fault handler, so with faults on it counts what the
// server produced, not what reached the client; the measurements use it
// with faults off, where the two are the same.
type meter struct {
	next http.Handler

	mu       sync.Mutex
	requests int
	bytes    int64
	byMethod map[string]int
}

func (m *meter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cw := &countingWriter{ResponseWriter: w}
	m.next.ServeHTTP(cw, r)
	method := r.Method
	if method == http.MethodGet && r.URL.Query().Has("list-type") {
		method = "LIST"
	}
	m.mu.Lock()
	m.requests++
	m.bytes += cw.n
	m.byMethod[method]++
	m.mu.Unlock()
}

// stats returns requests, body bytes and requests by method since the last
// reset.
func (m *meter) stats() (int, int64, map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	bm := make(map[string]int, len(m.byMethod))
	for k, v := range m.byMethod {
		bm[k] = v
	}
	return m.requests, m.bytes, bm
}

func (m *meter) reset() {
	m.mu.Lock()
	m.requests, m.bytes, m.byMethod = 0, 0, map[string]int{}
	m.mu.Unlock()
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

// Flush keeps streaming responses streaming through the meter.
func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// another puts a second front (its own fault handler and a meter) before
// the same server, so one test can read the same bucket cleanly and under
// faults at once.
func (s *server) another(t testing.TB, name string, fc fileiotest.FaultConfig) (*server, *meter) {
	t.Helper()
	m := &meter{next: s.backend, byMethod: map[string]int{}}
	f := front(t, s.name+"/"+name, m, fc)
	f.direct = s.direct
	return f, m
}

// requestCounter is a fileio.Options.Metrics hook counting attempts by op,
// the code under test's own view of its requests.
type requestCounter struct {
	mu   sync.Mutex
	byOp map[string]int
	errs int
}

func newRequestCounter() *requestCounter { return &requestCounter{byOp: map[string]int{}} }

func (c *requestCounter) hook(op string, err error, _ time.Duration) {
	c.mu.Lock()
	c.byOp[op]++
	if err != nil {
		c.errs++
	}
	c.mu.Unlock()
}

func (c *requestCounter) snapshot() (int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	m := make(map[string]int, len(c.byOp))
	for k, v := range c.byOp {
		m[k] = v
		total += v
	}
	return total, m
}

func (c *requestCounter) reset() {
	c.mu.Lock()
	c.byOp, c.errs = map[string]int{}, 0
	c.mu.Unlock()
}

// upload copies every file under dir to root (an s3:// URI) with plain
// PUTs, four at a time. Order does not matter: nothing reads the tables
// while they are uploaded.
func upload(t testing.TB, fio fileio.FileIO, dir, root string) int {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	if len(paths) == 0 {
		t.Fatalf("upload: no files under %s", dir)
	}
	ctx := context.Background()
	sem := make(chan struct{}, 4)
	errs := make(chan error, len(paths))
	var wg sync.WaitGroup
	for _, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rel, _ := filepath.Rel(dir, p)
			data, err := os.ReadFile(p)
			if err == nil {
				err = fio.WriteFileAtomic(ctx, fileio.Join(root, filepath.ToSlash(rel)), data, true)
			}
			if err != nil {
				errs <- fmt.Errorf("upload %s: %w", p, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return len(paths)
}

// readCase reads one interop case through cat into sorted canonical lines,
// as tests/interop's runner does (its runner is in a _test file, so the
// few lines are repeated here).
func readCase(ctx context.Context, cat *paimon.Catalog, c interop.Case) ([]string, error) {
	var opts []paimon.TableOption
	if c.Branch != "" {
		opts = append(opts, paimon.WithBranch(c.Branch))
	}
	tbl, err := cat.GetTable(ctx, c.Table, opts...)
	if err != nil {
		return nil, err
	}
	rb := tbl.NewReadBuilder()
	if c.Snapshot != nil {
		rb = rb.WithSnapshot(*c.Snapshot)
	}
	if c.Projection != nil {
		rb = rb.WithProjection(c.Projection...)
	}
	if c.Filter != nil {
		p, err := predicate.Parse(*c.Filter, tbl.Schema().Fields)
		if err != nil {
			return nil, fmt.Errorf("parse filter %q: %w", *c.Filter, err)
		}
		rb = rb.WithFilter(p)
	}
	plan, err := rb.NewScan().Plan(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	rd := rb.NewRead()
	var lines []string
	for _, sp := range plan.Splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			return nil, fmt.Errorf("read split (bucket %d): %w", sp.Bucket(), err)
		}
		l, err := interop.EncodeReader(rr)
		rr.Release()
		if err != nil {
			return nil, fmt.Errorf("split (bucket %d): %w", sp.Bucket(), err)
		}
		lines = append(lines, l...)
	}
	sort.Strings(lines)
	return lines, nil
}

// readExpected reads an expected file: canonical JSON lines, sorted.
func readExpected(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// diff returns "" for equal sorted line sets, else the counts and the first
// lines only one side has.
func diff(want, got []string) string {
	var b strings.Builder
	i, j, shown := 0, 0, 0
	for (i < len(want) || j < len(got)) && shown < 6 {
		switch {
		case j >= len(got) || (i < len(want) && want[i] < got[j]):
			fmt.Fprintf(&b, "  - want %.300s\n", want[i])
			i++
			shown++
		case i >= len(want) || got[j] < want[i]:
			fmt.Fprintf(&b, "  + got  %.300s\n", got[j])
			j++
			shown++
		default:
			i++
			j++
		}
	}
	if shown == 0 {
		return ""
	}
	return fmt.Sprintf("want %d rows, got %d\n%s", len(want), len(got), b.String())
}
