package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// loopbackAddr returns a free 127.0.0.1 address for the binary's HTTP
// server.
func loopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels string
	value  float64
}

func parseExposition(t *testing.T, text string) []sample {
	t.Helper()
	var out []sample
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			t.Fatalf("exposition line %q: %v", line, err)
		}
		name, labels := line[:sp], ""
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name, labels = name[:i], name[i:]
		}
		out = append(out, sample{name, labels, v})
	}
	return out
}

// find returns the samples named name whose labels contain every one of
// want (`key="value"`).
func find(ss []sample, name string, want ...string) []sample {
	var out []sample
next:
	for _, s := range ss {
		if s.name != name {
			continue
		}
		for _, w := range want {
			if !strings.Contains(s.labels, w) {
				continue next
			}
		}
		out = append(out, s)
	}
	return out
}

func scrape(t *testing.T, url string) (string, error) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	return string(b), err
}

// TestBinaryPrometheusMetrics runs the real binary on the fixture table
// with `metrics: prometheus` (Connect's fields: histogram timings, Go and
// process metrics, a Pushgateway, a text file on shutdown) and scrapes the
// HTTP server's /metrics: the input's metrics are there with the table
// label, the plan latency as a histogram named _ns, counters that never
// moved are present at 0, and Benthos' own pipeline metrics count the
// table's rows.
func TestBinaryPrometheusMetrics(t *testing.T) {
	root := testenv.RepoRoot(t)
	wh := filepath.Join(root, "resources", "fixtures", "warehouse")
	rows := len(testenv.ReadLines(t, filepath.Join(root, "resources", "fixtures", "expected", "demo.orders", "full.jsonl")))
	dir := t.TempDir()
	addr := loopbackAddr(t)

	var mu sync.Mutex
	var pushes []string
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u, p, _ := r.BasicAuth()
		mu.Lock()
		pushes = append(pushes, r.Method+" "+r.URL.Path+" "+u+":"+p+" "+strconv.Itoa(len(b)))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer gw.Close()

	promFile := filepath.Join(dir, "metrics.prom")
	d := startDaemon(t, fmt.Sprintf(`
logger: {level: warn}
http: {address: %q}
metrics:
  prometheus:
    use_histogram_timing: true
    histogram_buckets: [0.001, 0.01, 0.1, 1, 10]
    add_process_metrics: true
    add_go_metrics: true
    push_url: %q
    push_interval: 200ms
    push_job_name: cp_test
    push_basic_auth: {username: u, password: p}
    file_output_path: %q
input:
  paimon:
    warehouse: %s
    table: demo.orders
output:
  drop: {}
`, addr, gw.URL, promFile, wh))

	// The stream has no end: wait until the input counted every row.
	var text string
	var ss []sample
	var scrapeErr error
	const table = `table="demo.orders"`
	d.waitUntil(t, 4*time.Minute, func() bool {
		text, scrapeErr = scrape(t, "http://"+addr+"/metrics")
		if scrapeErr != nil {
			return false
		}
		ss = parseExposition(t, text)
		r := find(ss, "paimon_rows_read", table)
		return len(r) == 1 && r[0].value == float64(rows)
	}, func() string {
		return fmt.Sprintf("paimon_rows_read never reached %d (last error %v):\n%s", rows, scrapeErr, text)
	})

	for _, name := range []string{"paimon_files_read", "paimon_bytes_read"} {
		if s := find(ss, name, table); len(s) != 1 || s[0].value <= 0 {
			t.Errorf("%s{%s} = %v, want one positive sample", name, table, s)
		}
	}
	// Never touched in this run: present only because the input reports
	// its counters at 0 from start.
	for _, name := range []string{"paimon_rejected_batches", "paimon_replayed_rows"} {
		if s := find(ss, name, table); len(s) != 1 || s[0].value != 0 {
			t.Errorf("%s{%s} = %v, want one sample at 0", name, table, s)
		}
	}
	if s := find(ss, "paimon_plan_latency_ns_count", table); len(s) != 1 || s[0].value < 1 {
		t.Errorf("paimon_plan_latency_ns_count{%s} = %v, want ≥ 1 plan timed", table, s)
	}
	if s := find(ss, "paimon_plan_latency_ns_bucket", table, `le="0.001"`); len(s) != 1 {
		t.Errorf("paimon_plan_latency_ns is not a histogram on the configured buckets (le=0.001 missing): %v", s)
	}
	if s := find(ss, "paimon_snapshot_lag", table); len(s) != 1 || s[0].value != 0 {
		t.Errorf("paimon_snapshot_lag{%s} = %v, want 0 once the table is read", table, s)
	}
	// Benthos' own metrics, labelled with its label names.
	if s := find(ss, "input_received", `path="root.input"`); len(s) != 1 || s[0].value != float64(rows) {
		t.Errorf("input_received{path=root.input} = %v, want %d", s, rows)
	}
	if s := find(ss, "output_sent", `path="root.output"`); len(s) != 1 || s[0].value != float64(rows) {
		t.Errorf("output_sent{path=root.output} = %v, want %d", s, rows)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if len(find(ss, name)) == 0 {
			t.Errorf("%s missing with add_go_metrics/add_process_metrics", name)
		}
	}

	// The periodic pushes (every 200ms) before the last one on shutdown.
	pushCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(pushes)
	}
	d.waitUntil(t, time.Minute, func() bool { return pushCount() >= 2 }, func() string {
		return fmt.Sprintf("pushgateway got %d pushes with push_interval 200ms", pushCount())
	})
	periodic := pushCount()

	// SIGTERM: the binary shuts down cleanly, pushing and writing the file
	// a last time.
	d.stop(t)
	fs := parseExposition(t, string(testenv.ReadFile(t, promFile)))
	if s := find(fs, "paimon_rows_read", table); len(s) != 1 || s[0].value != float64(rows) {
		t.Errorf("file_output_path: paimon_rows_read = %v, want %d", s, rows)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pushes) <= periodic {
		t.Errorf("no push on shutdown (pushes %v)", pushes)
	}
	for _, p := range pushes {
		if !strings.HasPrefix(p, "PUT /metrics/job/cp_test u:p ") || strings.HasSuffix(p, " 0") {
			t.Errorf("push %q: want PUT /metrics/job/cp_test with basic auth and a body", p)
		}
	}
}
