package group

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// recorder is a Handler that records its calls and the slots it holds.
type recorder struct {
	mu      sync.Mutex
	held    map[int32]bool
	revoked []int32
	lost    []int32
}

func newRecorder() *recorder { return &recorder{held: map[int32]bool{}} }

func (r *recorder) Assigned(_ context.Context, s []int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range s {
		r.held[x] = true
	}
}

func (r *recorder) Revoked(_ context.Context, s []int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range s {
		delete(r.held, x)
	}
	r.revoked = append(r.revoked, s...)
}

func (r *recorder) Lost(_ context.Context, s []int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range s {
		delete(r.held, x)
	}
	r.lost = append(r.lost, s...)
}

func (r *recorder) slots() []int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int32
	for s := range r.held {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Against a real broker: two replicas split the slots between them, every
// slot owned by exactly one; the owner's fence commit succeeds and another
// replica's is refused; when one replica leaves, its slots are revoked
// through its handler and the other replica takes them all.
func TestSlotsSharedThroughRealGroup(t *testing.T) {
	broker := testenv.StartKafka(t)
	ctx := context.Background()
	cfg := Config{Brokers: []string{broker.Addr}, Name: "paimon-test", Topic: "__paimon_slots_test", Slots: 6, SessionTimeout: 10 * time.Second}
	ra, rb := newRecorder(), newRecorder()
	a, err := Join(ctx, cfg, ra)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	waitFor(t, "replica a owns every slot", func() bool { return len(ra.slots()) == 6 })
	bcfg := cfg
	bcfg.InstanceID = "replica-b"
	b, err := Join(ctx, bcfg, rb)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the slots split between a and b", func() bool {
		sa, sb := ra.slots(), rb.slots()
		return len(sa) > 0 && len(sb) > 0 && len(sa)+len(sb) == 6 && !overlaps(sa, sb)
	})
	if !slices.Equal(a.Owned(), ra.slots()) || !slices.Equal(b.Owned(), rb.slots()) {
		t.Fatalf("Owned %v/%v differs from the handlers' %v/%v", a.Owned(), b.Owned(), ra.slots(), rb.slots())
	}
	slotB := rb.slots()[0]
	if err := b.Fence(ctx, slotB, 42); err != nil {
		t.Fatalf("the owner's fence on slot %d: %v", slotB, err)
	}
	if err := a.Fence(ctx, slotB, 42); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("a fence on slot %d by a replica that does not own it: %v, want ErrNotOwner", slotB, err)
	}
	heldByB := rb.slots()
	b.Close()
	rb.mu.Lock()
	revoked := slices.Clone(rb.revoked)
	rb.mu.Unlock()
	slices.Sort(revoked)
	if !slices.Equal(revoked, heldByB) {
		t.Fatalf("b's handler revoked %v on leaving, b held %v", revoked, heldByB)
	}
	waitFor(t, "a owns every slot again", func() bool { return len(ra.slots()) == 6 })
	if err := a.Fence(ctx, slotB, 43); err != nil {
		t.Fatalf("the new owner's fence on slot %d: %v", slotB, err)
	}
	// Another slot count for the same topic is refused: it would move every
	// slot's share of the table.
	wrong := cfg
	wrong.Slots = 4
	if m, err := Join(ctx, wrong, newRecorder()); err == nil {
		m.Close()
		t.Fatal("joining with another slot count succeeded")
	}
}

func overlaps(a, b []int32) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
