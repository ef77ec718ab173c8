package input

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// fakeLagSource is a table's snapshot history for the lag monitor: ids
// earliest..latest, snapshot id committed at base + id seconds with id rows,
// counting the reads of every snapshot file.
type fakeLagSource struct {
	mu               sync.Mutex
	earliest, latest int64
	base             time.Time
	missing          map[int64]bool
	reads            map[int64]int
	bounds           int
	err              error
}

func (f *fakeLagSource) SnapshotBounds(context.Context) (int64, int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bounds++
	return f.earliest, f.latest, f.latest > 0, nil
}

func (f *fakeLagSource) SnapshotMeta(_ context.Context, id int64) (snapshotMeta, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads[id]++
	if f.err != nil {
		return snapshotMeta{}, f.err
	}
	if id < f.earliest || id > f.latest || f.missing[id] {
		return snapshotMeta{}, fmt.Errorf("snapshot %d: %w", id, fileio.ErrNotExist)
	}
	return snapshotMeta{Time: f.base.Add(time.Duration(id) * time.Second), Records: id}, nil
}

func newFakeLag(earliest, latest int64) (*fakeLagSource, *lagMonitor, *time.Time) {
	f := &fakeLagSource{earliest: earliest, latest: latest, base: time.Unix(1_700_000_000, 0), missing: map[int64]bool{}, reads: map[int64]int{}}
	m := newLagMonitor(f)
	now := f.base.Add(100 * time.Second)
	m.now = func() time.Time { return now }
	return f, m, &now
}

func TestLagValues(t *testing.T) {
	ctx := context.Background()
	f, m, now := newFakeLag(3, 10)
	// Position 8: snapshots 8, 9, 10 are not delivered; the oldest was
	// committed at base+8s, now is base+100s.
	v, err := m.compute(ctx, 8)
	if err != nil {
		t.Fatal(err)
	}
	if want := (lagValues{Snapshots: 3, Seconds: 92, RowsPending: 8 + 9 + 10, Headroom: 5}); v != want {
		t.Fatalf("position 8: %+v, want %+v", v, want)
	}
	// Blocked: the position stays, time passes, snapshots arrive. The lag
	// grows, and only the new snapshot file is read.
	*now = now.Add(30 * time.Second)
	f.latest = 11
	v, _ = m.compute(ctx, 8)
	if want := (lagValues{Snapshots: 4, Seconds: 122, RowsPending: 8 + 9 + 10 + 11, Headroom: 5}); v != want {
		t.Fatalf("blocked: %+v, want %+v", v, want)
	}
	// Caught up: nothing pending, the headroom is the position's.
	v, _ = m.compute(ctx, 12)
	if want := (lagValues{Headroom: 9}); v != want {
		t.Fatalf("caught up: %+v, want %+v", v, want)
	}
	for id, n := range f.reads {
		if n != 1 {
			t.Errorf("snapshot %d read %d times, want once (cached by id)", id, n)
		}
	}
	if len(m.cache) != 0 {
		t.Errorf("cache keeps %d snapshots behind the position", len(m.cache))
	}
}

// A position that expired reports a headroom ≤ 0 and the lag from the
// earliest retained snapshot; snapshots that vanish mid-walk are skipped.
func TestLagExpiredPosition(t *testing.T) {
	f, m, _ := newFakeLag(5, 8)
	f.missing[5] = true
	v, err := m.compute(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := (lagValues{Snapshots: 7, Seconds: 94, RowsPending: 6 + 7 + 8, Headroom: -3}); v != want {
		t.Fatalf("%+v, want %+v", v, want)
	}
}

// A position far behind sums at most lagWalkMax snapshots.
func TestLagWalkBounded(t *testing.T) {
	f, m, _ := newFakeLag(1, 5000)
	v, err := m.compute(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Snapshots != 5000 || v.RowsPending != lagWalkMax*(lagWalkMax+1)/2 {
		t.Fatalf("%+v: want 5000 snapshots and the rows of the first %d", v, lagWalkMax)
	}
	if len(f.reads) != lagWalkMax || len(m.cache) != lagWalkMax {
		t.Fatalf("%d snapshots read, %d cached, want %d", len(f.reads), len(m.cache), lagWalkMax)
	}
	// Moving on by 10 reads only the 10 snapshots entering the window.
	if _, err := m.compute(context.Background(), 11); err != nil {
		t.Fatal(err)
	}
	if len(f.reads) != lagWalkMax+10 {
		t.Fatalf("%d snapshots read after moving by 10, want %d", len(f.reads), lagWalkMax+10)
	}
}

func TestLagErrorAndEmptyTable(t *testing.T) {
	f, m, _ := newFakeLag(1, 3)
	f.err = errors.New("503")
	if _, err := m.compute(context.Background(), 1); err == nil {
		t.Fatal("a failed snapshot read must fail the round, not report a partial lag")
	}
	f.err, f.latest = nil, 0
	if v, err := m.compute(context.Background(), 1); err != nil || v != (lagValues{}) {
		t.Fatalf("empty table: %+v, %v", v, err)
	}
}

// A group reports the worst of its slots: the largest lag and the smallest
// headroom.
func TestWorstLag(t *testing.T) {
	got := worstLag(map[int32]lagValues{
		0: {Snapshots: 1, Seconds: 50, RowsPending: 10, Headroom: 7},
		1: {Snapshots: 4, Seconds: 20, RowsPending: 40, Headroom: 9},
		2: {Headroom: 12},
	})
	if want := (lagValues{Snapshots: 4, Seconds: 50, RowsPending: 40, Headroom: 7}); got != want {
		t.Fatalf("%+v, want %+v", got, want)
	}
}

// While the table is idle a round costs one existence check; a new
// snapshot, or boundsRefresh passing, reads both hints again.
func TestSnapshotBoundsCached(t *testing.T) {
	var latestCalls, earliestCalls, existsCalls int
	latest, earliest := int64(5), int64(2)
	now := time.Unix(0, 0)
	b := &snapshotBounds{
		latest:   func(context.Context) (int64, bool, error) { latestCalls++; return latest, true, nil },
		earliest: func(context.Context) (int64, bool, error) { earliestCalls++; return earliest, true, nil },
		exists:   func(_ context.Context, id int64) (bool, error) { existsCalls++; return id <= latest, nil },
		now:      func() time.Time { return now },
	}
	check := func(wantE, wantL int64, wantLatestCalls, wantEarliestCalls, wantExists int) {
		t.Helper()
		e, l, ok, err := b.get(context.Background())
		if err != nil || !ok || e != wantE || l != wantL {
			t.Fatalf("bounds %d..%d ok %v err %v, want %d..%d", e, l, ok, err, wantE, wantL)
		}
		if latestCalls != wantLatestCalls || earliestCalls != wantEarliestCalls || existsCalls != wantExists {
			t.Fatalf("calls: latest %d earliest %d exists %d, want %d %d %d", latestCalls, earliestCalls, existsCalls, wantLatestCalls, wantEarliestCalls, wantExists)
		}
	}
	check(2, 5, 1, 1, 0)
	for i := 0; i < 10; i++ {
		now = now.Add(time.Second)
	}
	check(2, 5, 1, 1, 1) // idle: one existence check
	check(2, 5, 1, 1, 2)
	latest, earliest = 6, 3 // a commit, and the expiry its writer ran
	check(3, 6, 2, 2, 3)
	now = now.Add(boundsRefresh)
	earliest = 4 // an expiry run on its own
	check(4, 6, 3, 3, 4)
}

// lagFakeSource is a fakeSource whose table history the lag monitor sees.
type lagFakeSource struct {
	*fakeSource
	*fakeLagSource
}

// The input's monitor reports from the acknowledged position: a batch
// read but not acknowledged is still lag, and the values reach the hook a
// group installs (or the gauges) once per poll interval.
func TestInputReportsLagOfUnacknowledgedRows(t *testing.T) {
	src := &fakeSource{plans: []*fakePlan{
		{SnapshotID: 10, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: ids(1, 2)}}}},
	}}
	hist, _, _ := newFakeLag(8, 10)
	in := directInput(t, src, "batch_size: 2\npoll_interval: 10ms\n")
	in.open = func(context.Context, config) (source, error) { return lagFakeSource{src, hist}, nil }
	got := make(chan lagValues, 100)
	in.lagReport = func(v lagValues) {
		select {
		case got <- v:
		default:
		}
	}
	ctx := context.Background()
	if err := in.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close(ctx) }()
	_, ack, err := in.ReadBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wait := func(what string, ok func(lagValues) bool) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case v := <-got:
				if ok(v) {
					return
				}
			case <-deadline:
				t.Fatalf("no report with %s", what)
			}
		}
	}
	wait("snapshot 10 pending", func(v lagValues) bool { return v.Snapshots == 1 && v.RowsPending == 10 && v.Headroom == 2 })
	_ = ack(ctx, nil)
	go func() { _, _, _ = in.ReadBatch(ctx) }() // ends snapshot 10, then waits in Next
	wait("caught up", func(v lagValues) bool { return v == lagValues{Headroom: 3} })
}
