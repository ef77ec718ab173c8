package input

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestRunNamesWhatExists: a wrong database, table or branch in the input
// ends the run with one error saying what exists instead, not a missing
// schema directory.
func TestRunNamesWhatExists(t *testing.T) {
	wh := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse")
	for _, c := range []struct{ fields, want string }{
		{"  table: crm.customers\n", "table crm.customers: database crm does not exist; the existing databases are demo, interop"},
		{"  table: demo.ordes\n", "table demo.ordes does not exist; did you mean demo.orders?"},
		{"  table: javagen.branchy\n  branch: b2\n", "table javagen.branchy has no branch b2; did you mean b1?"},
	} {
		r := startPipeline(t, "paimon:\n  warehouse: "+wh+"\n"+c.fields, nil)
		r.wait()
		if logs := r.logs.String(); !strings.Contains(logs, c.want) || strings.Contains(logs, "no schema files") {
			t.Errorf("%s: no %q in the logs:\n%s", c.fields, c.want, logs)
		}
	}
}

// TestRunEndAlreadyPassed: a consumer already past end.snapshot_id ends
// the run normally, with an INFO line saying why nothing was read.
func TestRunEndAlreadyPassed(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	testenv.WriteFile(t, filepath.Join(wh, "demo.db", "orders", "consumer"), "consumer-done", `{"nextSnapshot": 4}`)
	r := startReal(t, &realTable{t: t, wh: wh, name: "demo.orders"}, "  consumer_id: done\n  end:\n    snapshot_id: 3\n")
	r.wait()
	logs := r.logs.String()
	if !strings.Contains(logs, "level=INFO") || !strings.Contains(logs, `consumer \"done\"`) || !strings.Contains(logs, "starts at snapshot 4, past the end snapshot 3: nothing to read") {
		t.Fatalf("no INFO line about the end already passed:\n%s", logs)
	}
}
