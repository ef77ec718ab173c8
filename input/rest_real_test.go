package input

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// restPy is pypaimon 2.1.0's REST client (metastore rest, bearer token) on
// one table of the Java server: "read ID" prints the table path, consumer
// ID's nextSnapshot as pypaimon's ConsumerManager reads it through the
// table's FileIO (REST data token), and the ids of a batch read of the
// latest snapshot; "write ID N" resets consumer ID to N through the same
// FileIO.
const restPy = `
import json, sys
from pypaimon import CatalogFactory
from pypaimon.consumer.consumer import Consumer

uri, token, warehouse, name, op, cid = sys.argv[1:7]
cat = CatalogFactory.create({"metastore": "rest", "uri": uri, "warehouse": warehouse,
                             "token.provider": "bear", "token": token})
table = cat.get_table(name)
cm = table.consumer_manager()
out = {"path": table.table_path, "file_io": type(table.file_io).__name__}
if op == "read":
    c = cm.consumer(cid)
    out["next"] = None if c is None else c.next_snapshot
    rb = table.new_read_builder()
    out["ids"] = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist())
elif op == "write":
    cm.reset_consumer(cid, Consumer(int(sys.argv[7])))
else:
    raise SystemExit("unknown op %r" % op)
print(json.dumps(out))
`

type restPyOut struct {
	Path   string `json:"path"`
	FileIO string `json:"file_io"`
	Next   *int64 `json:"next"`
	IDs    []int  `json:"ids"`
}

func runRESTPy(t *testing.T, srv *testenv.JavaREST, table string, args ...string) restPyOut {
	t.Helper()
	out := testenv.RunPypaimon(t, restPy, append([]string{srv.URI, srv.Token, srv.Warehouse, table}, args...)...)
	var o restPyOut
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("pypaimon over REST printed %q: %v", out, err)
	}
	return o
}

// localPath is the file system path of a table path the server returned
// (file:/x, file:///x or /x).
func localPath(p string) string {
	p = strings.TrimPrefix(p, "file:")
	for strings.HasPrefix(p, "//") {
		p = p[1:]
	}
	return p
}

func consumerFileNext(t *testing.T, tablePath, id string) int64 {
	t.Helper()
	f := filepath.Join(localPath(tablePath), "consumer", "consumer-"+id)
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatalf("consumer file at the server's table path: %v", err)
	}
	var c struct {
		NextSnapshot int64 `json:"nextSnapshot"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("consumer file %s: %q: %v", f, b, err)
	}
	return c.NextSnapshot
}

// TestRealRESTCatalogConsumers runs the paimon input with catalog type rest
// against Java Paimon's own REST server (RESTCatalogServer, data tokens on):
// Java writes through its RESTCatalog, the input streams the table with a
// consumer_id, including a commit made while it runs, and commits its
// consumer at the table path the server returned. That consumer is read back
// by Java's ConsumerManager and by pypaimon's REST client (its
// ConsumerManager through its REST-token FileIO), and the reverse: a
// consumer pypaimon writes through REST is where a second run of the input
// resumes.
func TestRealRESTCatalogConsumers(t *testing.T) {
	testenv.Python(t)
	srv := testenv.StartJavaREST(t, t.TempDir(), testenv.JavaRESTOptions{DataToken: true})
	srv.Do(t, "create-append db.t")
	srv.Do(t, "write db.t 0 50")   // snapshot 1
	srv.Do(t, "write db.t 50 100") // snapshot 2
	path := srv.Do(t, "path db.t")
	if !strings.HasPrefix(localPath(path), srv.Dir) {
		t.Fatalf("table path %s is not under the server's warehouse %s", path, srv.Dir)
	}
	input := func(consumer string) string {
		return fmt.Sprintf("paimon:\n  warehouse: %s\n  table: db.t\n  poll_interval: 100ms\n  commit_period: 100ms\n  consumer_id: %s\n"+
			"  catalog:\n    type: rest\n    uri: %s\n    token_provider: bear\n    token: %s\n", srv.Warehouse, consumer, srv.URI, srv.Token)
	}

	r := startPipeline(t, input("go"), nil)
	r.waitRows(100)
	if got := srv.Do(t, "write db.t 100 130"); got != "3" { // while streaming
		t.Fatalf("Java's commit is snapshot %s, want 3", got)
	}
	r.waitRows(130)
	time.Sleep(500 * time.Millisecond) // a duplicate's chance to show
	r.stop()
	if ids := realIDs(r.rows()); !slices.Equal(ids, idRange(0, 130)) {
		t.Fatalf("ids %v, want 0..129 once each", ids)
	}
	for _, d := range byID(r.rows(), 120) {
		if d.meta[MetaSnapshotID] != int64(3) || d.meta[MetaTable] != "db.t" {
			t.Fatalf("id 120 meta %v, want snapshot 3 of db.t", d.meta)
		}
	}
	if n := consumerFileNext(t, path, "go"); n != 4 {
		t.Fatalf("consumer go nextSnapshot %d at the server's table path, want 4", n)
	}
	if got := srv.Do(t, "consumer db.t go"); got != "4" {
		t.Fatalf("Java's ConsumerManager reads consumer go as %s, want 4", got)
	}
	py := runRESTPy(t, srv, "db.t", "read", "go")
	if py.Path != path || py.Next == nil || *py.Next != 4 || !slices.Equal(py.IDs, idRange(0, 130)) {
		t.Fatalf("pypaimon over REST: path %s (Java: %s), consumer go %v, %d ids; want nextSnapshot 4 and ids 0..129",
			py.Path, path, py.Next, len(py.IDs))
	}
	t.Logf("pypaimon opened %s through REST with %s", py.Path, py.FileIO)

	// The reverse: pypaimon writes consumer py at snapshot 3 through REST; the input resumes
	// there (snapshot 3 and the next commit, 4), nothing of snapshots 1 and 2.
	runRESTPy(t, srv, "db.t", "write", "py", "3")
	if n := consumerFileNext(t, path, "py"); n != 3 {
		t.Fatalf("pypaimon's consumer py nextSnapshot %d, want 3", n)
	}
	if got := srv.Do(t, "write db.t 130 160"); got != "4" {
		t.Fatalf("Java's commit is snapshot %s, want 4", got)
	}
	r2 := startPipeline(t, input("py"), nil)
	r2.waitRows(60)
	time.Sleep(500 * time.Millisecond)
	r2.stop()
	if ids := realIDs(r2.rows()); !slices.Equal(ids, idRange(100, 160)) {
		t.Fatalf("resumed from pypaimon's consumer: ids %v, want 100..159 once each", ids)
	}
	if py := runRESTPy(t, srv, "db.t", "read", "py"); py.Next == nil || *py.Next != 5 {
		t.Fatalf("pypaimon reads consumer py as %v after the resumed run, want 5", py.Next)
	}
	if got := srv.Do(t, "consumer db.t py"); got != "5" {
		t.Fatalf("Java's ConsumerManager reads consumer py as %s, want 5", got)
	}
}
