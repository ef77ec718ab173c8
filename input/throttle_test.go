package input

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The throttle lets a window's budget through at once and makes the next
// take wait for the following window; a cancelled context ends the wait.
func TestThrottleWindows(t *testing.T) {
	const win = 150 * time.Millisecond
	th := newThrottle(config{ThrottleInterval: win, ThrottleMaxFiles: 3, ThrottleMaxSnapshots: 1, ThrottleMaxRows: 10})
	ctx := context.Background()

	start := time.Now()
	if err := th.takeFiles(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := th.takeFiles(ctx, 1); err != nil { // 3 of 3: still this window
		t.Fatal(err)
	}
	if d := time.Since(start); d >= win {
		t.Fatalf("budget within one window waited %v", d)
	}
	if err := th.takeFiles(ctx, 1); err != nil { // over budget: next window
		t.Fatal(err)
	}
	if d := time.Since(start); d < win {
		t.Fatalf("over-budget take returned after %v, want ≥ %v", d, win)
	}

	// A single request larger than the limit passes at a window's start
	// instead of blocking forever.
	th2 := newThrottle(config{ThrottleInterval: time.Hour, ThrottleMaxFiles: 2})
	done := make(chan error, 1)
	go func() { done <- th2.takeFiles(ctx, 5) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("an oversized first request blocked")
	}

	// Rows are charged after the fact: once spent, waitRows blocks until
	// the window rolls, or until the context is cancelled.
	th3 := newThrottle(config{ThrottleInterval: time.Hour, ThrottleMaxRows: 10})
	if err := th3.waitRows(ctx); err != nil {
		t.Fatal(err)
	}
	th3.addRows(10)
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := th3.waitRows(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("spent row budget: want the wait cancelled, got %v", err)
	}

	// No limits: nothing ever waits.
	free := newThrottle(config{})
	for i := 0; i < 1000; i++ {
		if err := free.takeFiles(ctx, 100); err != nil {
			t.Fatal(err)
		}
		if err := free.takeSnapshot(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
