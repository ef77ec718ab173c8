package input

import (
	"testing"
	"time"
)

// On a pypaimon-written table, the lag gauges grow while the pipeline is
// blocked (its output holds the first batch while the writer commits) and
// return to 0 once it caught up.
func TestRealLagGrowsWhileBlocked(t *testing.T) {
	rt := newRealTable(t, "db.lag", pyOp{}, pyOp{"op": "append", "start": 0, "count": 10})
	gate := make(chan struct{})
	r := startRealRejecting(t, rt, "", func([]delivered) error { <-gate; return nil })
	m := r.metrics
	waitMetric := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s: lag_snapshots %d, lag_seconds %d, rows_pending %d, headroom %d\nlogs:\n%s", what,
					m.get("paimon_lag_snapshots"), m.get("paimon_lag_seconds"), m.get("paimon_rows_pending"), m.get("paimon_expiry_headroom_snapshots"), r.logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for i := 1; i <= 3; i++ {
		rt.run(pyOp{"op": "append", "start": i * 10, "count": 10})
	}
	// Snapshot 1 is held by the output: 4 snapshots and their 40 rows are
	// pending, and the position (1) is the earliest snapshot.
	waitMetric("4 snapshots of lag", func() bool { return m.get("paimon_lag_snapshots") == 4 })
	if got := m.get("paimon_rows_pending"); got != 40 {
		t.Errorf("paimon_rows_pending = %d, want 40", got)
	}
	if got := m.get("paimon_expiry_headroom_snapshots"); got != 0 {
		t.Errorf("paimon_expiry_headroom_snapshots = %d, want 0 (the position is the earliest snapshot)", got)
	}
	s1 := m.get("paimon_lag_seconds")
	waitMetric("lag_seconds to grow", func() bool { return m.get("paimon_lag_seconds") >= s1+2 })
	close(gate)
	r.waitRows(40)
	waitMetric("the lag to return to 0", func() bool {
		return m.get("paimon_lag_snapshots") == 0 && m.get("paimon_lag_seconds") == 0 && m.get("paimon_rows_pending") == 0
	})
	if got := m.get("paimon_expiry_headroom_snapshots"); got != 4 {
		t.Errorf("paimon_expiry_headroom_snapshots = %d, want 4 (position 5, earliest 1)", got)
	}
}
