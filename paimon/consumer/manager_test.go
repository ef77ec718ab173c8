package consumer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

func newTestManager(t *testing.T) (*Manager, string) {
	t.Helper()
	root := t.TempDir()
	return NewManager(fileio.NewLocal(), root, "").WithRetry(3, time.Millisecond), root
}

// writeRaw puts content at path as is, creating directories.
func writeRaw(t *testing.T, path, content string) {
	t.Helper()
	testenv.WriteFile(t, filepath.Dir(path), filepath.Base(path), content)
}

func TestPaths(t *testing.T) {
	fio := fileio.NewLocal()
	cases := []struct{ branch, want string }{
		{"", "/t/consumer/consumer-c1"},
		{"  ", "/t/consumer/consumer-c1"},
		{"main", "/t/consumer/consumer-c1"},
		{"dev", "/t/branch/branch-dev/consumer/consumer-c1"},
	}
	for _, tc := range cases {
		if got := NewManager(fio, "/t", tc.branch).Path("c1"); got != tc.want {
			t.Errorf("branch %q: Path = %q, want %q", tc.branch, got, tc.want)
		}
	}
	m := NewManager(fio, "s3://bucket/wh/db.db/t", "main")
	if got, want := m.Path("x"), "s3://bucket/wh/db.db/t/consumer/consumer-x"; got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
	if got, want := m.WithBranch("b1").Path("x"), "s3://bucket/wh/db.db/t/branch/branch-b1/consumer/consumer-x"; got != want {
		t.Errorf("WithBranch Path = %q, want %q", got, want)
	}
	if m.Path("x") != "s3://bucket/wh/db.db/t/consumer/consumer-x" {
		t.Error("WithBranch modified the original Manager")
	}
}

func TestResetReadDelete(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)

	if _, ok, err := m.Consumer(ctx, "c1"); err != nil || ok {
		t.Fatalf("missing consumer: ok=%v err=%v, want absent and no error", ok, err)
	}
	for _, bad := range []int64{0, -5} {
		if err := m.Reset(ctx, "c1", Consumer{NextSnapshot: bad}); err == nil || !strings.Contains(err.Error(), "consumer-c1") {
			t.Fatalf("Reset to %d: want an error naming the file, got %v", bad, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "consumer", "consumer-c1")); !os.IsNotExist(err) {
		t.Fatalf("a refused Reset wrote the file: %v", err)
	}
	if err := m.Reset(ctx, "c1", Consumer{NextSnapshot: 2931}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "consumer", "consumer-c1"))
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != "{\n  \"nextSnapshot\" : 2931\n}" {
		t.Fatalf("file content %q is not Java's pretty form", raw)
	}
	c, ok, err := m.Consumer(ctx, "c1")
	if err != nil || !ok || c.NextSnapshot != 2931 {
		t.Fatalf("Consumer = %+v %v %v", c, ok, err)
	}
	// Overwrite moves backwards too: Reset has no monotonic check.
	if err := m.Reset(ctx, "c1", Consumer{NextSnapshot: 5}); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := m.Consumer(ctx, "c1"); c.NextSnapshot != 5 {
		t.Fatalf("after rewind: %d, want 5", c.NextSnapshot)
	}
	if err := m.Delete(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := m.Consumer(ctx, "c1"); err != nil || ok {
		t.Fatalf("after delete: ok=%v err=%v", ok, err)
	}
	if err := m.Delete(ctx, "c1"); err != nil {
		t.Fatalf("deleting a missing consumer: %v", err)
	}
	// No temp file is left next to the consumer.
	ents, _ := os.ReadDir(filepath.Join(root, "consumer"))
	if len(ents) != 0 {
		t.Fatalf("consumer dir not empty: %v", ents)
	}
}

func TestBranchIsolation(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	dev := m.WithBranch("dev")
	if err := dev.Reset(ctx, "c", Consumer{NextSnapshot: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "branch", "branch-dev", "consumer", "consumer-c")); err != nil {
		t.Fatalf("branch consumer not at the branch path: %v", err)
	}
	if _, ok, _ := m.Consumer(ctx, "c"); ok {
		t.Fatal("main sees the branch's consumer")
	}
	if c, ok, _ := m.WithBranch("main").WithBranch("dev").Consumer(ctx, "c"); !ok || c.NextSnapshot != 3 {
		t.Fatalf("dev consumer = %+v %v", c, ok)
	}
}

func TestInvalidBranch(t *testing.T) {
	ctx := context.Background()
	for _, b := range []string{"../x", "a/b", `a\b`, "..", "a\x00"} {
		m := NewManager(fileio.NewLocal(), t.TempDir(), b)
		if err := m.Reset(ctx, "c", Consumer{NextSnapshot: 1}); err == nil || !strings.Contains(err.Error(), "invalid branch") {
			t.Errorf("branch %q: Reset error = %v, want invalid branch", b, err)
		}
		if _, err := m.ListIDs(ctx); err == nil {
			t.Errorf("branch %q: ListIDs succeeded", b)
		}
	}
}

func TestTornFileRetriedThenError(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	path := filepath.Join(root, "consumer", "consumer-torn")
	writeRaw(t, path, "{\n  \"nextSnap")
	start := time.Now()
	_, ok, err := m.Consumer(ctx, "torn")
	if err == nil || ok {
		t.Fatalf("torn file: ok=%v err=%v, want error", ok, err)
	}
	for _, want := range []string{path, "3 attempts", "parse consumer JSON"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("3 attempts at 1ms backoff took %v", time.Since(start))
	}
	// Listing-based methods surface the same failure instead of skipping it.
	if _, err := m.Consumers(ctx); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Consumers error = %v, want one naming %s", err, path)
	}
	if _, _, err := m.MinNextSnapshot(ctx); err == nil {
		t.Error("MinNextSnapshot ignored a torn consumer")
	}
}

func TestTornFileRepairedDuringRetry(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	m = m.WithRetry(50, 20*time.Millisecond)
	path := filepath.Join(root, "consumer", "consumer-c")
	writeRaw(t, path, `{"nextSnapshot": `)
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(60 * time.Millisecond)
		_ = os.WriteFile(path, []byte(`{"nextSnapshot": 77}`), 0o644)
	}()
	c, ok, err := m.Consumer(ctx, "c")
	<-done
	if err != nil || !ok || c.NextSnapshot != 77 {
		t.Fatalf("Consumer = %+v %v %v, want 77 after the writer finished", c, ok, err)
	}
}

func TestRetryHonoursContext(t *testing.T) {
	m, root := newTestManager(t)
	m = m.WithRetry(1000, time.Second)
	writeRaw(t, filepath.Join(root, "consumer", "consumer-c"), `garbage`)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := m.Consumer(ctx, "c")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if !strings.Contains(err.Error(), "garbage") && !strings.Contains(err.Error(), "invalid character") {
		t.Errorf("error %q does not carry the last parse failure", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancel took %v", d)
	}
}

func TestListing(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	if ids, err := m.ListIDs(ctx); err != nil || len(ids) != 0 {
		t.Fatalf("missing dir: ids=%v err=%v", ids, err)
	}
	if n, ok, err := m.MinNextSnapshot(ctx); err != nil || ok {
		t.Fatalf("MinNextSnapshot on no consumers = %d %v %v", n, ok, err)
	}
	dir := filepath.Join(root, "consumer")
	writeRaw(t, filepath.Join(dir, "consumer-b"), `{"nextSnapshot": 12}`)
	writeRaw(t, filepath.Join(dir, "consumer-a"), "{\n  \"nextSnapshot\" : 30\n}")
	writeRaw(t, filepath.Join(dir, "consumer-with space"), `{"nextSnapshot": 9}`)
	// Things that are not consumers.
	writeRaw(t, filepath.Join(dir, ".consumer-a.0123abcd.tmp"), `{"nextSnap`)
	writeRaw(t, filepath.Join(dir, ".hidden"), `x`)
	writeRaw(t, filepath.Join(dir, "other-x"), `{"nextSnapshot": 1}`)
	writeRaw(t, filepath.Join(dir, "consumer-"), `{"nextSnapshot": 1}`)
	if err := os.Mkdir(filepath.Join(dir, "consumer-dir"), 0o755); err != nil {
		t.Fatal(err)
	}

	ids, err := m.ListIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "with space"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ListIDs = %q, want %q", ids, want)
	}
	all, err := m.Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"a": 30, "b": 12, "with space": 9}; !reflect.DeepEqual(all, want) {
		t.Fatalf("Consumers = %v, want %v", all, want)
	}
	if n, ok, err := m.MinNextSnapshot(ctx); err != nil || !ok || n != 9 {
		t.Fatalf("MinNextSnapshot = %d %v %v, want 9", n, ok, err)
	}
}

func TestExpire(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	dir := filepath.Join(root, "consumer")
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	set := func(id string, mtime time.Time) {
		p := filepath.Join(dir, "consumer-"+id)
		writeRaw(t, p, `{"nextSnapshot": 1}`)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	set("old", base.Add(-time.Hour))
	set("edge", base) // equal to the cut-off: kept (strictly before only)
	set("new", base.Add(time.Minute))
	tmp := filepath.Join(dir, ".consumer-old.x.tmp")
	writeRaw(t, tmp, "x")
	_ = os.Chtimes(tmp, base.Add(-time.Hour), base.Add(-time.Hour))

	deleted, err := m.Expire(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"old"}; !reflect.DeepEqual(deleted, want) {
		t.Fatalf("Expire deleted %q, want %q", deleted, want)
	}
	ids, _ := m.ListIDs(ctx)
	if want := []string{"edge", "new"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("left %q, want %q", ids, want)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("Expire touched a temp file: %v", err)
	}
	// A Reset refreshes the mtime, which is how a live reader survives expiry.
	if err := m.Reset(ctx, "edge", Consumer{NextSnapshot: 2}); err != nil {
		t.Fatal(err)
	}
	deleted, err = m.Expire(ctx, base.Add(30*time.Second))
	if err != nil || len(deleted) != 0 {
		t.Fatalf("Expire after refresh deleted %q (%v)", deleted, err)
	}
}

func TestClearFullMatch(t *testing.T) {
	ctx := context.Background()
	ids := []string{"test", "test-id1", "test-id2", "prod-1", "xtest"}
	setup := func(t *testing.T) *Manager {
		m, _ := newTestManager(t)
		for _, id := range ids {
			if err := m.Reset(ctx, id, Consumer{NextSnapshot: 1}); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	cases := []struct {
		name       string
		incl, excl *regexp.Regexp
		deleted    []string
	}{
		{"nil including matches all", nil, nil, []string{"prod-1", "test", "test-id1", "test-id2", "xtest"}},
		// Java's matches(): "test" is a full match only; pypaimon would also delete test-id1/2.
		{"full match, not prefix", regexp.MustCompile("test"), nil, []string{"test"}},
		{"explicit prefix", regexp.MustCompile("test.*"), nil, []string{"test", "test-id1", "test-id2"}},
		{"excluding is full match too", regexp.MustCompile("test.*"), regexp.MustCompile("test-id"), []string{"test", "test-id1", "test-id2"}},
		{"excluding", regexp.MustCompile("test.*"), regexp.MustCompile("test-id1"), []string{"test", "test-id2"}},
		{"alternation is grouped", regexp.MustCompile("prod-1|test"), nil, []string{"prod-1", "test"}},
		{"exclude all", nil, regexp.MustCompile(".*"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := setup(t)
			deleted, err := m.Clear(ctx, tc.incl, tc.excl)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(deleted, tc.deleted) {
				t.Fatalf("deleted %q, want %q", deleted, tc.deleted)
			}
			left, _ := m.ListIDs(ctx)
			if len(left)+len(deleted) != len(ids) {
				t.Fatalf("left %q after deleting %q", left, deleted)
			}
			for _, id := range deleted {
				if _, ok, _ := m.Consumer(ctx, id); ok {
					t.Fatalf("%s still readable after Clear", id)
				}
			}
		})
	}
}

func TestHostileIDs(t *testing.T) {
	ctx := context.Background()
	outer := t.TempDir()
	root := filepath.Join(outer, "table")
	m := NewManager(fileio.NewLocal(), root, "").WithRetry(1, 0)
	// A file outside the consumer directory that a traversal would hit.
	writeRaw(t, filepath.Join(root, "consumer-secret"), `{"nextSnapshot": 1}`)
	writeRaw(t, filepath.Join(outer, "x"), `{"nextSnapshot": 1}`)

	hostile := map[string]string{
		"":                                 "empty",
		".":                                "relative path component",
		"..":                               "relative path component",
		"../../x":                          "path separator",
		"a/b":                              "path separator",
		`..\x`:                             "path separator",
		"/etc/passwd":                      "path separator",
		"a\x00b":                           "NUL",
		"a\nb":                             "control character",
		"a\x7fb":                           "control character",
		"a\u0085b":                         "control character",
		"\xff\xfe":                         "not valid UTF-8",
		strings.Repeat("x", MaxIDLength+1): "more than 200",
	}
	for id, why := range hostile {
		err := ValidateID(id)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ValidateID(%q) = %v, want an error about %q", id, err, why)
			continue
		}
		if err := m.Reset(ctx, id, Consumer{NextSnapshot: 9}); err == nil {
			t.Errorf("Reset(%q) succeeded", id)
		}
		if _, _, err := m.Consumer(ctx, id); err == nil {
			t.Errorf("Consumer(%q) succeeded", id)
		}
		if err := m.Delete(ctx, id); err == nil {
			t.Errorf("Delete(%q) succeeded", id)
		}
	}
	for _, ok := range []string{"a", "..a", ".hidden", "a..b", "näme", "x:y", strings.Repeat("x", MaxIDLength)} {
		if err := ValidateID(ok); err != nil {
			t.Errorf("ValidateID(%q) = %v, want nil", ok, err)
		}
	}
	// Nothing outside the consumer directory was touched or created.
	for _, p := range []string{filepath.Join(root, "consumer-secret"), filepath.Join(outer, "x")} {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != `{"nextSnapshot": 1}` {
			t.Fatalf("%s changed: %q %v", p, b, err)
		}
	}
	ents, _ := os.ReadDir(outer)
	if len(ents) != 2 {
		t.Fatalf("files appeared outside the table: %v", ents)
	}
}

// A crash between creating and renaming a consumer's temp file leaves it
// behind; RemoveStaleTemp deletes exactly those of ours that are old
// enough, never another writer's, another consumer's or a fresh one.
func TestRemoveStaleTemp(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	if err := m.Reset(ctx, "c1", Consumer{NextSnapshot: 3}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "consumer")
	old := time.Now().Add(-time.Hour)
	files := map[string]bool{ // name → must be removed
		".consumer-c1.0123456789abcdef.tmp":                     true,
		".consumer-c1.fedcba9876543210.tmp":                     false, // fresh: a write may be running
		".consumer-c2.0123456789abcdef.tmp":                     false, // another consumer
		".consumer-c1.1b4e28ba-2fa1-11d2-883f-0016d3cca427.tmp": false, // Java's pattern
		".consumer-c1.0123456789ABCDEF.tmp":                     false,
		"consumer-c1.0123456789abcdef.tmp":                      false,
	}
	for name, stale := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale || name != ".consumer-c1.fedcba9876543210.tmp" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	removed, err := m.RemoveStaleTemp(ctx, "c1", time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || filepath.Base(removed[0]) != ".consumer-c1.0123456789abcdef.tmp" {
		t.Fatalf("removed %v", removed)
	}
	for name, stale := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != stale {
			t.Errorf("%s: gone=%v, want %v", name, gone, stale)
		}
	}
	if c, ok, err := m.Consumer(ctx, "c1"); err != nil || !ok || c.NextSnapshot != 3 {
		t.Fatalf("the consumer itself: %+v %v %v", c, ok, err)
	}
}

// Consumers Java or pypaimon wrote under ids this reader refuses to create
// (a tab, over 200 bytes) still hold snapshots back: they are listed,
// counted in MinNextSnapshot and removed by Clear, by their listed path.
func TestForeignConsumerIDsAreSeen(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	dir := filepath.Join(root, "consumer")
	long := strings.Repeat("x", 201)
	writeRaw(t, filepath.Join(dir, "consumer-ok"), `{"nextSnapshot": 20}`)
	writeRaw(t, filepath.Join(dir, "consumer-tab\there"), `{"nextSnapshot": 3}`)
	writeRaw(t, filepath.Join(dir, "consumer-"+long), `{"nextSnapshot": 7}`)
	for _, id := range []string{"tab\there", long} {
		if ValidateID(id) == nil {
			t.Fatalf("%q should be an id we refuse to create", id)
		}
	}
	ids, err := m.ListIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ok", "tab\there", long}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ListIDs = %q, want %q", ids, want)
	}
	if n, ok, err := m.MinNextSnapshot(ctx); err != nil || !ok || n != 3 {
		t.Fatalf("MinNextSnapshot = %d %v %v, want 3 (the tab consumer)", n, ok, err)
	}
	deleted, err := m.Clear(ctx, regexp.MustCompile(`tab.*|x+`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(deleted) != 2 {
		t.Fatalf("Clear deleted %q, want the two foreign ids", deleted)
	}
	if ids, _ := m.ListIDs(ctx); !reflect.DeepEqual(ids, []string{"ok"}) {
		t.Fatalf("after Clear: %q", ids)
	}
}

// A symlink named like a consumer is listed like one; Clear deletes the
// link, never the file it points at.
func TestClearDeletesSymlinkNotTarget(t *testing.T) {
	ctx := context.Background()
	m, root := newTestManager(t)
	dir := filepath.Join(root, "consumer")
	target := filepath.Join(t.TempDir(), "elsewhere")
	writeRaw(t, target, `{"nextSnapshot": 5}`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "consumer-link")); err != nil {
		t.Fatal(err)
	}
	if ids, err := m.ListIDs(ctx); err != nil || !reflect.DeepEqual(ids, []string{"link"}) {
		t.Fatalf("ListIDs = %q %v", ids, err)
	}
	if _, err := m.Clear(ctx, regexp.MustCompile(`link`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "consumer-link")); !os.IsNotExist(err) {
		t.Fatalf("link still there: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the link's target was deleted: %v", err)
	}
}
