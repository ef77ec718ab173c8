package consumer

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// pythonPath finds the interpreter with pypaimon 2.1.0: $PAIMON_PYTHON, else
// the dev-workplace venv. Missing interop tooling skips loudly locally and
// fails in CI, where the scripts install it.
func pythonPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("interop with reference implementations skipped in -short mode")
	}
	py := testenv.Python(t) // skips loudly (fails in CI) without pypaimon
	if out, err := exec.Command(py, "-c", "import pypaimon.consumer").CombinedOutput(); err != nil {
		testenv.Unavailable(t, "pypaimon.consumer not importable with "+py+": "+string(out))
	}
	return py
}

// toolRunner runs a reference ConsumerManager driver (pypaimon's or Java's)
// on one table: <argv...> <table> <branch> <op> [args...].
type toolRunner struct {
	t     *testing.T
	argv  []string
	table string
}

func pyRunner(t *testing.T, py, table string) toolRunner {
	return toolRunner{t: t, argv: []string{py, filepath.Join("testdata", "pyconsumer.py")}, table: table}
}

func (r toolRunner) run(branch string, args ...string) []byte {
	r.t.Helper()
	argv := append(append(append([]string{}, r.argv[1:]...), r.table, branch), args...)
	cmd := exec.Command(r.argv[0], argv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("%s %v: %v\n%s", filepath.Base(r.argv[len(r.argv)-1]), args, err, stderr.String())
	}
	return out
}

// toolView is what the drivers' "read" op prints.
type toolView struct {
	Consumers map[string]int64  `json:"consumers"`
	Min       *int64            `json:"min"`
	IDs       []string          `json:"ids"`
	Each      map[string]*int64 `json:"each"`
}

func (r toolRunner) read(branch string) toolView {
	r.t.Helper()
	var v toolView
	if err := json.Unmarshal(r.run(branch, "read"), &v); err != nil {
		r.t.Fatalf("decode %s view: %v", r.argv[len(r.argv)-1], err)
	}
	return v
}

func TestInteropPypaimonWritesGoReads(t *testing.T) {
	py := pythonPath(t)
	ctx := context.Background()
	table := t.TempDir()
	r := pyRunner(t, py, table)
	r.run("", "write", "py-a", "10")
	r.run("", "write", "py-b", "3")
	r.run("", "write", "py-a", "11") // overwrite
	r.run("dev", "write", "py-dev", "5")

	raw, err := os.ReadFile(filepath.Join(table, "consumer", "consumer-py-a"))
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"nextSnapshot": 11}` {
		t.Fatalf("pypaimon wrote %q; the compact form this test relies on changed", raw)
	}

	m := NewManager(fileio.NewLocal(), table, "")
	c, ok, err := m.Consumer(ctx, "py-a")
	if err != nil || !ok || c.NextSnapshot != 11 {
		t.Fatalf("Consumer(py-a) = %+v %v %v", c, ok, err)
	}
	all, err := m.Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"py-a": 11, "py-b": 3}; !reflect.DeepEqual(all, want) {
		t.Fatalf("Consumers = %v, want %v", all, want)
	}
	if n, ok, err := m.MinNextSnapshot(ctx); err != nil || !ok || n != 3 {
		t.Fatalf("MinNextSnapshot = %d %v %v", n, ok, err)
	}
	dev, err := m.WithBranch("dev").Consumers(ctx)
	if err != nil || !reflect.DeepEqual(dev, map[string]int64{"py-dev": 5}) {
		t.Fatalf("dev Consumers = %v %v", dev, err)
	}
}

func TestInteropGoWritesPypaimonReads(t *testing.T) {
	py := pythonPath(t)
	ctx := context.Background()
	table := t.TempDir()
	r := pyRunner(t, py, table)
	m := NewManager(fileio.NewLocal(), table, "")
	for id, n := range map[string]int64{"go-a": 20, "go-b": 7, "go c": 9000000000} {
		if err := m.Reset(ctx, id, Consumer{NextSnapshot: n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.WithBranch("dev").Reset(ctx, "go-dev", Consumer{NextSnapshot: 4}); err != nil {
		t.Fatal(err)
	}
	// A leftover temp file must not confuse either side.
	writeRaw(t, filepath.Join(table, "consumer", ".consumer-go-a.deadbeef.tmp"), `{"nextSnap`)

	v := r.read("")
	wantMap := map[string]int64{"go-a": 20, "go-b": 7, "go c": 9000000000}
	if !reflect.DeepEqual(v.Consumers, wantMap) {
		t.Fatalf("pypaimon consumers() = %v, want %v", v.Consumers, wantMap)
	}
	if v.Min == nil || *v.Min != 7 {
		t.Fatalf("pypaimon min_next_snapshot() = %v, want 7", v.Min)
	}
	goIDs, _ := m.ListIDs(ctx)
	if !reflect.DeepEqual(v.IDs, goIDs) {
		t.Fatalf("pypaimon list_all_ids() = %q, Go ListIDs = %q", v.IDs, goIDs)
	}
	for id, n := range wantMap {
		if got := v.Each[id]; got == nil || *got != n {
			t.Fatalf("pypaimon consumer(%q) = %v, want %d", id, got, n)
		}
	}
	dv := r.read("dev")
	if !reflect.DeepEqual(dv.Consumers, map[string]int64{"go-dev": 4}) {
		t.Fatalf("pypaimon dev consumers() = %v", dv.Consumers)
	}
	// Go deletes, pypaimon no longer sees it.
	if err := m.Delete(ctx, "go-b"); err != nil {
		t.Fatal(err)
	}
	if v := r.read(""); v.Min == nil || *v.Min != 20 || len(v.IDs) != 2 {
		t.Fatalf("after Go delete pypaimon sees %+v", v)
	}
}

// twinTables creates two identical consumer directories, one for each
// implementation to mutate.
func twinTables(t *testing.T, ids []string) (goTable, pyTable string) {
	t.Helper()
	goTable, pyTable = t.TempDir(), t.TempDir()
	for _, table := range []string{goTable, pyTable} {
		m := NewManager(fileio.NewLocal(), table, "")
		for i, id := range ids {
			if err := m.Reset(context.Background(), id, Consumer{NextSnapshot: int64(i + 1)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return goTable, pyTable
}

func TestInteropClearAgreesWherePatternsAreFullMatches(t *testing.T) {
	py := pythonPath(t)
	ctx := context.Background()
	ids := []string{"job-1", "job-2", "job-keep", "other", "test", "test-id1"}
	cases := []struct {
		incl, excl string
	}{
		{".*", ""},
		{"job-.*", ""},
		{"job-.*", "job-keep"},
		{"job-[0-9]+|other", ""},
		{".*", "test.*"},
	}
	for _, tc := range cases {
		t.Run(tc.incl+"_minus_"+tc.excl, func(t *testing.T) {
			goTable, pyTable := twinTables(t, ids)
			pyRunner(t, py, pyTable).run("", "clear", tc.incl, tc.excl)
			var excl *regexp.Regexp
			if tc.excl != "" {
				excl = regexp.MustCompile(tc.excl)
			}
			m := NewManager(fileio.NewLocal(), goTable, "")
			if _, err := m.Clear(ctx, regexp.MustCompile(tc.incl), excl); err != nil {
				t.Fatal(err)
			}
			goLeft, _ := m.ListIDs(ctx)
			pyLeft, _ := NewManager(fileio.NewLocal(), pyTable, "").ListIDs(ctx)
			if !reflect.DeepEqual(goLeft, pyLeft) {
				t.Fatalf("after clear(%q, %q): Go left %q, pypaimon left %q", tc.incl, tc.excl, goLeft, pyLeft)
			}
		})
	}

	// The documented difference: pypaimon's re.match is a prefix match.
	goTable, pyTable := twinTables(t, ids)
	pyRunner(t, py, pyTable).run("", "clear", "test")
	m := NewManager(fileio.NewLocal(), goTable, "")
	deleted, err := m.Clear(ctx, regexp.MustCompile("test"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(deleted, []string{"test"}) {
		t.Fatalf("Go Clear(test) deleted %q, want only the full match", deleted)
	}
	pyLeft, _ := NewManager(fileio.NewLocal(), pyTable, "").ListIDs(ctx)
	if want := []string{"job-1", "job-2", "job-keep", "other"}; !reflect.DeepEqual(pyLeft, want) {
		t.Fatalf("pypaimon clear(test) left %q, want %q (prefix semantics)", pyLeft, want)
	}
}

func TestInteropExpireAgrees(t *testing.T) {
	py := pythonPath(t)
	ctx := context.Background()
	ids := []string{"a", "b", "c", "d"}
	goTable, pyTable := twinTables(t, ids)
	cut := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	mtimes := map[string]time.Time{
		"a": cut.Add(-48 * time.Hour),
		"b": cut.Add(-time.Second),
		"c": cut.Add(time.Second),
		"d": cut.Add(72 * time.Hour),
	}
	for _, table := range []string{goTable, pyTable} {
		for id, mt := range mtimes {
			if err := os.Chtimes(filepath.Join(table, "consumer", "consumer-"+id), mt, mt); err != nil {
				t.Fatal(err)
			}
		}
	}
	pyRunner(t, py, pyTable).run("", "expire", strconv.FormatInt(cut.Unix(), 10))
	deleted, err := NewManager(fileio.NewLocal(), goTable, "").Expire(ctx, cut)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(deleted)
	if !reflect.DeepEqual(deleted, []string{"a", "b"}) {
		t.Fatalf("Go Expire deleted %q, want [a b]", deleted)
	}
	goLeft, _ := NewManager(fileio.NewLocal(), goTable, "").ListIDs(ctx)
	pyLeft, _ := NewManager(fileio.NewLocal(), pyTable, "").ListIDs(ctx)
	if !reflect.DeepEqual(goLeft, pyLeft) || !reflect.DeepEqual(goLeft, []string{"c", "d"}) {
		t.Fatalf("after expire: Go left %q, pypaimon left %q, want [c d]", goLeft, pyLeft)
	}
}
