package objectstore_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
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
	// Count before serving and bytes as they are written: a client can have
	// the whole (small) body, and the test read the meter, before the
	// handler returns.
	method := r.Method
	if method == http.MethodGet && r.URL.Query().Has("list-type") {
		method = "LIST"
	}
	m.mu.Lock()
	m.requests++
	m.byMethod[method]++
	m.mu.Unlock()
	m.next.ServeHTTP(&countingWriter{ResponseWriter: w, m: m}, r)
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
	m *meter
}

// Write counts p before writing it: once written, the client may have the
// bytes and the test read the meter before a count after Write would land
// (a loaded CI machine lost a file's bytes that way); what a failed Write
// did not send is taken back.
func (c *countingWriter) Write(p []byte) (int, error) {
	c.m.mu.Lock()
	c.m.bytes += int64(len(p))
	c.m.mu.Unlock()
	n, err := c.ResponseWriter.Write(p)
	if n < len(p) {
		c.m.mu.Lock()
		c.m.bytes -= int64(len(p) - n)
		c.m.mu.Unlock()
	}
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

// requestCounter is a objstore.Options.Metrics hook counting attempts by op,
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
