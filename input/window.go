package input

import (
	"context"
	"sync"
)

// window bounds what the input has delivered and the pipeline not yet
// acknowledged (checkpoint_limit rows, checkpoint_limit_bytes of bodies).
// Reading waits before a batch is read while either is at its limit, so a
// built batch is never abandoned and the bound is exceeded by at most the
// batch read after the wait. The slot readers of one replica share one
// window: the limits bound the replica's memory, not each slot's.
type window struct {
	maxRows  int
	maxBytes int64 // 0: no byte limit

	mu    sync.Mutex
	rows  int
	bytes int64
	// changed is closed (and cleared) when something is released, to wake
	// wait; allocated only while someone waits.
	changed chan struct{}
}

func newWindow(maxRows int, maxBytes int64) *window {
	return &window{maxRows: maxRows, maxBytes: maxBytes}
}

func (w *window) full() bool {
	return w.rows >= w.maxRows || (w.maxBytes > 0 && w.bytes >= w.maxBytes)
}

// wait blocks until the window has room or ctx is done.
func (w *window) wait(ctx context.Context) error {
	for {
		w.mu.Lock()
		if !w.full() {
			w.mu.Unlock()
			return nil
		}
		if w.changed == nil {
			w.changed = make(chan struct{})
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (w *window) release(rows int, bytes int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rows -= rows
	w.bytes -= bytes
	if w.changed != nil {
		close(w.changed)
		w.changed = nil
	}
}

// lease is one reader's share of a window. Closing it gives back what its
// batches still hold: a slot's reader that is dropped with batches
// unacknowledged (its replays go with it) must not shrink the window the
// replica's other slots read through.
type lease struct {
	w      *window
	mu     sync.Mutex
	rows   int
	bytes  int64
	closed bool
}

func (w *window) lease() *lease { return &lease{w: w} }

// take counts a delivered batch; release, called when the batch is
// acknowledged or dropped, gives its room back (later calls, and calls
// after close, do nothing). A closed lease takes nothing.
func (l *lease) take(rows int, bytes int64) (release func()) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return func() {}
	}
	l.rows += rows
	l.bytes += bytes
	l.w.mu.Lock()
	l.w.rows += rows
	l.w.bytes += bytes
	l.w.mu.Unlock()
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.closed {
				return
			}
			l.rows -= rows
			l.bytes -= bytes
			l.w.release(rows, bytes)
		})
	}
}

// close gives back everything the lease still holds.
func (l *lease) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	l.w.release(l.rows, l.bytes)
	l.rows, l.bytes = 0, 0
}

// bodyBytes is the size of the batch's message bodies.
func (b *sentBatch) bodyBytes() int64 {
	var n int64
	for _, r := range b.ranges {
		start := 0
		if r.from > 0 {
			start = r.rows.ends[r.from-1]
		}
		n += int64(r.rows.ends[r.to-1] - start)
	}
	return n
}
