package bench

import (
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// cpuTime and reportCPU are testenv's, named for this package's benchmarks.
func cpuTime() time.Duration { return testenv.CPUTime() }

func reportCPU(b *testing.B, since time.Duration, rowsPerOp int64) {
	testenv.ReportCPU(b, since, rowsPerOp)
}
