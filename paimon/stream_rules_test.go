package paimon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// Rule tests for the streaming scan: Java's rules at their exact boundaries, on tables
// written by pypaimon (and, for compaction, by Java: the javagen.commits fixture).

// commitLine is one commit line of resources/pygen/gen_stream.py.
type commitLine struct {
	Event    string   `json:"event"`
	Snapshot int64    `json:"snapshot"`
	Kind     string   `json:"kind"`
	Scanned  bool     `json:"scanned"`
	Rows     []string `json:"rows"`
}

// genStream runs resources/pygen/gen_stream.py and returns its stdout.
func genStream(t *testing.T, args ...string) string {
	t.Helper()
	return testenv.RunPython(t, filepath.Join(testenv.RepoRoot(t), "resources", "pygen", "gen_stream.py"), args...)
}

// commitsOf parses gen_stream.py's output into commit lines by snapshot id.
func commitsOf(t *testing.T, out string) map[int64]commitLine {
	t.Helper()
	m := map[int64]commitLine{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var c commitLine
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("gen_stream line %q: %v", l, err)
		}
		if c.Event == "commit" {
			m[c.Snapshot] = c
		}
	}
	return m
}

// canonLines reads splits into sorted canonical JSON lines (docs/ARCHITECTURE.md), the
// encoding pypaimon's side writes with canon.py.
func canonLines(t *testing.T, ctx context.Context, rd *paimon.Read, splits []*paimon.Split) []string {
	t.Helper()
	out, err := interop.ReadSplits(ctx, rd, splits)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// planIDs runs s until io.EOF (or until the scan blocks for `idle`) and returns the snapshot
// ids of its plans; blocked reports whether it was still waiting at the end.
func planIDs(t *testing.T, ctx context.Context, s *paimon.StreamingScan, idle time.Duration) (ids []int64, blocked bool) {
	t.Helper()
	for {
		cctx, cancel := context.WithTimeout(ctx, idle)
		p, err := s.Next(cctx)
		cancel()
		switch {
		case errors.Is(err, io.EOF):
			return ids, false
		case errors.Is(err, context.DeadlineExceeded):
			return ids, true
		case err != nil:
			t.Fatalf("Next after %v: %v", ids, err)
		}
		ids = append(ids, p.SnapshotID)
	}
}

// editSnapshot rewrites snapshot-<id> of a table through a JSON object, keeping every other
// field (numbers stay json.Number so 64-bit values survive).
func editSnapshot(t *testing.T, tableDir string, id int64, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(tableDir, "snapshot", "snapshot-"+strconv.FormatInt(id, 10))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// javaCommits copies the Java-written fixture javagen.commits (snapshots 1-3 APPEND of six
// rows each, 4 OVERWRITE of partition p=1, 5 COMPACT: a full compaction) into a warehouse.
func javaCommits(t *testing.T) (wh string, expected string) {
	t.Helper()
	root := testenv.RepoRoot(t)
	wh = t.TempDir()
	testenv.CopyTree(t, filepath.Join(root, "resources", "fixtures", "warehouse", "javagen.db", "commits"),
		filepath.Join(wh, "javagen.db", "commits"))
	return wh, filepath.Join(root, "resources", "fixtures", "expected", "javagen.commits")
}

// minus returns the multiset difference a - b of sorted line sets.
func minus(a, b []string) []string {
	left := map[string]int{}
	for _, l := range b {
		left[l]++
	}
	var out []string
	for _, l := range a {
		if left[l] > 0 {
			left[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

func openTable(t *testing.T, ctx context.Context, wh, name string) *paimon.Table {
	t.Helper()
	cat, err := paimon.OpenCatalog(ctx, wh, interop.CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestStreamFromTimestampBoundaries: Java's ContinuousFromTimestampStartingScanner starts
// after the last snapshot committed strictly before the time, so a time equal to a
// snapshot's commit time includes that snapshot; before everything it starts at the
// earliest (also after expiry), after everything it waits for the next commit.
func TestStreamFromTimestampBoundaries(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 1, "")  // 1
	w.append(10, 1, "") // 2
	w.append(20, 1, "") // 3
	tbl := w.table(ctx)
	var ts [4]int64
	for id := int64(1); id <= 3; id++ {
		s, err := tbl.Snapshots().Snapshot(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ts[id] = s.TimeMillis
	}
	if !(ts[1] < ts[2] && ts[2] < ts[3]) {
		t.Fatalf("commit times not increasing: %v", ts)
	}
	cases := []struct {
		name  string
		at    int64
		first int64 // 0: no plan, the scan waits for snapshot 4
	}{
		{"before the first commit", ts[1] - 1, 1},
		{"exactly the first commit", ts[1], 1},
		{"just after the first commit", ts[1] + 1, 2},
		{"exactly the second commit", ts[2], 2},
		{"just before the third commit", ts[3] - 1, 3},
		{"exactly the third commit", ts[3], 3},
		{"after the last commit", ts[3] + 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartFromTimestamp).
				WithStartTimestamp(time.UnixMilli(c.at)).WithPollInterval(10 * time.Millisecond).
				WithEndSnapshot(3).NewStreamingScan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := planIDs(t, ctx, s, 3*time.Second)
			var want []int64
			for id := c.first; c.first > 0 && id <= 3; id++ {
				want = append(want, id)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("from-timestamp %d (times %v): plans %v, want %v", c.at, ts[1:], got, want)
			}
			if c.first == 0 && s.NextSnapshotID() != 4 {
				t.Fatalf("position %d, want 4", s.NextSnapshotID())
			}
		})
	}
	// Snapshot 1 expired: a time before everything starts at the earliest (2), no error.
	if err := os.Remove(filepath.Join(tbl.Path(), "snapshot", "snapshot-1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tbl.Path(), "snapshot", "EARLIEST"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartFromTimestamp).
		WithStartTimestamp(time.UnixMilli(ts[1] - 1)).WithPollInterval(10 * time.Millisecond).
		WithEndSnapshot(3).NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := planIDs(t, ctx, s, 3*time.Second); !slices.Equal(got, []int64{2, 3}) {
		t.Fatalf("after expiry: plans %v, want [2 3]", got)
	}
}

// TestStreamEndWatermark: Java's BoundedChecker.watermark(b) ends the stream at the first
// snapshot whose watermark is set and > b; that snapshot is not read, a snapshot without a
// watermark never ends it, and = b does not end it. pypaimon cannot write watermarks, so they
// are added to its snapshot files the way a Flink writer records them.
func TestStreamEndWatermark(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 1, "")  // 1: no watermark
	w.append(10, 1, "") // 2: watermark 1000
	w.append(20, 1, "") // 3: watermark 2000
	tbl := w.table(ctx)
	editSnapshot(t, tbl.Path(), 2, func(m map[string]any) { m["watermark"] = 1000 })
	editSnapshot(t, tbl.Path(), 3, func(m map[string]any) { m["watermark"] = 2000 })
	cases := []struct {
		bound   int64
		want    []int64
		blocked bool // true: no end reached, the scan waits for snapshot 4
	}{
		{999, []int64{1}, false},
		{1000, []int64{1, 2}, false},
		{1500, []int64{1, 2}, false},
		{2000, []int64{1, 2, 3}, true},
	}
	for _, c := range cases {
		t.Run(strconv.FormatInt(c.bound, 10), func(t *testing.T) {
			b := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(1).
				WithEndWatermark(c.bound).WithPollInterval(10 * time.Millisecond)
			s, err := b.NewStreamingScan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, blocked := planIDs(t, ctx, s, 2*time.Second)
			if !slices.Equal(got, c.want) || blocked != c.blocked {
				t.Fatalf("bound %d: plans %v blocked=%v, want %v blocked=%v", c.bound, got, blocked, c.want, c.blocked)
			}
		})
	}
	// The plan carries the snapshot's watermark.
	s, err := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(2).
		WithPollInterval(10 * time.Millisecond).NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := next(t, ctx, s); p.SnapshotID != 2 || p.Watermark == nil || *p.Watermark != 1000 {
		t.Fatalf("plan of snapshot 2: %+v", p)
	}

	// Java (DataTableStreamScan.tryFirstPlan, isFullPhaseEnd): when the start snapshot is
	// already past the bound, the full plan is returned and the stream then ends; the same for
	// a NextSnapshot start whose previous snapshot is past the bound.
	t.Run("start past the bound", func(t *testing.T) {
		for _, mode := range []paimon.StartMode{paimon.StartLatestFull, paimon.StartLatest} {
			s, err := tbl.NewStreamReadBuilder().WithStartMode(mode).WithEndWatermark(1500).
				WithPollInterval(10 * time.Millisecond).NewStreamingScan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, blocked := planIDs(t, ctx, s, 2*time.Second)
			want := []int64{3}
			if mode == paimon.StartLatest {
				want = nil
			}
			if !slices.Equal(got, want) || blocked {
				t.Errorf("%s with snapshot 3 past the bound: plans %v blocked=%v, want %v then io.EOF", mode, got, blocked, want)
			}
		}
	})
}

// TestStreamRecreatedTable: a position beyond latest+1 means the table was dropped and
// recreated (Java's NextSnapshotFetcher "too big"); the scan fails with ErrRecreated instead
// of waiting forever, both for a stale consumer position and for a table recreated under a
// running scan.
func TestStreamRecreatedTable(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 1, "") // 1
	w.append(1, 1, "") // 2
	w.append(2, 1, "") // 3
	tbl := w.table(ctx)

	t.Run("consumer beyond latest+1", func(t *testing.T) {
		b := tbl.NewStreamReadBuilder().WithConsumerID("stale").WithPollInterval(10 * time.Millisecond)
		s, err := b.NewStreamingScan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CommitConsumer(ctx, 10); err != nil {
			t.Fatal(err)
		}
		s, err = b.NewStreamingScan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err = s.Next(cctx)
		if !errors.Is(err, paimon.ErrRecreated) || !strings.Contains(err.Error(), "10") || !strings.Contains(err.Error(), "3") ||
			!strings.Contains(err.Error(), filepath.Join("consumer", "consumer-stale")) {
			t.Fatalf("want ErrRecreated naming 10, latest 3 and the consumer file, got %v", err)
		}
	})
	t.Run("latest+1 is just not written yet", func(t *testing.T) {
		s, err := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartLatest).WithPollInterval(10 * time.Millisecond).NewStreamingScan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// 20 polls: past the first range check and the 17th.
		cctx, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
		defer cancel()
		if _, err := s.Next(cctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("position latest+1 must wait, got %v", err)
		}
	})
	t.Run("recreated under a running scan", func(t *testing.T) {
		s, err := tbl.NewStreamReadBuilder().WithPollInterval(10 * time.Millisecond).NewStreamingScan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p := next(t, ctx, s); p.SnapshotID != 3 || s.NextSnapshotID() != 4 {
			t.Fatalf("first plan %+v", p)
		}
		if err := os.RemoveAll(tbl.Path()); err != nil {
			t.Fatal(err)
		}
		w.run("create", "db.t", "-1")
		w.append(100, 1, "") // the new table's snapshot 1
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := s.Next(cctx); !errors.Is(err, paimon.ErrRecreated) {
			t.Fatalf("want ErrRecreated after the table was recreated, got %v", err)
		}
	})
}

// TestStreamCompactedFull on the Java-written javagen.commits (5 = COMPACT) plus one
// pypaimon append (6): compacted-full reads snapshot 5 in full (rows = Java's own read of
// snapshot 5), then snapshot 6's delta; latest-full would start at 6.
func TestStreamCompactedFull(t *testing.T) {
	ctx := context.Background()
	wh, expected := javaCommits(t)
	added := commitsOf(t, genStream(t, "appends", wh, "javagen.commits", "1", "--start", "1000"))
	if c, ok := added[6]; !ok || len(c.Rows) != 2 {
		t.Fatalf("pypaimon append: %+v", added)
	}
	tbl := openTable(t, ctx, wh, "javagen.commits")
	if s, err := tbl.Snapshots().Snapshot(ctx, 5); err != nil || s.CommitKind != "COMPACT" {
		t.Fatalf("fixture snapshot 5 should be COMPACT: %v %v", s, err)
	}
	b := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartCompactedFull).WithPollInterval(10 * time.Millisecond).WithEndSnapshot(6)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd := b.NewRead()
	p := next(t, ctx, s)
	if !p.FirstPlan || p.SnapshotID != 5 {
		t.Fatalf("compacted-full first plan: %+v", p)
	}
	if got, want := canonLines(t, ctx, rd, p.Splits), testenv.ReadSortedLines(t, filepath.Join(expected, "snap5_full.jsonl")); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("snapshot 5 full:\n got  %v\n want %v (Java)", got, want)
	}
	p = next(t, ctx, s)
	if p.FirstPlan || p.SnapshotID != 6 {
		t.Fatalf("follow-up: %+v", p)
	}
	if got := canonLines(t, ctx, rd, p.Splits); strings.Join(got, "\n") != strings.Join(added[6].Rows, "\n") {
		t.Fatalf("snapshot 6:\n got  %v\n want %v (pypaimon)", got, added[6].Rows)
	}
	if _, err := s.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("want io.EOF after the end snapshot, got %v", err)
	}
	// Control: latest-full starts at 6, so the test above does tell the modes apart.
	s, err = tbl.NewStreamReadBuilder().WithPollInterval(10 * time.Millisecond).NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := next(t, ctx, s); p.SnapshotID != 6 {
		t.Fatalf("latest-full: %+v", p)
	}
}

// TestStreamSetNextSnapshotID: manual positioning skips the start mode (no full plan) and
// re-reads from the given snapshot's changes, also after a plan was already returned.
func TestStreamSetNextSnapshotID(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 2, "")  // 1
	w.append(10, 2, "") // 2
	w.append(20, 2, "") // 3
	tbl := w.table(ctx)
	b := tbl.NewStreamReadBuilder().WithPollInterval(10 * time.Millisecond).WithEndSnapshot(3)
	rd := b.NewRead()

	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.SetNextSnapshotID(2) // before the first Next: no full plan of the latest
	p := next(t, ctx, s)
	if p.FirstPlan || p.SnapshotID != 2 {
		t.Fatalf("first plan after SetNextSnapshotID(2): %+v", p)
	}
	equal(t, "snapshot 2", rowsOf(t, ctx, rd, p.Splits), ids("+I", 10, 2))

	s, err = b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := next(t, ctx, s); !p.FirstPlan || p.SnapshotID != 3 {
		t.Fatalf("latest-full: %+v", p)
	}
	if _, err := s.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("want io.EOF, got %v", err)
	}
	s.SetNextSnapshotID(1) // rewind after the end: the scan runs again
	if got, _ := planIDs(t, ctx, s, 2*time.Second); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("after rewinding to 1: plans %v, want [1 2 3]", got)
	}
}

// TestStreamIgnoreConsumerProgress: with ignore-progress the start mode decides even though
// the consumer has a position, and CommitConsumer still records progress (Java writes it on
// every checkpoint regardless).
func TestStreamIgnoreConsumerProgress(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 2, "")  // 1
	w.append(10, 2, "") // 2
	w.append(20, 2, "") // 3
	tbl := w.table(ctx)
	b := tbl.NewStreamReadBuilder().WithConsumerID("c").WithPollInterval(10 * time.Millisecond)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CommitConsumer(ctx, 3); err != nil {
		t.Fatal(err)
	}
	s, err = b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := next(t, ctx, s); p.FirstPlan || p.SnapshotID != 3 {
		t.Fatalf("resume from the consumer: %+v", p)
	}
	s, err = b.WithIgnoreConsumerProgress(true).NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := next(t, ctx, s)
	if !p.FirstPlan || p.SnapshotID != 3 {
		t.Fatalf("ignore-progress should start latest-full: %+v", p)
	}
	equal(t, "full", rowsOf(t, ctx, b.NewRead(), p.Splits), append(append(ids("+I", 0, 2), ids("+I", 10, 2)...), ids("+I", 20, 2)...))
	if err := s.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
		t.Fatal(err)
	}
	b2 := tbl.NewStreamReadBuilder().WithConsumerID("c").WithPollInterval(10 * time.Millisecond)
	s, err = b2.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.append(30, 1, "") // 4
	if p := next(t, ctx, s); p.FirstPlan || p.SnapshotID != 4 {
		t.Fatalf("progress written under ignore-progress should be resumed: %+v", p)
	}
}

// TestStreamCatchUpDoesNotWaitBetweenSnapshots: 200 small pypaimon snapshots already exist;
// with a 1 s poll interval the scan reads them back to back (it waits only when the next
// snapshot is missing), so catching up takes far less than 200 poll intervals. Each plan's
// rows are the rows of its commit, in order.
func TestStreamCatchUpDoesNotWaitBetweenSnapshots(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	const n = 200
	commits := commitsOf(t, genStream(t, "appends", wh, "db.many", strconv.Itoa(n), "--create", "-1"))
	if len(commits) != n {
		t.Fatalf("pypaimon made %d snapshots, want %d", len(commits), n)
	}
	tbl := openTable(t, ctx, wh, "db.many")
	b := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(1).
		WithPollInterval(time.Second).WithEndSnapshot(n)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd := b.NewRead()
	start := time.Now()
	for id := int64(1); id <= n; id++ {
		p := next(t, ctx, s)
		if p.SnapshotID != id {
			t.Fatalf("plan %d is snapshot %d", id, p.SnapshotID)
		}
		if got := canonLines(t, ctx, rd, p.Splits); strings.Join(got, "\n") != strings.Join(commits[id].Rows, "\n") {
			t.Fatalf("snapshot %d:\n got  %v\n want %v (pypaimon)", id, got, commits[id].Rows)
		}
	}
	if _, err := s.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("want io.EOF after %d, got %v", n, err)
	}
	if el := time.Since(start); el > 60*time.Second {
		t.Fatalf("catching up %d snapshots took %v with a 1s poll interval: the scan waits between existing snapshots", n, el)
	}
}
