//go:build unix

package format

import (
	"syscall"
	"time"
)

// processCPU is the process's user+system CPU time so far: benchmarks on
// the shared machine report CPU per row, which load does not inflate as it
// does wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
