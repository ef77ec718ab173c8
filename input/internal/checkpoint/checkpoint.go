// Package checkpoint tracks which Paimon snapshots a streaming input has
// fully delivered, so that the consumer file (nextSnapshot) only ever moves
// past a snapshot once every message batch read from it, and from every
// earlier snapshot, has been acknowledged downstream.
//
// Benthos acknowledges batches in any order and from many goroutines; the
// input plans snapshots in increasing id order and emits each snapshot's
// batches while earlier batches may still be in flight. The Tracker turns
// that into one monotonic value, Committable, which a periodic committer
// writes to the consumer file. Committing only values that came out of the
// Tracker is what makes the input at-least-once: after a crash, un-acked
// batches keep the position pinned and the reader resumes at the first
// incomplete snapshot.
package checkpoint

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// Tracker is the ordered ack tracker. All methods are safe for concurrent
// use; Begin, Add and End are normally called by the single goroutine that
// plans and emits, the ack functions by any goroutine.
//
// Cost: every operation is O(1) amortised. Snapshots live in a FIFO of the
// begun-but-not-yet-committable ones plus a map by id; a snapshot leaves
// both as soon as it and everything before it is complete, so memory is
// bounded by the snapshots still in flight, not by history.
type Tracker struct {
	mu sync.Mutex

	start int64
	// lastBegun is the id of the latest Begin, or start-1 before any.
	lastBegun int64
	// queue[head:] holds begun snapshots in id order that are not yet
	// behind the committable position.
	queue []*snapshotState
	head  int
	byID  map[int64]*snapshotState

	committable int64
	inFlight    int
	// changed is closed (and cleared) when InFlight drops, to wake Wait.
	// It is only allocated while someone waits.
	changed chan struct{}
}

type snapshotState struct {
	id      int64
	pending int
	ended   bool
}

// New returns a Tracker whose Committable starts at start: the consumer's
// current nextSnapshot, or the first snapshot the input will read. Snapshots
// below start cannot be begun.
func New(start int64) *Tracker {
	return &Tracker{
		start:       start,
		lastBegun:   start - 1,
		byID:        make(map[int64]*snapshotState),
		committable: start,
	}
}

// Begin announces that the input starts emitting snapshot snapshotID. Ids
// must be strictly increasing and at least the start. Ids that are never
// begun (a COMPACT snapshot the stream skips) need nothing: they are passed
// over when the next begun snapshot completes. A caller that wants the
// checkpoint to move past skipped snapshots right away, before the next
// data snapshot completes, may Begin and End them with no batches.
func (t *Tracker) Begin(snapshotID int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case snapshotID < t.start:
		return fmt.Errorf("checkpoint: begin snapshot %d: before the start snapshot %d", snapshotID, t.start)
	case snapshotID <= t.lastBegun:
		return fmt.Errorf("checkpoint: begin snapshot %d: snapshots must be begun in increasing order, last was %d", snapshotID, t.lastBegun)
	case snapshotID == math.MaxInt64:
		return fmt.Errorf("checkpoint: begin snapshot %d: no next snapshot id exists", snapshotID)
	}
	s := &snapshotState{id: snapshotID}
	t.lastBegun = snapshotID
	t.queue = append(t.queue, s)
	t.byID[snapshotID] = s
	return nil
}

func (t *Tracker) open(op string, snapshotID int64) (*snapshotState, error) {
	s, ok := t.byID[snapshotID]
	switch {
	case !ok && snapshotID > t.lastBegun:
		return nil, fmt.Errorf("checkpoint: %s snapshot %d: not begun", op, snapshotID)
	case !ok:
		return nil, fmt.Errorf("checkpoint: %s snapshot %d: not begun or already ended", op, snapshotID)
	case s.ended:
		return nil, fmt.Errorf("checkpoint: %s snapshot %d: already ended", op, snapshotID)
	}
	return s, nil
}

// Add registers one in-flight message batch of snapshot snapshotID, which
// must be begun and not ended. The returned ack marks the batch delivered;
// it may be called from any goroutine, and calls after the first are no-ops,
// so a retried or duplicated acknowledgement cannot release another batch.
func (t *Tracker) Add(snapshotID int64) (ack func(), err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.open("add batch to", snapshotID)
	if err != nil {
		return nil, err
	}
	s.pending++
	t.inFlight++
	acked := false // guarded by t.mu
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if acked {
			return
		}
		acked = true
		s.pending--
		t.inFlight--
		if t.changed != nil {
			close(t.changed)
			t.changed = nil
		}
		t.advance()
	}, nil
}

// End says snapshot snapshotID will get no more batches. A snapshot with no
// batches is complete as soon as it ends.
func (t *Tracker) End(snapshotID int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.open("end", snapshotID)
	if err != nil {
		return err
	}
	s.ended = true
	t.advance()
	return nil
}

// advance pops complete snapshots off the front of the queue. Each snapshot
// is popped once, so the loop is O(1) amortised per operation. Caller holds
// t.mu.
func (t *Tracker) advance() {
	for t.head < len(t.queue) {
		s := t.queue[t.head]
		if !s.ended || s.pending > 0 {
			break
		}
		t.committable = s.id + 1
		delete(t.byID, s.id)
		t.queue[t.head] = nil
		t.head++
	}
	if t.head == len(t.queue) {
		t.queue, t.head = t.queue[:0], 0
	} else if t.head >= 64 && t.head*2 >= len(t.queue) {
		n := copy(t.queue, t.queue[t.head:])
		clear(t.queue[n:])
		t.queue, t.head = t.queue[:n], 0
	}
}

// Committable is the highest nextSnapshot value that is safe to write to the
// consumer file: N+1 for the largest begun snapshot N such that every begun
// snapshot <= N has ended and all its batches are acknowledged. It is start
// until a snapshot completes and never decreases.
//
// It moves only when a begun snapshot completes: with 5 complete and 7 begun
// but not complete, it is 6 even if 6 was skipped, because the tracker only
// learns that 6 needs nothing when 7 is begun and chooses not to commit a
// snapshot whose reading has started but not finished. Resuming at 6 merely
// re-skips it.
func (t *Tracker) Committable() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.committable
}

// InFlight is the number of batches added and not yet acknowledged; the
// input compares it with its checkpoint_limit for back-pressure.
func (t *Tracker) InFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inFlight
}

// Wait blocks until InFlight() < maxInFlight or ctx is done, returning
// ctx.Err() in the latter case. maxInFlight <= 0 means no limit. Wait starts
// no goroutine; a cancelled Wait leaves nothing behind.
func (t *Tracker) Wait(ctx context.Context, maxInFlight int) error {
	if maxInFlight <= 0 {
		return nil
	}
	for {
		t.mu.Lock()
		if t.inFlight < maxInFlight {
			t.mu.Unlock()
			return nil
		}
		if t.changed == nil {
			t.changed = make(chan struct{})
		}
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
