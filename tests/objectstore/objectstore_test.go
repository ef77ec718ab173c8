// Package objectstore_test runs the FileIO conformance suite against real
// S3 servers on loopback (versitygw, and gofakes3 for speed), with and
// without injected faults, and measures requests per operation.
package objectstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
)

var faulty = fileiotest.FaultConfig{Rate: 0.15, Seed: 20261129, Delay: 20 * time.Millisecond, Stall: 3 * time.Second}

func TestVersitygwConformance(t *testing.T) {
	s := versity(t, fileiotest.FaultConfig{})
	fileiotest.Run(t, s.open(t, s.options()), "s3://warehouse/wh", fileiotest.Config{ManyKeys: 1002, Writers: 8})
}

// TestConformanceUnderFaults runs the suite once cleanly to get a request
// baseline, then again with faults: every read must return exactly the
// right bytes, and retries must keep the request count bounded.
func TestConformanceUnderFaults(t *testing.T) {
	for _, start := range []func(testing.TB, fileiotest.FaultConfig) *server{fake, versity} {
		s := start(t, faulty)
		t.Run(s.name, func(t *testing.T) {
			opts := s.options()
			opts.RequestTimeout = time.Second
			opts.MaxRetries = 8
			fio := s.open(t, opts)
			cfg := fileiotest.Config{ManyKeys: 120, Writers: 4}

			s.faults.SetRate(0)
			s.faults.Reset()
			t.Run("clean", func(t *testing.T) { fileiotest.Run(t, fio, "s3://warehouse/clean", cfg) })
			base, _, _ := s.faults.Stats()

			s.faults.SetRate(faulty.Rate)
			s.faults.Reset()
			t.Run("faults", func(t *testing.T) { fileiotest.Run(t, fio, "s3://warehouse/faulty", cfg) })
			n, byMethod, faults := s.faults.Stats()
			t.Logf("%s: clean run %d requests; faulty run %d requests %v, faults %v", s.name, base, n, byMethod, faults)
			injected := 0
			for _, c := range faults {
				injected += c
			}
			if injected < 10 {
				t.Errorf("only %d faults injected; the test proves little", injected)
			}
			if n > 2*base {
				t.Errorf("faulty run made %d requests, more than twice the clean run's %d", n, base)
			}
		})
	}
}

func TestIdlePollCostsOneRequest(t *testing.T) {
	for _, start := range []func(testing.TB, fileiotest.FaultConfig) *server{fake, versity} {
		s := start(t, fileiotest.FaultConfig{})
		t.Run(s.name, func(t *testing.T) {
			ctx := context.Background()
			fio := s.open(t, s.options())
			s.faults.Reset()
			for range 10 {
				ok, err := fio.Exists(ctx, "s3://warehouse/wh/db.db/t/snapshot/snapshot-2")
				if ok || err != nil {
					t.Fatalf("Exists = %v, %v", ok, err)
				}
			}
			n, m, _ := s.faults.Stats()
			if n != 10 || m["HEAD"] != 10 {
				t.Fatalf("10 idle polls made %d requests %v, want 10 HEADs", n, m)
			}
		})
	}
}
