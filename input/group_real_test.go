package input

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// Against a real Kafka broker, two replicas in one group share a table
// (bucket-unaware, and with 4 fixed buckets) while a writer commits: the
// second joins after the first read the table's first commit, slots move to
// it through a drained revoke, and in the end every row was delivered
// exactly once, by one replica or the other, and both delivered some of
// the rows committed after they both joined.
func TestRealGroupSharesTable(t *testing.T) {
	broker := testenv.StartKafka(t)
	for _, tc := range []struct {
		name   string
		create pyOp
	}{{"unaware", pyOp{}}, {"fixed", pyOp{"bucket": 4}}} {
		t.Run(tc.name, func(t *testing.T) {
			rt := newRealTable(t, "db.g"+tc.name, tc.create, pyOp{"op": "append", "start": 0, "count": 20})
			cfg := fmt.Sprintf("  consumer_id: g-%s\n  commit_period: 200ms\n  group:\n    seed_brokers: [ %s ]\n    slots: 4\n    session_timeout: 10s\n", tc.name, broker.Addr)
			a := startReal(t, rt, cfg)
			a.waitRows(20)
			b := startReal(t, rt, cfg)
			waitLogged(t, b, "assigned")
			before := len(a.rows())
			const commits, per = 16, 10
			for i := 0; i < commits; i++ {
				rt.run(pyOp{"op": "append", "start": 20 + i*per, "count": per})
			}
			total := 20 + commits*per
			deadline := time.Now().Add(90 * time.Second)
			for len(a.rows())+len(b.rows()) < total && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(time.Second) // anything delivered twice would arrive by now
			seen := map[int64]string{}
			for who, r := range map[string]*realRun{"a": a, "b": b} {
				for _, d := range r.rows() {
					var row struct{ ID int64 }
					if err := json.Unmarshal([]byte(d.body), &row); err != nil {
						t.Fatal(err)
					}
					if prev, ok := seen[row.ID]; ok {
						t.Errorf("row %d delivered twice (by %s and %s)", row.ID, prev, who)
					}
					seen[row.ID] = who
				}
			}
			if len(seen) != total {
				t.Fatalf("%d distinct rows delivered, the table has %d\na:\n%s\nb:\n%s", len(seen), total, a.logs.String(), b.logs.String())
			}
			// The group's metrics: the 4 slots are split between the two
			// replicas; a was assigned all, then revoked some; both are
			// caught up (the worst slot's lag is 0).
			if oa, ob := a.metrics.get("paimon_group_slots_owned"), b.metrics.get("paimon_group_slots_owned"); oa+ob != 4 || oa == 0 || ob == 0 {
				t.Errorf("paimon_group_slots_owned: a %d, b %d; want 4 slots split between both", oa, ob)
			}
			if ra, rb := a.metrics.get("paimon_group_rebalances"), b.metrics.get("paimon_group_rebalances"); ra < 2 || rb < 1 {
				t.Errorf("paimon_group_rebalances: a %d (want ≥ 2: assigned, revoked), b %d (want ≥ 1)", ra, rb)
			}
			lagDeadline := time.Now().Add(10 * time.Second)
			for (a.metrics.get("paimon_lag_snapshots") != 0 || b.metrics.get("paimon_lag_snapshots") != 0) && time.Now().Before(lagDeadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if la, lb := a.metrics.get("paimon_lag_snapshots"), b.metrics.get("paimon_lag_snapshots"); la != 0 || lb != 0 {
				t.Errorf("paimon_lag_snapshots once caught up: a %d, b %d; want 0", la, lb)
			}
			// Each slot keeps its progress in its own Paimon consumer; after
			// both replicas stopped, every slot has passed the last snapshot.
			a.stop()
			b.stop()
			for k := 0; k < 4; k++ {
				id := fmt.Sprintf("g-%s-slot-%d", tc.name, k)
				if next := rt.consumerNext(id); next != 1+commits+1 {
					t.Errorf("consumer %s: nextSnapshot %d, want %d", id, next, 1+commits+1)
				}
			}
			if len(a.rows()) == before || len(b.rows()) == 0 {
				t.Errorf("a delivered %d rows after b joined, b %d: the work did not spread\na:\n%s\nb:\n%s", len(a.rows())-before, len(b.rows()), a.logs.String(), b.logs.String())
			}
		})
	}
}

func waitLogged(t *testing.T, r *realRun, what string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(r.logs.String(), what) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q in the logs:\n%s", what, r.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
