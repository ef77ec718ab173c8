package input

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/group"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// fakeMember is a group membership whose fence accepts or refuses.
type fakeMember struct {
	mu      sync.Mutex
	refuse  bool
	fenced  []int64
	closing bool
}

func (m *fakeMember) Fence(_ context.Context, _ int32, next int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refuse {
		return group.ErrNotOwner
	}
	m.fenced = append(m.fenced, next)
	return nil
}

func (m *fakeMember) Close() {}

// groupOver is a group input with one slot of two assigned, reading src.
func groupOver(t *testing.T, src *fakeSource, m *fakeMember) *groupInput {
	t.Helper()
	g := newTestGroup(t, "commit_period: 20ms\n", func(config) *fakeSource { return src })
	g.member = m
	g.Assigned(context.Background(), []int32{0})
	return g
}

// newTestGroup is a group input of two slots, none assigned yet, whose slot
// readers read the source open returns for their config.
func newTestGroup(t *testing.T, yaml string, open func(config) *fakeSource) *groupInput {
	t.Helper()
	pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\nconsumer_id: c\n"+yaml+"group:\n  seed_brokers: [ \"localhost:1\" ]\n  slots: 2\n", service.NewEnvironment())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	g := newGroupInput(cfg, func(_ context.Context, c config) (source, error) { return open(c), nil }, service.MockResources())
	g.member, g.nslots = &fakeMember{}, 2
	t.Cleanup(func() { g.stop() })
	return g
}

// A revoked slot is drained before it moves: Revoked waits for the
// acknowledgement of what the slot delivered, then stores the slot's
// progress (through the fence) and only then returns.
func TestGroupRevokeDrains(t *testing.T) {
	src := &fakeSource{nextCh: make(chan struct{}), plans: []*fakePlan{{SnapshotID: 3, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: []int64{1, 2, 3}}}}}}}
	m := &fakeMember{}
	g := groupOver(t, src, m)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, ack, err := g.ReadBatch(ctx)
	if err != nil || len(b) != 3 {
		t.Fatalf("first batch: %d messages, %v", len(b), err)
	}
	// The revoke may come before the slot's reader noticed that snapshot 3
	// was read to its end (the next plan not asked for yet): closing the
	// reader notices it, so the slot's consumer still moves to 4.
	done := make(chan struct{})
	go func() { g.Revoked(ctx, []int32{0}); close(done) }()
	select {
	case <-done:
		t.Fatal("Revoked returned while a delivered batch was unacknowledged")
	case <-time.After(300 * time.Millisecond):
	}
	if slices.Contains(src.commitLog(), 4) {
		t.Fatalf("the slot's consumer moved past snapshot 3 before its rows were acknowledged: %v", src.commitLog())
	}
	if err := ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Revoked did not return after the acknowledgement")
	}
	if log := src.commitLog(); len(log) == 0 || log[len(log)-1] != 4 {
		t.Fatalf("after the drain the slot's consumer should be at 4: %v", log)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.fenced, 4) {
		t.Fatalf("the commit of 4 was not fenced: %v", m.fenced)
	}
}

// A lost slot (the session expired: another replica owns it already) is
// not drained, and its position is not written: the fence refuses.
func TestGroupLostSlotWritesNothing(t *testing.T) {
	src := &fakeSource{plans: []*fakePlan{{SnapshotID: 3, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: []int64{1, 2, 3}}}}}}}
	m := &fakeMember{}
	g := groupOver(t, src, m)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, ack, err := g.ReadBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := len(src.commitLog())
	m.mu.Lock()
	m.refuse = true
	m.mu.Unlock()
	if err := ack(ctx, nil); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	g.Lost(ctx, []int32{0})
	if log := src.commitLog(); len(log) != before {
		t.Fatalf("a lost slot's consumer was written: %v (before: %d writes)", log, before)
	}
}

// The slots of a replica read through one window; a slot lost with a batch
// unacknowledged gives the batch's room back, so the replica's next slot
// is not starved by rows that will never be acknowledged here.
func TestGroupLostSlotFreesWindow(t *testing.T) {
	src := &fakeSource{plans: []*fakePlan{{SnapshotID: 3, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: []int64{1, 2, 3}}}}}}}
	g := groupOver(t, src, &fakeMember{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := g.ReadBatch(ctx); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	slot := g.slots[0]
	g.mu.Unlock()
	if slot.in.win.w != g.window {
		t.Fatal("the slot's reader does not read through the replica's window")
	}
	g.window.mu.Lock()
	rows, bytes := g.window.rows, g.window.bytes
	g.window.mu.Unlock()
	if rows != 3 || bytes < int64(3*len(`{"id":1}`)) {
		t.Fatalf("the replica's window holds %d rows, %d bytes; want the 3 rows delivered and their bodies", rows, bytes)
	}
	g.Lost(ctx, []int32{0})
	g.window.mu.Lock()
	rows, bytes = g.window.rows, g.window.bytes
	g.window.mu.Unlock()
	if rows != 0 || bytes != 0 {
		t.Fatalf("after the slot was lost the window still holds %d rows, %d bytes", rows, bytes)
	}
}

// The slot readers of a replica read as many splits at a time as the
// replica's split semaphore allows, not one each; a split that fails and is
// reopened gives its place back meanwhile, and every row still arrives.
func TestGroupSlotsShareSplitReaders(t *testing.T) {
	srcs := map[int]*fakeSource{
		0: {plans: []*fakePlan{{SnapshotID: 3, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: ids(1, 6), recordSize: 3, failAt: 4}}}}}},
		1: {plans: []*fakePlan{{SnapshotID: 3, Splits: []*fakeSplit{{Bucket: 1, Handle: fakeRows{ids: ids(11, 16), recordSize: 3}}}}}},
	}
	var metas sync.Map // slot → the metadata cache its table is opened with
	g := newTestGroup(t, "batch_size: 3\n", func(c config) *fakeSource {
		metas.Store(c.Read.ShardIndex, c.meta)
		return srcs[c.Read.ShardIndex]
	})
	g.splitReaders = make(chan struct{}, 1)
	g.Assigned(context.Background(), []int32{0, 1})
	defer func() {
		// The slots also share one metadata cache: each snapshot's
		// manifests are decoded once per replica.
		m0, ok0 := metas.Load(0)
		m1, ok1 := metas.Load(1)
		if !ok0 || !ok1 || m0.(*paimon.MetadataCache) == nil || m0 != m1 {
			t.Errorf("slots opened their tables with metadata caches %v and %v, want one shared", m0, m1)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	readsOf := func(s *fakeSource) int {
		s.mu.Lock()
		defer s.mu.Unlock()
		n := 0
		for _, r := range s.reads {
			n += r
		}
		return n
	}
	b, ack, err := g.ReadBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := 0
	if body, _ := b[0].AsBytes(); string(body) == `{"id":11}` {
		first = 1
	}
	time.Sleep(100 * time.Millisecond)
	if n := readsOf(srcs[1-first]); n != 0 {
		t.Fatalf("slot %d opened its split (%d reads) while slot %d held the replica's only split reader", 1-first, n, first)
	}
	got := map[string]int{}
	for {
		for _, m := range b {
			body, _ := m.AsBytes()
			got[string(body)]++
		}
		if err := ack(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if len(got) == 12 {
			break
		}
		if b, ack, err = g.ReadBatch(ctx); err != nil {
			t.Fatalf("after %d rows: %v", len(got), err)
		}
	}
	for _, body := range append(idBodies(ids(1, 6)), idBodies(ids(11, 16))...) {
		if got[body] == 0 {
			t.Errorf("%s never delivered (got %v)", body, got)
		}
	}
}
