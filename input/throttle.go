package input

import (
	"context"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/clock"
)

// throttle enforces the per-window limits of the throttle field. It is used
// only from ReadBatch, so it needs no lock. A single request larger than a
// limit is let through at the start of a window rather than blocking forever.
type throttle struct {
	interval                  time.Duration
	maxRows, maxFiles, maxSns int
	windowStart               time.Time
	rows, files, sns          int
}

func newThrottle(cfg config) *throttle {
	return &throttle{interval: cfg.ThrottleInterval, maxRows: cfg.ThrottleMaxRows, maxFiles: cfg.ThrottleMaxFiles, maxSns: cfg.ThrottleMaxSnapshots}
}

func (t *throttle) take(ctx context.Context, used *int, limit, n int) error {
	if limit <= 0 || n <= 0 {
		return nil
	}
	t.roll(time.Now())
	if *used > 0 && *used+n > limit {
		if err := t.sleepWindow(ctx); err != nil {
			return err
		}
	}
	*used += n
	return nil
}

func (t *throttle) roll(now time.Time) {
	if now.Sub(t.windowStart) >= t.interval {
		t.windowStart, t.rows, t.files, t.sns = now, 0, 0, 0
	}
}

func (t *throttle) sleepWindow(ctx context.Context) error {
	if err := clock.Sleep(ctx, t.interval-time.Since(t.windowStart)); err != nil {
		return err
	}
	t.roll(time.Now())
	return nil
}

// waitRows blocks while the current window's row budget is spent; rows are
// only known after a batch is built, so they are charged afterwards by
// addRows and the overshoot is at most one batch.
func (t *throttle) waitRows(ctx context.Context) error {
	if t.maxRows <= 0 {
		return nil
	}
	t.roll(time.Now())
	if t.rows < t.maxRows {
		return nil
	}
	return t.sleepWindow(ctx)
}

func (t *throttle) addRows(n int) {
	if t.maxRows > 0 {
		t.roll(time.Now())
		t.rows += n
	}
}

func (t *throttle) takeFiles(ctx context.Context, n int) error {
	return t.take(ctx, &t.files, t.maxFiles, n)
}
func (t *throttle) takeSnapshot(ctx context.Context) error { return t.take(ctx, &t.sns, t.maxSns, 1) }
