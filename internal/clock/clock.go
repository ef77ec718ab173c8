// Package clock waits the way every loop of the reader and the input
// waits: for a duration or until the context ends, whichever comes first.
package clock

import (
	"context"
	"time"
)

// Sleep waits d, or returns ctx's error as soon as ctx ends; the timer is
// released either way, so a cancelled wait leaves nothing behind.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
