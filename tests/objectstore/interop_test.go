package objectstore_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// interopFaults are the faults of the issue: 5xx, delays, resets and cut
// bodies. Stalls beyond the attempt timeout are left to
// TestConformanceUnderFaults: each costs a whole timeout, and over the
// ~1500 requests of the matrix they would dominate the run time.
var interopFaults = fileiotest.FaultConfig{
	Rate: 0.15, Seed: 6, Delay: 20 * time.Millisecond,
	Kinds: []fileiotest.Fault{
		fileiotest.Fault500, fileiotest.Fault503SlowDown, fileiotest.FaultDelay,
		fileiotest.FaultResetBefore, fileiotest.FaultResetAfter,
		fileiotest.FaultTruncate, fileiotest.FaultShortBody,
	},
}

// TestInteropMatrixOverS3 uploads the committed interop warehouse
// (pypaimon- and Java-written tables) to versitygw and runs every case of
// resources/fixtures/cases*.json through s3://, once cleanly and once with
// 15 % of the requests failing: both runs must return exactly the rows the
// writers' own readers returned.
func TestInteropMatrixOverS3(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "resources", "fixtures")
	cases, err := interop.LoadCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := versity(t, interopFaults)
	s.faults.SetRate(0)
	n := upload(t, s.open(t, s.options()), filepath.Join(dir, "warehouse"), "s3://"+bucket+"/fixtures")
	t.Logf("uploaded %d files, %d cases", n, len(cases))

	for _, mode := range []struct {
		name string
		rate float64
	}{{"clean", 0}, {"faults", interopFaults.Rate}} {
		t.Run(mode.name, func(t *testing.T) {
			ctx := context.Background()
			opts := s.options()
			opts.MaxRetries = 10
			opts.RequestTimeout = 5 * time.Second
			counter := newRequestCounter()
			opts.Metrics = counter.hook
			cat, err := paimon.OpenCatalog(ctx, "s3://"+bucket+"/fixtures", paimon.WithStorageOptions(opts), interop.CheckedAlloc(t))
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := cat.FileIO().(io.Closer); ok {
				defer c.Close()
			}
			s.faults.Reset()
			counter.reset()
			s.faults.SetRate(mode.rate)
			defer s.faults.SetRate(0)
			interop.RunCases(t, ctx, cat, dir, cases, "over s3")
			n, byMethod, faults := s.faults.Stats()
			hooked, byOp := counter.snapshot()
			t.Logf("%d cases: %d requests at the server %v, %d attempts seen by the Metrics hook %v, faults %v", len(cases), n, byMethod, hooked, byOp, faults)
			// Clean, the hook sees every request. Under faults net/http
			// itself resends an idempotent request whose reused connection
			// was reset before any response byte, below the SDK, so the
			// hook may see fewer attempts than the server.
			if (mode.rate == 0 && hooked != n) || hooked > n {
				t.Errorf("Metrics hook saw %d request attempts, the server %d", hooked, n)
			}
			if mode.rate > 0 {
				injected := 0
				for _, c := range faults {
					injected += c
				}
				if injected < 50 {
					t.Errorf("only %d faults injected over %d requests; the run proves little", injected, n)
				}
			}
		})
	}
}
