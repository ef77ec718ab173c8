package paimon_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// Deliberate differences from pypaimon 2.1.0's streaming scan (docs/streaming.md, "Differences
// from pypaimon"). Each test runs pypaimon's own scan (resources/pygen/gen_stream.py pystream)
// to show its behaviour, and pins ours, which follows Java. Should a pypaimon upgrade fix a
// defect, its half of the test fails and the docs table needs updating.
//
// The consumer-side difference (clear_consumers: Java's full-match regex, not pypaimon's
// re.match prefix) is pinned in paimon/consumer: TestClearFullMatch (manager_test.go) and
// TestInteropClearAgreesWherePatternsAreFullMatches (interop_pypaimon_test.go), which runs
// pypaimon's ConsumerManager on the same files.

// pyEvent is one line of gen_stream.py pystream.
type pyEvent struct {
	Event   string   `json:"event"`
	Type    string   `json:"type"`
	Message string   `json:"message"`
	Next    *int64   `json:"next"`
	Buckets []int32  `json:"buckets"`
	Rows    []string `json:"rows"`
}

func pyStream(t *testing.T, args ...string) []pyEvent {
	t.Helper()
	out := genStream(t, append([]string{"pystream"}, args...)...)
	var evs []pyEvent
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e pyEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("pystream line %q: %v", l, err)
		}
		evs = append(evs, e)
	}
	return evs
}

// TestStreamDiffBucketFilterFirstPlan: pypaimon applies with_buckets only to follow-up plans,
// so every shard's first plan is the whole table. Ours filters the first plan too: two shards
// together read the table exactly once.
func TestStreamDiffBucketFilterFirstPlan(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "2", false)
	w.append(0, 20, "")
	py := pyStream(t, w.wh, "db.t", "--buckets", "0", "--plans", "1")
	if len(py) != 1 || py[0].Event != "plan" {
		t.Fatalf("pypaimon: %+v", py)
	}
	if len(py[0].Rows) != 20 || !slices.Equal(py[0].Buckets, []int32{0, 1}) {
		t.Fatalf("pypaimon defect changed? with_buckets([0]) first plan read buckets %v, %d rows (expected the defect: 0 and 1, 20 rows)",
			py[0].Buckets, len(py[0].Rows))
	}
	tbl := w.table(ctx)
	var union []string
	for _, bucket := range []int32{0, 1} {
		b := tbl.NewStreamReadBuilder().WithBuckets(bucket).WithPollInterval(10 * time.Millisecond)
		s, err := b.NewStreamingScan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p := next(t, ctx, s)
		if !p.FirstPlan {
			t.Fatalf("%+v", p)
		}
		for _, sp := range p.Splits {
			if sp.Bucket() != bucket {
				t.Fatalf("shard %d first plan has bucket %d", bucket, sp.Bucket())
			}
		}
		rows := canonLines(t, ctx, b.NewRead(), p.Splits)
		if len(rows) == 0 || len(rows) == 20 {
			t.Fatalf("shard %d read %d of 20 rows: the buckets are not both populated or not filtered", bucket, len(rows))
		}
		union = append(union, rows...)
	}
	sort.Strings(union)
	if strings.Join(union, "\n") != strings.Join(py[0].Rows, "\n") {
		t.Fatalf("shards together:\n got  %v\n want %v (pypaimon's unfiltered read)", union, py[0].Rows)
	}
}

// TestStreamDiffExpiredPosition: a position below the earliest snapshot makes pypaimon poll
// forever (the missing file looks "not written yet"; its catch-up only fires for gaps > 10).
// Ours checks the position against the earliest snapshot on the first miss and applies the
// policy: fail (default, naming the consumer), earliest, or latest-full.
func TestStreamDiffExpiredPosition(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 2, "")  // 1
	w.append(10, 2, "") // 2
	w.append(20, 2, "") // 3
	tbl := w.table(ctx)
	if err := os.Remove(filepath.Join(tbl.Path(), "snapshot", "snapshot-1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tbl.Path(), "snapshot", "EARLIEST"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	py := pyStream(t, w.wh, "db.t", "--next", "1", "--timeout", "3")
	if len(py) != 1 || py[0].Event != "timeout" || py[0].Next == nil || *py[0].Next != 1 {
		t.Fatalf("pypaimon defect changed? want it stuck at snapshot 1 without a plan, got %+v", py)
	}

	b := tbl.NewStreamReadBuilder().WithConsumerID("behind").WithPollInterval(10 * time.Millisecond)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CommitConsumer(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		policy paimon.ExpiredPolicy
		check  func(*paimon.StreamPlan, error)
	}{
		{paimon.ExpiredFail, func(p *paimon.StreamPlan, err error) {
			if !errors.Is(err, paimon.ErrExpired) || !strings.Contains(err.Error(), `"behind"`) ||
				!strings.Contains(err.Error(), "snapshot 1") || !strings.Contains(err.Error(), "earliest snapshot is 2") {
				t.Errorf("fail policy: want ErrExpired naming the consumer, 1 and 2, got %v", err)
			}
		}},
		{paimon.ExpiredEarliest, func(p *paimon.StreamPlan, err error) {
			if err != nil || p.FirstPlan || p.SnapshotID != 2 {
				t.Errorf("earliest policy: %+v %v", p, err)
				return
			}
			if e := p.Expired; e == nil || e.Needed != 1 || e.Earliest != 2 || e.Skipped() != 1 || e.Policy != paimon.ExpiredEarliest {
				t.Errorf("earliest policy: the plan must report the skip (needed 1, earliest 2, 1 snapshot), got %+v", e)
			}
			equal(t, "earliest policy", rowsOf(t, ctx, b.NewRead(), p.Splits), ids("+I", 10, 2))
		}},
		{paimon.ExpiredLatestFull, func(p *paimon.StreamPlan, err error) {
			if err != nil || !p.FirstPlan || p.SnapshotID != 3 {
				t.Errorf("latest-full policy: %+v %v", p, err)
				return
			}
			if e := p.Expired; e == nil || e.Needed != 1 || e.Latest != 3 || e.Skipped() != 3 || e.Policy != paimon.ExpiredLatestFull {
				t.Errorf("latest-full policy: the plan must report the skip (needed 1, read 3 in full), got %+v", e)
			}
			// The full plan holds every live row, those committed by the expired snapshot 1 too.
			equal(t, "latest-full policy", rowsOf(t, ctx, b.NewRead(), p.Splits), append(append(ids("+I", 0, 2), ids("+I", 10, 2)...), ids("+I", 20, 2)...))
		}},
	} {
		s, err := b.WithOnExpired(c.policy).NewStreamingScan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second) // far less than 16 polls would need if the first miss were not checked
		p, err := s.Next(cctx)
		cancel()
		c.check(p, err)
	}
}

// TestStreamDiffEmptyTable: pypaimon's scan raises TypeError on a table without snapshots
// (find_next_scannable(None, ...)); ours waits for the first snapshot and reads it in full.
func TestStreamDiffEmptyTable(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	py := pyStream(t, w.wh, "db.t", "--timeout", "3")
	if len(py) != 1 || py[0].Event != "error" || py[0].Type != "TypeError" {
		t.Fatalf("pypaimon defect changed? want TypeError on an empty table, got %+v", py)
	}
	tbl := w.table(ctx)
	b := tbl.NewStreamReadBuilder().WithPollInterval(20 * time.Millisecond)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = s.Next(cctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("empty table: want to wait, got %v", err)
	}
	w.append(0, 2, "")
	p := next(t, ctx, s)
	if !p.FirstPlan || p.SnapshotID != 1 {
		t.Fatalf("%+v", p)
	}
	equal(t, "first snapshot", rowsOf(t, ctx, b.NewRead(), p.Splits), ids("+I", 0, 2))
}

// TestStreamDiffNoCatchUpReemission on the Java fixture javagen.commits (1-3 APPEND, 4
// OVERWRITE p=1, 5 full COMPACT) plus 11 pypaimon appends (6-16). Resuming at 2 with the
// latest 14 snapshots ahead, pypaimon's diff catch-up returns the files of 16 that 1 lacks:
// the compacted files re-emit snapshot 1's rows, and the overwrite's row comes out although
// OVERWRITE is not streamed. Ours reads snapshot by snapshot (Java): every APPEND delta once,
// COMPACT and OVERWRITE skipped, nothing of snapshot 1.
func TestStreamDiffNoCatchUpReemission(t *testing.T) {
	ctx := context.Background()
	wh, expected := javaCommits(t)
	added := commitsOf(t, genStream(t, "appends", wh, "javagen.commits", "11", "--start", "1000"))
	if len(added) != 11 || added[16].Rows == nil {
		t.Fatalf("pypaimon appends: %d commits", len(added))
	}
	snap := func(id string) []string {
		return testenv.ReadSortedLines(t, filepath.Join(expected, "snap"+id+"_full.jsonl"))
	}
	snap1 := snap("1")
	want := map[int64][]string{2: minus(snap("2"), snap1), 3: minus(snap("3"), snap("2")), 4: nil, 5: nil}
	for id := int64(6); id <= 16; id++ {
		want[id] = added[id].Rows
	}
	if len(want[2]) != 6 || len(want[3]) != 6 {
		t.Fatalf("Java fixture deltas: %v %v", want[2], want[3])
	}

	py := pyStream(t, wh, "javagen.commits", "--next", "2", "--plans", "1")
	if len(py) != 1 || py[0].Event != "plan" || py[0].Next == nil || *py[0].Next != 17 {
		t.Fatalf("pypaimon catch-up: %+v", py)
	}
	reemitted := 0
	for _, l := range py[0].Rows {
		for _, s1 := range snap1 {
			if l == s1 {
				reemitted++
			}
		}
	}
	if reemitted == 0 || !strings.Contains(strings.Join(py[0].Rows, "\n"), "overwritten") {
		t.Fatalf("pypaimon defect changed? its catch-up plan re-emitted %d rows of snapshot 1 and overwrite row present=%v:\n%v",
			reemitted, strings.Contains(strings.Join(py[0].Rows, "\n"), "overwritten"), py[0].Rows)
	}

	tbl := openTable(t, ctx, wh, "javagen.commits")
	b := tbl.NewStreamReadBuilder().WithConsumerID("resume").WithPollInterval(10 * time.Millisecond).
		WithEmitEmptyPlans(true).WithEndSnapshot(16)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CommitConsumer(ctx, 2); err != nil {
		t.Fatal(err)
	}
	s, err = b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd := b.NewRead()
	seen := map[string]int64{}
	for id := int64(2); id <= 16; id++ {
		p := next(t, ctx, s)
		if p.SnapshotID != id || p.FirstPlan {
			t.Fatalf("plan %d: %+v", id, p)
		}
		if (id == 4 || id == 5) != p.Skipped {
			t.Fatalf("snapshot %d (%s): skipped=%v", id, p.CommitKind, p.Skipped)
		}
		got := canonLines(t, ctx, rd, p.Splits)
		if strings.Join(got, "\n") != strings.Join(want[id], "\n") {
			t.Fatalf("snapshot %d (%s):\n got  %v\n want %v", id, p.CommitKind, got, want[id])
		}
		for _, l := range got {
			if prev, dup := seen[l]; dup {
				t.Fatalf("row %s emitted by snapshots %d and %d", l, prev, id)
			}
			seen[l] = id
		}
	}
	for _, l := range snap1 {
		if _, ok := seen[l]; ok {
			t.Fatalf("snapshot 1 row %s re-emitted", l)
		}
	}
}
