package testenv

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the process's user + system CPU so far: every goroutine's,
// the GC's included. Issue 16 quotes CPU-µs per row as the primary figure
// of every benchmark because on a shared machine it moves far less than
// wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU reports the CPU spent since since per row of b.N operations of
// rowsPerOp rows each, as "cpu-µs/row".
func ReportCPU(b *testing.B, since time.Duration, rowsPerOp int64) {
	b.ReportMetric(float64((CPUTime()-since).Microseconds())/float64(rowsPerOp*int64(b.N)), "cpu-µs/row")
}
