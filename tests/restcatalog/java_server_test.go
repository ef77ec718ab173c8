// Package restcatalog tests the REST catalog end to end against Java Paimon's own REST server
// (resources/java RestServer → RESTCatalogServer from paimon-core 1.3.1's test-jar): Java
// writes through its RESTCatalog client, Go reads and streams through the same server.
package restcatalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// tokenProxy sits between Go and the Java server and records every data token the server
// vends (its akId), so a test sees refreshes happen.
type tokenProxy struct {
	*httptest.Server
	mu     sync.Mutex
	tokens []string
	paths  []string
}

func newTokenProxy(t *testing.T, target string) *tokenProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &tokenProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		p.mu.Lock()
		p.paths = append(p.paths, r.Request.URL.Path)
		p.mu.Unlock()
		if !strings.HasSuffix(r.Request.URL.Path, "/token") || r.StatusCode != 200 {
			return nil
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		var tok struct {
			Token map[string]string `json:"token"`
		}
		if err := json.Unmarshal(b, &tok); err != nil {
			return err
		}
		p.mu.Lock()
		p.tokens = append(p.tokens, tok.Token["akId"])
		p.mu.Unlock()
		return nil
	}
	p.Server = httptest.NewServer(rp)
	t.Cleanup(p.Close)
	return p
}

func (p *tokenProxy) distinctTokens() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]bool{}
	for _, t := range p.tokens {
		seen[t] = true
	}
	return len(seen)
}

func (p *tokenProxy) requested(suffix string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, x := range p.paths {
		if strings.HasSuffix(x, suffix) {
			n++
		}
	}
	return n
}

func openCatalog(t *testing.T, uri string, srv *testenv.JavaREST) *paimon.Catalog {
	t.Helper()
	cat, err := paimon.OpenCatalog(context.Background(), srv.Warehouse,
		paimon.WithREST(map[string]string{"uri": uri, "token": srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}

// ids reads the id column of splits.
func ids(t *testing.T, ctx context.Context, rd *paimon.Read, splits []*paimon.Split) []int {
	t.Helper()
	var out []int
	for _, sp := range splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			col := rec.Column(int(rec.Schema().FieldIndices("id")[0])).(*array.Int32)
			for i := 0; i < col.Len(); i++ {
				out = append(out, int(col.Value(i)))
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func checkRange(t *testing.T, got []int, from, to int) {
	t.Helper()
	seen := map[int]int{}
	for _, id := range got {
		seen[id]++
	}
	for i := from; i < to; i++ {
		if seen[i] != 1 {
			t.Fatalf("id %d read %d times (read %d rows, want ids %d..%d once each)", i, seen[i], len(got), from, to-1)
		}
	}
	if len(got) != to-from {
		t.Fatalf("read %d rows, want %d", len(got), to-from)
	}
}

// Java creates and writes an append and a primary-key table through its REST catalog; Go
// lists them and reads them through the same server, with the latest snapshot the server
// holds, from the path the server returned.
func TestJavaRESTServerBatchRead(t *testing.T) {
	ctx := context.Background()
	srv := testenv.StartJavaREST(t, t.TempDir(), testenv.JavaRESTOptions{})
	srv.Do(t, "create-append db.app")
	srv.Do(t, "create-pk db.pk")
	srv.Do(t, "write db.app 0 50")
	srv.Do(t, "write db.app 50 120")
	srv.Do(t, "write db.pk 0 40")
	srv.Do(t, "write db.pk 20 60") // updates 20..39
	cat := openCatalog(t, srv.URI, srv)
	tbls, err := cat.ListTables(ctx, "db")
	if err != nil || strings.Join(tbls, ",") != "app,pk" {
		t.Fatalf("tables %v, %v", tbls, err)
	}
	for _, c := range []struct {
		name     string
		to, snap int
	}{{"db.app", 120, 2}, {"db.pk", 60, 2}} {
		tbl, err := cat.GetTable(ctx, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if want := srv.Do(t, "path "+c.name); tbl.Path() != want {
			t.Fatalf("%s at %s, Java says %s", c.name, tbl.Path(), want)
		}
		rb := tbl.NewReadBuilder()
		plan, err := rb.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if plan.SnapshotID != int64(c.snap) {
			t.Fatalf("%s planned at snapshot %d, want %d", c.name, plan.SnapshotID, c.snap)
		}
		checkRange(t, ids(t, ctx, rb.NewRead(), plan.Splits), 0, c.to)
	}
	_, err = cat.GetTable(ctx, "db.missing")
	if !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "db.missing") {
		t.Fatalf("missing table: %v", err)
	}
	bad, err := paimon.OpenCatalog(ctx, srv.Warehouse, paimon.WithREST(map[string]string{"uri": srv.URI, "token": "wrong"}))
	if err == nil {
		_ = bad.Close()
		t.Fatal("a wrong token opened the catalog")
	}
	if !paimon.IsPermanent(err) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
}

// A stream over a REST-opened table follows Java's commits through the server, commits its
// consumer at the table path the server returned, and keeps going while the server's data
// token for the table expires every second: Go fetches a fresh token before each expiry.
func TestJavaRESTServerStreamAcrossTokenRefreshes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := testenv.StartJavaREST(t, t.TempDir(), testenv.JavaRESTOptions{DataToken: true})
	srv.Do(t, "create-append db.s")
	srv.Do(t, "write db.s 0 10")
	srv.Do(t, "rotate-token db.s 1000")
	proxy := newTokenProxy(t, srv.URI)
	cat := openCatalog(t, proxy.URL, srv)
	tbl, err := cat.GetTable(ctx, "db.s")
	if err != nil {
		t.Fatal(err)
	}
	sc, rd, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "go-c", PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	const commits = 6
	next := func() {
		p, err := sc.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(t, ctx, rd, p.Splits)...)
		if err := sc.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
			t.Fatal(err)
		}
	}
	next() // the full first plan of snapshot 1
	start := time.Now()
	for i := 1; i <= commits; i++ {
		srv.Do(t, fmt.Sprintf("write db.s %d %d", i*10, i*10+10))
		next()
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("%d commits streamed in %s", commits, time.Since(start))
	checkRange(t, got, 0, (commits+1)*10)
	if n := proxy.distinctTokens(); n < 3 {
		t.Fatalf("%d distinct data tokens used over %d commits of 1s tokens, want several refreshes", n, commits)
	}
	if proxy.requested("/snapshot") == 0 {
		t.Fatal("the latest snapshot was never asked of the server")
	}
	c, ok, err := tbl.Consumers().Consumer(ctx, "go-c")
	if err != nil || !ok || c.NextSnapshot != commits+2 {
		t.Fatalf("consumer %+v %v %v, want nextSnapshot %d", c, ok, err, commits+2)
	}
	if want := srv.Do(t, "path db.s"); !strings.HasPrefix(tbl.Consumers().Path("go-c"), want+"/") {
		t.Fatalf("consumer file %s not under the server's table path %s", tbl.Consumers().Path("go-c"), want)
	}
}
