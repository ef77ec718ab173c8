package crash

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// groupWriterPy is writerPy with the bucket option as its sixth argument:
// a fixed bucket count (bucket-key id) or "-1" (bucket-unaware).
var groupWriterPy = strings.Replace(writerPy,
	`options={"bucket": "2", "bucket-key": "id"}`,
	`options=({"bucket": sys.argv[6], "bucket-key": "id"} if sys.argv[6] != "-1" else {"bucket": "-1"})`, 1)

// replica is one connect-paimon process of the group.
type replica struct {
	name string
	cmd  *exec.Cmd
}

// TestGroupReplicasKafka runs the binary as replicas of one consumer group
// against a real Kafka broker, on a table with 4 fixed buckets (so the
// group uses 4 of its 6 slots) and a bucket-unaware table, written by
// pypaimon while they run, each replica tagging its records with its name:
//
//   - three replicas join one by one and one leaves with SIGTERM: every row
//     reaches the topic exactly once, and every replica delivered some;
//   - a replica is paused (SIGSTOP) past its session timeout, its slots move,
//     and once resumed it never moves a slot's consumer backwards (the fence);
//   - a replica is SIGKILLed and a new one started: nothing is lost;
//   - and the same on the bucket-unaware table with exactly_once: nothing
//     twice either.
func TestGroupReplicasKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("group soak takes minutes")
	}
	broker := testenv.StartKafka(t)
	for _, bucket := range []string{"4", "-1"} {
		t.Run("bucket"+bucket, func(t *testing.T) { groupSoak(t, broker.Addr, bucket, false) })
	}
	// With exactly_once every slot commits its rows with its own
	// transactional id, so the zombie's transactions are fenced and the
	// SIGKILLed replica's open ones aborted: a read_committed consumer sees
	// every row exactly once through all three phases.
	t.Run("exactly_once", func(t *testing.T) { groupSoak(t, broker.Addr, "-1", true) })
}

// groupSoak drives the three phases on a table with bucket option bucket;
// eo runs the replicas with exactly_once and checks no row is duplicated.
func groupSoak(t *testing.T, addr, bucket string, eo bool) {
	py := testenv.Python(t)
	bin := testenv.Binary(t)
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	script := filepath.Join(dir, "writer.py")
	if err := os.WriteFile(script, []byte(groupWriterPy), 0o644); err != nil {
		t.Fatal(err)
	}
	const commits, size = 60, 20
	snapLog := filepath.Join(dir, "snapshots.txt")
	writerDone := startWriter(t, py, script, wh, dir, commits, size, "0.4", snapLog, bucket)
	tableDir := filepath.Join(wh, "db.db", "c")
	waitFor(t, 60*time.Second, func() bool { return exists(filepath.Join(tableDir, "schema", "schema-0")) })

	topic := "group-" + strings.TrimPrefix(bucket, "-")
	// Each table its own group: the slot count is fixed per group.
	consumer := "grp" + strings.TrimPrefix(bucket, "-")
	txn := ""
	if eo {
		topic, consumer = topic+"-eo", consumer+"eo"
		txn = "    exactly_once: {enabled: true, transaction_timeout: 20s}\n"
	}
	const slots = 6
	start := func(name string) *replica {
		cfg := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`logger: {level: info}
http: {enabled: false}
input:
  paimon:
    warehouse: %s
    table: db.c
    consumer_id: %s
    commit_period: 100ms
    poll_interval: 100ms
    batch_size: 20
    group:
      seed_brokers: [ %s ]
      slots: %d
      session_timeout: 6s
pipeline:
  processors:
    - mutation: 'meta replica = "%s"'
output:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: %s
    key: ${! json("id") }
    timeout: 5s
    metadata:
      include_patterns: [ "^replica$" ]
%s`, wh, consumer, addr, slots, name, addr, topic, txn)), 0o644); err != nil {
			t.Fatal(err)
		}
		logf, err := os.Create(filepath.Join(dir, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "run", cfg)
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); logf.Close() })
		return &replica{name: name, cmd: cmd}
	}
	logOf := func(r *replica) string {
		b, _ := os.ReadFile(filepath.Join(dir, r.name+".log"))
		return string(b)
	}
	owns := func(r *replica) bool { return strings.Contains(logOf(r), "assigned") }
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range []string{"r1", "r2", "r3", "r4"} {
				l := logOf(&replica{name: n})
				t.Logf("%s log (last 3000 bytes):\n%s", n, l[max(0, len(l)-3000):])
			}
		}
	})

	// Phase 1: three replicas join one by one; one leaves with SIGTERM.
	r1 := start("r1")
	waitFor(t, 60*time.Second, func() bool { return owns(r1) })
	time.Sleep(2 * time.Second)
	r2 := start("r2")
	waitFor(t, 60*time.Second, func() bool { return owns(r2) })
	time.Sleep(2 * time.Second)
	r3 := start("r3")
	waitFor(t, 60*time.Second, func() bool { return owns(r3) })
	// r2 leaves once every replica has rows in the topic, not after a fixed
	// time: under exactly_once a replica's first rows appear only when its
	// first transaction commits, which a loaded machine can delay past any
	// fixed pause. A replica that never delivers still fails below.
	time.Sleep(3 * time.Second)
	delivered := func() bool {
		seen := map[string]bool{}
		for _, by := range topicRecords(t, addr, topic, eo) {
			for _, r := range by {
				seen[r] = true
			}
		}
		return seen["r1"] && seen["r2"] && seen["r3"]
	}
	for deadline := time.Now().Add(60 * time.Second); !delivered() && time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
	}
	if err := r2.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := r2.cmd.Wait(); err != nil {
		t.Fatalf("r2 did not stop cleanly on SIGTERM: %v\n%s", err, logOf(r2))
	}
	time.Sleep(3 * time.Second)
	graceful := topicRecords(t, addr, topic, eo)
	for id, by := range graceful {
		if len(by) > 1 {
			t.Errorf("after joins and a SIGTERM, id %d is in the topic %d times (%v): a graceful rebalance duplicated it", id, len(by), by)
		}
	}
	per := map[string]int{}
	for _, by := range graceful {
		per[by[0]]++
	}
	t.Logf("phase 1: %d rows, by replica %v", len(graceful), per)
	for _, r := range []string{"r1", "r2", "r3"} {
		if per[r] == 0 {
			t.Errorf("replica %s delivered no row in phase 1 (%v)", r, per)
		}
	}

	// Phase 2: a zombie. r3 is paused past its session timeout; its slots
	// move to r1; resumed, it must not move any slot's consumer backwards.
	if err := r3.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(12 * time.Second)
	before := slotPositions(t, tableDir, consumer, slots)
	if err := r3.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		now := slotPositions(t, tableDir, consumer, slots)
		for s, n := range now {
			if n < before[s] {
				t.Fatalf("slot %d's consumer moved back from %d to %d after the zombie resumed\nr3:\n%s", s, before[s], n, logOf(r3))
			}
			before[s] = max(before[s], n)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Phase 3: SIGKILL and a new replica.
	if err := r1.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = r1.cmd.Wait()
	r4 := start("r4")
	waitFor(t, 60*time.Second, func() bool { return owns(r4) })

	select {
	case err := <-writerDone:
		if err != nil {
			t.Fatalf("writer: %v", err)
		}
	case <-time.After(180 * time.Second):
		t.Fatal("writer did not finish")
	}
	total := commits * size
	var final map[int64][]string
	waitFor(t, 120*time.Second, func() bool {
		final = topicRecords(t, addr, topic, eo)
		return len(final) >= total
	})
	dups := 0
	for id := int64(0); id < int64(total); id++ {
		if len(final[id]) == 0 {
			t.Fatalf("id %d was committed but is not in the topic", id)
		}
		if len(final[id]) > 1 {
			dups++
		}
	}
	t.Logf("%d rows in the topic, %d delivered more than once (after the zombie and the SIGKILL)", total, dups)
	if eo && dups > 0 {
		t.Errorf("exactly_once: %d rows are in the topic more than once for a read_committed consumer", dups)
	}
	for _, r := range []*replica{r3, r4} {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		_ = r.cmd.Wait()
	}
	last := int64(0)
	for _, n := range slotPositions(t, tableDir, consumer, slots) {
		last = max(last, n)
	}
	if last == 0 {
		t.Error("no slot consumer file was written")
	}
}

// slotPositions reads each slot's consumer file (0 when there is none).
func slotPositions(t *testing.T, tableDir, consumer string, slots int) map[int]int64 {
	t.Helper()
	out := map[int]int64{}
	for s := 0; s < slots; s++ {
		b, err := os.ReadFile(filepath.Join(tableDir, "consumer", fmt.Sprintf("consumer-%s-slot-%d", consumer, s)))
		if err != nil {
			continue
		}
		var c struct {
			NextSnapshot int64 `json:"nextSnapshot"`
		}
		if json.Unmarshal(b, &c) == nil {
			out[s] = c.NextSnapshot
		}
	}
	return out
}

// topicRecords reads the whole topic (as a read_committed consumer of a
// transactional topic: committed) and returns, per row id, the replicas
// (the replica header) of its records in offset order.
func topicRecords(t *testing.T, addr, topic string, committed bool) map[int64][]string {
	t.Helper()
	out := map[int64][]string{}
	readTopicAs(t, addr, topic, committed, committed, func(id int64, r *kgo.Record) {
		who := "?"
		for _, h := range r.Headers {
			if h.Key == "replica" {
				who = string(h.Value)
			}
		}
		out[id] = append(out[id], who)
	})
	return out
}
