package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// snapJSON is a minimal Java-shaped snapshot with the given id and time.
func snapJSON(id, millis int64) string {
	return fmt.Sprintf(`{
  "version" : 3,
  "id" : %d,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-x-%d",
  "deltaManifestList" : "manifest-list-y-%d",
  "commitUser" : "u",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : %d,
  "totalRecordCount" : 0,
  "deltaRecordCount" : 0
}`, id, id, id, millis)
}

// table writes snapshot files for ids (time = 1000*id) under root.
func table(t *testing.T, ids ...int64) (string, *Manager) {
	t.Helper()
	root := t.TempDir()
	for _, id := range ids {
		testenv.WriteFile(t, root, fmt.Sprintf("snapshot/snapshot-%d", id), snapJSON(id, 1000*id))
	}
	return root, NewManager(fileio.NewLocal(), root, "")
}

// countingIO counts calls to verify the cost promises of the Manager.
type countingIO struct {
	fileio.FileIO
	exists, lists, reads atomic.Int64
}

func (c *countingIO) Exists(ctx context.Context, p string) (bool, error) {
	c.exists.Add(1)
	return c.FileIO.Exists(ctx, p)
}

func (c *countingIO) List(ctx context.Context, p string) ([]fileio.FileInfo, error) {
	c.lists.Add(1)
	return c.FileIO.List(ctx, p)
}

func (c *countingIO) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.reads.Add(1)
	return c.FileIO.ReadFile(ctx, p)
}

func latestID(t *testing.T, m *Manager) (int64, bool) {
	t.Helper()
	id, ok, err := m.LatestID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id, ok
}

func earliestID(t *testing.T, m *Manager) (int64, bool) {
	t.Helper()
	id, ok, err := m.EarliestID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id, ok
}

func TestEmptyTable(t *testing.T) {
	ctx := context.Background()
	_, m := table(t)
	if _, ok := latestID(t, m); ok {
		t.Errorf("LatestID found a snapshot in an empty table")
	}
	if _, ok := earliestID(t, m); ok {
		t.Errorf("EarliestID found a snapshot in an empty table")
	}
	if s, ok, err := m.Latest(ctx); s != nil || ok || err != nil {
		t.Errorf("Latest = %v, %v, %v", s, ok, err)
	}
	if s, ok, err := m.Earliest(ctx); s != nil || ok || err != nil {
		t.Errorf("Earliest = %v, %v, %v", s, ok, err)
	}
	if s, ok, err := m.EarlierThanTime(ctx, 5000); s != nil || ok || err != nil {
		t.Errorf("EarlierThanTime = %v, %v, %v", s, ok, err)
	}
}

func TestHints(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name                   string
		ids                    []int64
		latest, earliest       string // hint contents; "-" = no hint file
		wantLatest, wantEarly  int64
		wantLatestListing      bool
		wantEarliestFromListig bool
	}{
		{"accurate hints", []int64{3, 4, 5}, "5", "3", 5, 3, false, false},
		{"LATEST lags (crash before hint write)", []int64{3, 4, 5, 6, 7}, "5", "3", 7, 3, true, false},
		{"LATEST ahead (rollback deleted it)", []int64{1, 2}, "4", "1", 2, 1, true, false},
		{"no hints", []int64{2, 3}, "-", "-", 3, 2, true, true},
		{"garbage hints", []int64{2, 3}, "abc", "-7", 3, 2, true, true},
		{"hint with newline", []int64{2, 3}, "3\n", " 2 ", 3, 2, false, false},
		{"EARLIEST expired", []int64{6, 7, 8}, "8", "4", 8, 6, false, true},
		{"zero hint", []int64{1}, "0", "0", 1, 1, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, _ := table(t, c.ids...)
			if c.latest != "-" {
				testenv.WriteFile(t, root, "snapshot/LATEST", c.latest)
			}
			if c.earliest != "-" {
				testenv.WriteFile(t, root, "snapshot/EARLIEST", c.earliest)
			}
			cio := &countingIO{FileIO: fileio.NewLocal()}
			m := NewManager(cio, root, "main")
			if id, ok := latestID(t, m); !ok || id != c.wantLatest {
				t.Errorf("LatestID = %d, %v, want %d", id, ok, c.wantLatest)
			}
			if listed := cio.lists.Load() > 0; listed != c.wantLatestListing {
				t.Errorf("LatestID listed the directory: %v, want %v", listed, c.wantLatestListing)
			}
			cio.lists.Store(0)
			if id, ok := earliestID(t, m); !ok || id != c.wantEarly {
				t.Errorf("EarliestID = %d, %v, want %d", id, ok, c.wantEarly)
			}
			if listed := cio.lists.Load() > 0; listed != c.wantEarliestFromListig {
				t.Errorf("EarliestID listed the directory: %v, want %v", listed, c.wantEarliestFromListig)
			}
			s, ok, err := m.Latest(ctx)
			if err != nil || !ok || s.ID != c.wantLatest {
				t.Errorf("Latest = %v, %v, %v", s, ok, err)
			}
			s, ok, err = m.Earliest(ctx)
			if err != nil || !ok || s.ID != c.wantEarly {
				t.Errorf("Earliest = %v, %v, %v", s, ok, err)
			}
		})
	}
}

func TestListIgnoresForeignNames(t *testing.T) {
	root, m := table(t, 1, 2, 10)
	for _, n := range []string{".snapshot-11.3f2a.tmp", "snapshot-12b8e1.tmp", "snapshot-", "snapshot-x", "snapshot-99999999999999999999", "LATEST", "EARLIEST"} {
		testenv.WriteFile(t, root, "snapshot/"+n, "{")
	}
	testenv.WriteFile(t, root, "snapshot/snapshot-13/nested", "{")
	ids, err := m.ListIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{1, 2, 10}) {
		t.Errorf("ListIDs = %v, want [1 2 10] (numeric order, foreign names ignored)", ids)
	}
}

func TestSnapshotAndExists(t *testing.T) {
	ctx := context.Background()
	root, _ := table(t, 1, 2)
	cio := &countingIO{FileIO: fileio.NewLocal()}
	m := NewManager(cio, root, "")
	ok, err := m.Exists(ctx, 2)
	if err != nil || !ok || cio.exists.Load() != 1 {
		t.Errorf("Exists(2) = %v, %v after %d calls", ok, err, cio.exists.Load())
	}
	if ok, _ := m.Exists(ctx, 3); ok {
		t.Errorf("Exists(3) = true")
	}
	s, err := m.Snapshot(ctx, 2)
	if err != nil || s.ID != 2 || s.TimeMillis != 2000 || s.BaseManifestList != "manifest-list-x-2" {
		t.Errorf("Snapshot(2) = %+v, %v", s, err)
	}
	_, err = m.Snapshot(ctx, 9)
	if !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), m.SnapshotPath(9)) {
		t.Errorf("Snapshot(9) error = %v, want ErrNotExist naming %s", err, m.SnapshotPath(9))
	}
	if m.SnapshotPath(9) != filepath.Join(root, "snapshot", "snapshot-9") {
		t.Errorf("SnapshotPath = %s", m.SnapshotPath(9))
	}
}

func TestCorruptSnapshot(t *testing.T) {
	ctx := context.Background()
	root, m := table(t, 1, 2)
	testenv.WriteFile(t, root, "snapshot/snapshot-2", `{"version":3,"id":2,"schemaId"`)
	_, err := m.Snapshot(ctx, 2)
	if err == nil || !strings.Contains(err.Error(), m.SnapshotPath(2)) || !strings.Contains(err.Error(), "decode snapshot") {
		t.Errorf("corrupt snapshot error = %v, want it to name the file and the cause", err)
	}
	if _, _, err := m.Latest(ctx); err == nil || !strings.Contains(err.Error(), "snapshot-2") {
		t.Errorf("Latest over a corrupt file: %v", err)
	}
	testenv.WriteFile(t, root, "snapshot/snapshot-2", snapJSON(5, 1))
	if _, err := m.Snapshot(ctx, 2); err == nil || !strings.Contains(err.Error(), "holds snapshot id 5") {
		t.Errorf("mismatched id error = %v", err)
	}
}

// TestEarliestVanishes: expiration deleted the hinted and the next
// snapshots after EarliestID answered; Earliest walks up to the next one.
func TestEarliestVanishes(t *testing.T) {
	root, _ := table(t, 3, 4, 5, 6)
	testenv.WriteFile(t, root, "snapshot/EARLIEST", "3")
	cio := &vanishingIO{FileIO: fileio.NewLocal(), root: root, vanish: []int64{3, 4}}
	m := NewManager(cio, root, "")
	s, ok, err := m.Earliest(context.Background())
	if err != nil || !ok || s.ID != 5 {
		t.Errorf("Earliest = %v, %v, %v; want snapshot 5", s, ok, err)
	}
}

// vanishingIO deletes the listed snapshots right after the first Exists
// call, simulating expiration racing with the reader.
type vanishingIO struct {
	fileio.FileIO
	root   string
	vanish []int64
	done   bool
}

func (v *vanishingIO) Exists(ctx context.Context, p string) (bool, error) {
	ok, err := v.FileIO.Exists(ctx, p)
	if !v.done {
		v.done = true
		for _, id := range v.vanish {
			os.Remove(filepath.Join(v.root, "snapshot", fmt.Sprintf("snapshot-%d", id)))
		}
	}
	return ok, err
}

func TestTimeSearch(t *testing.T) {
	ctx := context.Background()
	// Gaps: 4 and 7 were rolled back / never existed; times are 1000*id.
	_, m := table(t, 2, 3, 5, 6, 8, 9)
	type fn func(context.Context, int64) (*Snapshot, bool, error)
	cases := []struct {
		name   string
		f      fn
		millis int64
		want   int64 // 0 = none
	}{
		{"EarlierOrEqual exact", m.EarlierOrEqualTime, 5000, 5},
		{"EarlierOrEqual between", m.EarlierOrEqualTime, 5500, 5},
		{"EarlierOrEqual in gap", m.EarlierOrEqualTime, 7000, 6},
		{"EarlierOrEqual before all", m.EarlierOrEqualTime, 1999, 0},
		{"EarlierOrEqual first", m.EarlierOrEqualTime, 2000, 2},
		{"EarlierOrEqual after all", m.EarlierOrEqualTime, 1e12, 9},
		{"EarlierThan exact is excluded", m.EarlierThanTime, 5000, 3},
		{"EarlierThan between", m.EarlierThanTime, 5001, 5},
		{"EarlierThan first", m.EarlierThanTime, 2000, 0},
		{"EarlierThan after all", m.EarlierThanTime, 9001, 9},
		{"LaterOrEqual exact", m.LaterOrEqualTime, 6000, 6},
		{"LaterOrEqual in gap", m.LaterOrEqualTime, 6500, 8},
		{"LaterOrEqual before all", m.LaterOrEqualTime, 0, 2},
		{"LaterOrEqual after all", m.LaterOrEqualTime, 9001, 0},
	}
	for _, c := range cases {
		s, ok, err := c.f(ctx, c.millis)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := int64(0)
		if ok {
			got = s.ID
		}
		if got != c.want {
			t.Errorf("%s(%d) = snapshot %d, want %d", c.name, c.millis, got, c.want)
		}
	}
}

// TestTimeSearchExpiredLowEnd: snapshots listed but deleted before being
// read count as older than everything (expiration works upward).
func TestTimeSearchExpiredLowEnd(t *testing.T) {
	ctx := context.Background()
	root, _ := table(t, 1, 2, 3, 4, 5, 6, 7, 8)
	dio := &deleteAfterListIO{FileIO: fileio.NewLocal(), root: root, ids: []int64{1, 2, 3, 4}}
	m := NewManager(dio, root, "")
	s, ok, err := m.EarlierThanTime(ctx, 6000)
	if err != nil || !ok || s.ID != 5 {
		t.Errorf("EarlierThanTime(6000) = %v, %v, %v, want 5", s, ok, err)
	}
	dio.done = false
	testenv.WriteFile(t, root, "snapshot/snapshot-1", snapJSON(1, 1000))
	testenv.WriteFile(t, root, "snapshot/snapshot-2", snapJSON(2, 2000))
	testenv.WriteFile(t, root, "snapshot/snapshot-3", snapJSON(3, 3000))
	testenv.WriteFile(t, root, "snapshot/snapshot-4", snapJSON(4, 4000))
	s, ok, err = m.EarlierThanTime(ctx, 5000)
	if err != nil || ok {
		t.Errorf("EarlierThanTime(5000) with 1-4 expired = %v, %v, %v, want none", s, ok, err)
	}
	dio.done = false
	testenv.WriteFile(t, root, "snapshot/snapshot-1", snapJSON(1, 1000))
	testenv.WriteFile(t, root, "snapshot/snapshot-2", snapJSON(2, 2000))
	testenv.WriteFile(t, root, "snapshot/snapshot-3", snapJSON(3, 3000))
	testenv.WriteFile(t, root, "snapshot/snapshot-4", snapJSON(4, 4000))
	s, ok, err = m.LaterOrEqualTime(ctx, 0)
	if err != nil || !ok || s.ID != 5 {
		t.Errorf("LaterOrEqualTime(0) = %v, %v, %v, want 5", s, ok, err)
	}
}

type deleteAfterListIO struct {
	fileio.FileIO
	root string
	ids  []int64
	done bool
}

func (d *deleteAfterListIO) List(ctx context.Context, p string) ([]fileio.FileInfo, error) {
	out, err := d.FileIO.List(ctx, p)
	if !d.done {
		d.done = true
		for _, id := range d.ids {
			os.Remove(filepath.Join(d.root, "snapshot", fmt.Sprintf("snapshot-%d", id)))
		}
	}
	return out, err
}

func TestBranches(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testenv.WriteFile(t, root, "snapshot/snapshot-1", snapJSON(1, 1000))
	testenv.WriteFile(t, root, "branch/branch-dev/snapshot/snapshot-4", snapJSON(4, 4000))
	testenv.WriteFile(t, root, "branch/branch-dev/tag/tag-t1", string(readTestdata(t, "java/tag-daily")))
	fio := fileio.NewLocal()
	if id, _ := latestID(t, NewManager(fio, root, "main")); id != 1 {
		t.Errorf("main latest = %d", id)
	}
	dev := NewManager(fio, root, "dev")
	if dev.Dir() != filepath.Join(root, "branch/branch-dev/snapshot") {
		t.Errorf("dev dir = %s", dev.Dir())
	}
	if id, _ := latestID(t, dev); id != 4 {
		t.Errorf("dev latest = %d", id)
	}
	tm := NewTagManager(fio, root, "dev")
	names, err := tm.List(ctx)
	if err != nil || !reflect.DeepEqual(names, []string{"t1"}) {
		t.Errorf("dev tags = %v, %v", names, err)
	}
	if names, _ := NewTagManager(fio, root, "").List(ctx); len(names) != 0 {
		t.Errorf("main tags = %v", names)
	}
}

func TestTagManager(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testenv.WriteFile(t, root, "tag/tag-v1", string(readTestdata(t, "pypaimon/tag-v1")))
	testenv.WriteFile(t, root, "tag/tag-v2ttl", string(readTestdata(t, "pypaimon/tag-v2ttl")))
	testenv.WriteFile(t, root, "tag/tag-daily-2024-01-01", string(readTestdata(t, "java/tag-daily")))
	testenv.WriteFile(t, root, "tag/.tag-v3.1a2b.tmp", "{")
	testenv.WriteFile(t, root, "tag/tag-", "{")
	testenv.WriteFile(t, root, "tag/tag-broken", `{"id":`)
	m := NewTagManager(fileio.NewLocal(), root, "main")
	names, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"broken", "daily-2024-01-01", "v1", "v2ttl"}; !reflect.DeepEqual(names, want) {
		t.Errorf("List = %v, want %v", names, want)
	}
	tag, err := m.Tag(ctx, "v2ttl")
	if err != nil || tag.ID != 2 || tag.TagTimeRetained == nil {
		t.Errorf("Tag(v2ttl) = %+v, %v", tag, err)
	}
	_, err = m.Tag(ctx, "nope")
	if !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), m.TagPath("nope")) {
		t.Errorf("Tag(nope) = %v", err)
	}
	_, err = m.Tag(ctx, "broken")
	if err == nil || !strings.Contains(err.Error(), m.TagPath("broken")) || !strings.Contains(err.Error(), "decode tag") {
		t.Errorf("Tag(broken) = %v", err)
	}
	if _, err := m.Tag(ctx, "../snapshot/x"); err == nil {
		t.Errorf("tag name with a path separator accepted")
	}
}

// A hint that exists but holds no snapshot id is ignored loudly: the
// manager lists instead, and says so.
func TestCorruptHintFallsBackLoudly(t *testing.T) {
	ctx := context.Background()
	root, m := table(t, 1, 2)
	testenv.WriteFile(t, root, "snapshot/LATEST", "12x")
	var warnings []string
	m.WithWarnings(func(msg string) { warnings = append(warnings, msg) })
	id, ok, err := m.LatestID(ctx)
	if err != nil || !ok || id != 2 {
		t.Fatalf("LatestID = %d %v %v, want 2 by listing", id, ok, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "LATEST") || !strings.Contains(warnings[0], "listing") {
		t.Fatalf("warnings %q, want one naming the hint", warnings)
	}
	// An empty hint (a writer overwriting it in place) and a missing one
	// are normal: no warning.
	warnings = nil
	testenv.WriteFile(t, root, "snapshot/LATEST", "\n")
	if id, _, err := m.LatestID(ctx); err != nil || id != 2 || len(warnings) != 0 {
		t.Fatalf("empty hint: id %d, err %v, warnings %q", id, err, warnings)
	}
	if err := os.Remove(filepath.Join(root, "snapshot", "LATEST")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.LatestID(ctx); err != nil || len(warnings) != 0 {
		t.Fatalf("missing hint: err %v, warnings %q", err, warnings)
	}
}
