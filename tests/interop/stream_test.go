//go:build !interop_noapi

package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// streamEvent is one line of resources/pygen/gen_stream.py's protocol.
type streamEvent struct {
	Event    string   `json:"event"`
	Step     int      `json:"step"`
	Name     string   `json:"name"`
	Snapshot int64    `json:"snapshot"`
	Kind     string   `json:"kind"`
	SchemaID int64    `json:"schema_id"`
	Scanned  bool     `json:"scanned"`
	Wait     bool     `json:"wait"`
	Rows     []string `json:"rows"`
	Written  []string `json:"written"`
}

// streamResult is what one Go plan emitted.
type streamResult struct {
	snapshot  int64
	schemaID  int64
	first     bool
	skipped   bool
	buckets   map[int32]bool
	lines     []string
	next      int64
	committed bool
}

// follower runs one Go streaming scan in a goroutine and records every plan.
type follower struct {
	name    string
	mu      sync.Mutex
	results []streamResult
	err     error
	done    chan struct{}
}

func (f *follower) last() (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.results) == 0 {
		return 0, f.err
	}
	return f.results[len(f.results)-1].snapshot, f.err
}

func (f *follower) snapshotResults() []streamResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]streamResult(nil), f.results...)
}

// follow starts b's scan; every plan's rows are read completely before the next Next, and
// with a consumer id the position is committed only after that (the commit-after-ack
// contract).
func follow(ctx context.Context, t *testing.T, name string, b *paimon.StreamReadBuilder) *follower {
	t.Helper()
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	f := &follower{name: name, done: make(chan struct{})}
	rd := b.NewRead()
	go func() {
		defer close(f.done)
		for {
			p, err := s.Next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					f.mu.Lock()
					f.err = err
					f.mu.Unlock()
				}
				return
			}
			r := streamResult{snapshot: p.SnapshotID, schemaID: p.SchemaID, first: p.FirstPlan, skipped: p.Skipped,
				buckets: map[int32]bool{}, next: p.NextSnapshotID}
			for _, sp := range p.Splits {
				r.buckets[sp.Bucket()] = true
				rr, err := rd.Read(ctx, sp)
				if err == nil {
					var l []string
					l, err = canon.Reader(rr)
					rr.Release()
					r.lines = append(r.lines, l...)
				}
				if err != nil {
					f.mu.Lock()
					f.err = fmt.Errorf("snapshot %d bucket %d: %w", p.SnapshotID, sp.Bucket(), err)
					f.mu.Unlock()
					return
				}
			}
			sortLines(r.lines)
			if s.ConsumerID() != "" {
				if err := s.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
					f.mu.Lock()
					f.err = err
					f.mu.Unlock()
					return
				}
				r.committed = true
			}
			f.mu.Lock()
			f.results = append(f.results, r)
			f.mu.Unlock()
		}
	}()
	return f
}

// waitFor blocks until every follower emitted a plan for snapshot id (or later).
func waitFor(t *testing.T, id int64, fs ...*follower) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for _, f := range fs {
		for {
			last, err := f.last()
			if err != nil {
				t.Fatalf("scan %s failed: %v", f.name, err)
			}
			if last >= id {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("scan %s did not reach snapshot %d within 60s (last %d)", f.name, id, last)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// expireSnapshots removes snapshot-from..snapshot-to and writes the EARLIEST hint the way
// Java's ExpireSnapshotsImpl finishes (pypaimon cannot expire). Data and manifest files are
// left alone: the streaming scan only ever looks at snapshot files it has not read yet.
func expireSnapshots(t *testing.T, tableDir string, from, to int64) {
	t.Helper()
	for id := from; id <= to; id++ {
		if err := os.Remove(filepath.Join(tableDir, "snapshot", "snapshot-"+strconv.FormatInt(id, 10))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tableDir, "snapshot", "EARLIEST"), []byte(strconv.FormatInt(to+1, 10)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStreamFollowsPypaimonScript: pypaimon commits appends to two partitions and two
// buckets, a partition overwrite, add/rename/drop column and a widen, while Go streaming
// scans follow the table concurrently (a full reader with a consumer, two bucket shards, and
// a late joiner started after an expiry). Snapshots are expired between steps. The rows each
// Go scan emits per snapshot must equal what pypaimon's own streaming follow-up read of that
// snapshot returned; overwrites emit nothing (Java's DeltaFollowUpScanner; pypaimon agrees
// here). The shards must split every snapshot without overlap, including the first plan
// (pypaimon ignores the bucket filter there; see TestStreamDiffBucketFilterFirstPlan).
func TestStreamFollowsPypaimonScript(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	wh := t.TempDir()
	script := filepath.Join(testenv.RepoRoot(t), "resources", "pygen", "gen_stream.py")
	gen := testenv.StartPython(t, ctx, script, "script", wh)
	sc := bufio.NewScanner(gen.Stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	read := func() streamEvent {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("gen_stream.py ended early: %v\n%s", sc.Err(), gen.Stderr())
		}
		var ev streamEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("gen_stream.py line %q: %v", sc.Text(), err)
		}
		return ev
	}
	goAhead := func() {
		t.Helper()
		if _, err := io.WriteString(gen.Stdin, "go\n"); err != nil {
			t.Fatalf("go-ahead: %v\n%s", err, gen.Stderr())
		}
	}
	if ev := read(); ev.Event != "created" {
		t.Fatalf("want created, got %+v", ev)
	}
	cat, err := paimon.OpenCatalog(ctx, wh, CheckedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, "db.stream")
	if err != nil {
		t.Fatal(err)
	}
	scanCtx, stopScans := context.WithCancel(ctx)
	defer stopScans()
	builder := func() *paimon.StreamReadBuilder {
		return tbl.NewStreamReadBuilder().WithPollInterval(20 * time.Millisecond).WithEmitEmptyPlans(true)
	}
	// The table is empty: every scan waits for the first snapshot (pypaimon's scan raises a
	// TypeError here; TestStreamDiffEmptyTable).
	all := follow(scanCtx, t, "all", builder().WithConsumerID("interop"))
	shard0 := follow(scanCtx, t, "bucket0", builder().WithBuckets(0))
	shard1 := follow(scanCtx, t, "bucket1", builder().WithBuckets(1))
	followers := []*follower{all, shard0, shard1}
	var late *follower
	goAhead()

	want := map[int64]streamEvent{}
	var lastSnap int64
	for {
		ev := read()
		if ev.Event == "done" {
			break
		}
		if ev.Event != "commit" {
			t.Fatalf("unexpected event %+v", ev)
		}
		want[ev.Snapshot] = ev
		lastSnap = ev.Snapshot
		if !ev.Wait {
			continue
		}
		waitFor(t, ev.Snapshot, followers...)
		switch ev.Snapshot {
		case 4:
			// Every scan is past 1..3: expiring them must not disturb anyone, and a scan that
			// starts now from snapshot 1 is clamped up to the earliest (Java's from-snapshot).
			expireSnapshots(t, tbl.Path(), 1, 3)
			late = follow(scanCtx, t, "late-from-1", builder().WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(1))
			followers = append(followers, late)
			waitFor(t, 4, late)
		case 8:
			expireSnapshots(t, tbl.Path(), 4, 7)
		}
		goAhead()
	}
	if lastSnap != 9 {
		t.Fatalf("script committed up to snapshot %d, want 9", lastSnap)
	}
	waitFor(t, lastSnap, followers...)
	stopScans()
	for _, f := range followers {
		<-f.done
	}

	// Per snapshot, the full reader equals pypaimon's read of what the commit added.
	byID := func(f *follower) map[int64]streamResult {
		m := map[int64]streamResult{}
		for _, r := range f.snapshotResults() {
			if _, dup := m[r.snapshot]; dup {
				t.Fatalf("scan %s emitted snapshot %d twice", f.name, r.snapshot)
			}
			m[r.snapshot] = r
		}
		return m
	}
	got := byID(all)
	for id := int64(1); id <= lastSnap; id++ {
		ev, r := want[id], got[id]
		if _, ok := got[id]; !ok {
			t.Errorf("snapshot %d (%s): no plan from the Go scan", id, ev.Name)
			continue
		}
		if r.first != (id == 1) {
			t.Errorf("snapshot %d: FirstPlan=%v", id, r.first)
		}
		if r.schemaID != ev.SchemaID {
			t.Errorf("snapshot %d (%s): schema id %d, pypaimon's snapshot says %d", id, ev.Name, r.schemaID, ev.SchemaID)
		}
		if r.skipped != !ev.Scanned {
			t.Errorf("snapshot %d (%s, %s): skipped=%v, pypaimon scanned=%v", id, ev.Name, ev.Kind, r.skipped, ev.Scanned)
		}
		if d := DiffLines(ev.Rows, r.lines); d != "" {
			t.Errorf("snapshot %d (%s): Go rows differ from pypaimon's read of the commit:\n%s", id, ev.Name, d)
		}
		if !r.committed || r.next != id+1 {
			t.Errorf("snapshot %d: consumer commit %v next %d", id, r.committed, r.next)
		}
	}
	if len(got) != int(lastSnap) {
		t.Errorf("full reader emitted %d plans, want %d", len(got), lastSnap)
	}
	// The overwrite is skipped, not read as changes: its replaced rows are not retracted and
	// its new rows are not emitted (Java without streaming-read-overwrite).
	if ev := want[4]; ev.Kind != "OVERWRITE" || len(got[4].lines) != 0 || len(ev.Written) == 0 {
		t.Errorf("snapshot 4 should be an OVERWRITE emitted as nothing: %+v / %d rows", ev.Kind, len(got[4].lines))
	}

	// The shards split each snapshot exactly, the first plan included.
	s0, s1 := byID(shard0), byID(shard1)
	for id := int64(1); id <= lastSnap; id++ {
		for b, r := range map[int32]streamResult{0: s0[id], 1: s1[id]} {
			for bucket := range r.buckets {
				if bucket != b {
					t.Errorf("snapshot %d: shard %d read bucket %d", id, b, bucket)
				}
			}
		}
		union := append(append([]string(nil), s0[id].lines...), s1[id].lines...)
		sortLines(union)
		if d := DiffLines(want[id].Rows, union); d != "" {
			t.Errorf("snapshot %d: bucket shards together differ from pypaimon:\n%s", id, d)
		}
		if id == 1 && (len(s0[1].lines) == 0 || len(s1[1].lines) == 0) {
			t.Errorf("snapshot 1 should have rows in both buckets (%d, %d): the shard test proves nothing", len(s0[1].lines), len(s1[1].lines))
		}
	}

	// The late joiner asked for snapshot 1 after 1..3 were expired: it starts at 4.
	lg := late.snapshotResults()
	if len(lg) == 0 || lg[0].snapshot != 4 || !lg[0].skipped || lg[0].first {
		t.Fatalf("late joiner: first plan %+v, want the skipped snapshot 4", lg)
	}
	for _, r := range lg {
		if d := DiffLines(want[r.snapshot].Rows, r.lines); d != "" {
			t.Errorf("late joiner snapshot %d:\n%s", r.snapshot, d)
		}
	}
	if lg[len(lg)-1].snapshot != lastSnap || len(lg) != int(lastSnap-3) {
		t.Errorf("late joiner read %d plans ending at %d", len(lg), lg[len(lg)-1].snapshot)
	}

	// pypaimon's ConsumerManager sees the position the Go scan committed.
	gen.Stdin.Close()
	if err := gen.Wait(); err != nil {
		t.Fatalf("gen_stream.py: %v\n%s", err, gen.Stderr())
	}
	out := testenv.RunPython(t, script, "consumer", wh, "db.stream", "interop")
	var c struct {
		NextSnapshot *int64 `json:"nextSnapshot"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.NextSnapshot == nil || *c.NextSnapshot != lastSnap+1 {
		t.Fatalf("pypaimon reads consumer interop as %q (%v), want nextSnapshot %d", out, err, lastSnap+1)
	}
}
