package checkpoint

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func add(t *testing.T, tr *Tracker, id int64) func() {
	t.Helper()
	ack, err := tr.Add(id)
	must(t, err)
	return ack
}

func wantCommittable(t *testing.T, tr *Tracker, want int64) {
	t.Helper()
	if got := tr.Committable(); got != want {
		t.Fatalf("Committable = %d, want %d", got, want)
	}
}

func TestStartIsCommittableBeforeAnythingCompletes(t *testing.T) {
	tr := New(3)
	wantCommittable(t, tr, 3)
	must(t, tr.Begin(5))
	ack := add(t, tr, 5)
	wantCommittable(t, tr, 3)
	must(t, tr.End(5))
	wantCommittable(t, tr, 3) // batch still in flight
	ack()
	wantCommittable(t, tr, 6) // 3 and 4 skipped, 5 done
}

func TestSkippedSnapshotBetweenBegunOnes(t *testing.T) {
	tr := New(5)
	must(t, tr.Begin(5))
	a5 := add(t, tr, 5)
	must(t, tr.End(5))
	must(t, tr.Begin(7)) // 6 was COMPACT, never begun
	a7 := add(t, tr, 7)
	must(t, tr.End(7))
	a7() // later snapshot first: nothing may move
	wantCommittable(t, tr, 5)
	a5()
	wantCommittable(t, tr, 8)
}

func TestPartialProgress(t *testing.T) {
	tr := New(1)
	must(t, tr.Begin(1))
	a1 := add(t, tr, 1)
	must(t, tr.End(1))
	must(t, tr.Begin(2))
	a2 := add(t, tr, 2)
	must(t, tr.End(2))
	must(t, tr.Begin(4))
	a4 := add(t, tr, 4)
	a1()
	wantCommittable(t, tr, 2)
	a4()
	wantCommittable(t, tr, 2) // 4 not ended, 2 not acked
	a2()
	wantCommittable(t, tr, 3) // 4 is begun but not ended
	must(t, tr.End(4))
	wantCommittable(t, tr, 5)
}

func TestEmptySnapshotsCompleteOnEnd(t *testing.T) {
	tr := New(10)
	must(t, tr.Begin(10))
	must(t, tr.End(10))
	wantCommittable(t, tr, 11)
	must(t, tr.Begin(11))
	must(t, tr.Begin(12))
	a12 := add(t, tr, 12)
	must(t, tr.End(12))
	must(t, tr.End(11))
	wantCommittable(t, tr, 12) // 11 empty and ended; 12 still in flight
	a12()
	wantCommittable(t, tr, 13)
}

func TestBatchesAddedWhileEarlierInFlight(t *testing.T) {
	tr := New(1)
	must(t, tr.Begin(1))
	a := add(t, tr, 1)
	a()
	// All batches so far acked, but the snapshot is not ended: more may come.
	wantCommittable(t, tr, 1)
	b := add(t, tr, 1)
	must(t, tr.End(1))
	wantCommittable(t, tr, 1)
	b()
	wantCommittable(t, tr, 2)
}

func TestDoubleAckIsHarmless(t *testing.T) {
	tr := New(1)
	must(t, tr.Begin(1))
	a1 := add(t, tr, 1)
	a2 := add(t, tr, 1)
	must(t, tr.End(1))
	a1()
	a1()
	a1()
	if n := tr.InFlight(); n != 1 {
		t.Fatalf("InFlight after acking one batch three times = %d, want 1", n)
	}
	wantCommittable(t, tr, 1) // a2 still pending: a repeated a1 must not release it
	a2()
	wantCommittable(t, tr, 2)
	a2()
	if n := tr.InFlight(); n != 0 {
		t.Fatalf("InFlight = %d, want 0", n)
	}
	// Concurrent duplicates of one ack.
	must(t, tr.Begin(2))
	b1 := add(t, tr, 2)
	b2 := add(t, tr, 2)
	must(t, tr.End(2))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(b1)
	}
	wg.Wait()
	if n := tr.InFlight(); n != 1 {
		t.Fatalf("InFlight after 16 concurrent acks of one batch = %d, want 1", n)
	}
	wantCommittable(t, tr, 2)
	b2()
	wantCommittable(t, tr, 3)
}

func TestMisuseErrors(t *testing.T) {
	tr := New(5)
	check := func(name string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, want)
		}
	}
	addErr := func(id int64) error { _, err := tr.Add(id); return err }

	check("begin before start", tr.Begin(4), "before the start snapshot 5")
	check("add not begun", addErr(5), "not begun")
	check("end not begun", tr.End(5), "not begun")
	must(t, tr.Begin(6))
	ack := add(t, tr, 6)
	check("begin same id", tr.Begin(6), "increasing order")
	check("begin lower id", tr.Begin(5), "increasing order")
	must(t, tr.End(6))
	check("end twice", tr.End(6), "already ended")
	check("add after end", addErr(6), "already ended")
	ack()
	wantCommittable(t, tr, 7)
	check("add to completed", addErr(6), "already ended")
	check("end completed", tr.End(6), "already ended")
	check("add to skipped id", addErr(5), "not begun")
	check("begin max", tr.Begin(1<<63-1), "no next snapshot")
	wantCommittable(t, tr, 7) // misuse changed nothing
	if n := tr.InFlight(); n != 0 {
		t.Fatalf("InFlight = %d after misuse, want 0", n)
	}
}

func TestInFlightAndWait(t *testing.T) {
	tr := New(1)
	must(t, tr.Begin(1))
	acks := []func(){add(t, tr, 1), add(t, tr, 1), add(t, tr, 1)}
	if n := tr.InFlight(); n != 3 {
		t.Fatalf("InFlight = %d, want 3", n)
	}
	ctx := context.Background()
	must(t, tr.Wait(ctx, 4))
	must(t, tr.Wait(ctx, 0)) // no limit

	// Cancelled wait returns the context error.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := tr.Wait(cctx, 3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with 3 in flight and limit 3 = %v, want deadline exceeded", err)
	}

	// A waiter wakes when an ack brings InFlight below the limit, not before.
	done := make(chan error, 1)
	go func() { done <- tr.Wait(ctx, 2) }()
	acks[0]()
	select {
	case err := <-done:
		t.Fatalf("Wait(2) returned %v with 2 still in flight", err)
	case <-time.After(30 * time.Millisecond):
	}
	acks[1]()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Wait(2) did not return after InFlight dropped to 1")
	}
	acks[2]()
	if n := tr.InFlight(); n != 0 {
		t.Fatalf("InFlight = %d, want 0", n)
	}
}

func TestQueueCompactionKeepsOrder(t *testing.T) {
	// Many snapshots complete at the head while one late snapshot holds the
	// tail: exercises the slice compaction path.
	tr := New(1)
	var held func()
	for id := int64(1); id <= 1000; id++ {
		must(t, tr.Begin(id))
		a := add(t, tr, id)
		must(t, tr.End(id))
		if id == 700 {
			held = a
			continue
		}
		a()
	}
	wantCommittable(t, tr, 700)
	held()
	wantCommittable(t, tr, 1001)
	if len(tr.byID) != 0 {
		t.Fatalf("%d snapshots retained after completion", len(tr.byID))
	}
}

// TestRandomizedOrdering runs a plan of snapshots (random gaps, random batch
// counts incl. zero) through the tracker while workers ack batches in random
// order, some twice and concurrently, and a checker samples Committable. The
// oracle is recorded by the test itself before each tracker call, so whatever
// the tracker has seen the oracle has seen too.
func TestRandomizedOrdering(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		runRandomized(t, seed)
	}
}

type oracleSnap struct {
	id    int64
	added atomic.Int64
	acked atomic.Int64
	ended atomic.Bool
}

func runRandomized(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed*7919))
	start := int64(rng.IntN(20) + 1)
	var plan []*oracleSnap
	id := start + int64(rng.IntN(3))
	for range 150 {
		plan = append(plan, &oracleSnap{id: id})
		id += int64(1 + rng.IntN(3)) // gaps = skipped snapshots
	}
	final := plan[len(plan)-1].id + 1

	tr := New(start)
	type job struct {
		ack  func()
		snap *oracleSnap
		dup  bool
	}
	jobs := make(chan job, 64)
	var workers sync.WaitGroup
	for w := range 6 {
		wrng := rand.New(rand.NewPCG(seed, uint64(w)))
		workers.Go(func() {
			var held []job
			flush := func(j job) {
				j.snap.acked.Add(1) // oracle first
				if j.dup {
					var wg sync.WaitGroup
					wg.Go(j.ack)
					wg.Go(j.ack)
					wg.Wait()
				} else {
					j.ack()
				}
			}
			for j := range jobs {
				held = append(held, j)
				// Ack a random held batch now and then, so acks are reordered
				// across snapshots and workers.
				for len(held) > 0 && wrng.IntN(3) == 0 {
					k := wrng.IntN(len(held))
					flush(held[k])
					held[k] = held[len(held)-1]
					held = held[:len(held)-1]
				}
			}
			wrng.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
			for _, j := range held {
				flush(j)
			}
		})
	}

	stop := make(chan struct{})
	var checker sync.WaitGroup
	var violations atomic.Int64
	checker.Go(func() {
		prev := start
		for {
			select {
			case <-stop:
				return
			default:
			}
			c := tr.Committable()
			if c < prev {
				t.Errorf("seed %d: Committable went back from %d to %d", seed, prev, c)
				violations.Add(1)
			}
			prev = c
			for _, s := range plan {
				if s.id >= c {
					break
				}
				// Every snapshot below c must be ended and fully acked.
				if !s.ended.Load() || s.acked.Load() < s.added.Load() {
					t.Errorf("seed %d: Committable %d but snapshot %d ended=%v acked=%d/%d",
						seed, c, s.id, s.ended.Load(), s.acked.Load(), s.added.Load())
					violations.Add(1)
					return
				}
			}
		}
	})

	for _, s := range plan {
		must(t, tr.Begin(s.id))
		n := rng.IntN(6) // zero batches is common
		for range n {
			s.added.Add(1) // oracle first
			ack, err := tr.Add(s.id)
			must(t, err)
			jobs <- job{ack: ack, snap: s, dup: rng.IntN(5) == 0}
		}
		s.ended.Store(true)
		must(t, tr.End(s.id))
	}
	close(jobs)
	workers.Wait()
	close(stop)
	checker.Wait()
	if violations.Load() > 0 {
		return
	}
	if got := tr.Committable(); got != final {
		t.Fatalf("seed %d: final Committable = %d, want %d", seed, got, final)
	}
	if n := tr.InFlight(); n != 0 {
		t.Fatalf("seed %d: InFlight = %d at the end", seed, n)
	}
}
