package crash

import (
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

// TestExactlyOnceKafka is the crash soak of exactly_once: the binary streams
// paimon -> kafka_franz in Kafka transactions while pypaimon commits, is
// SIGKILLed at random moments (12 times) and restarted, and in one run the
// broker is stopped and started under it. A read_committed consumer must
// then see every committed row exactly once; the consumer file never runs
// ahead of the topic.
func TestExactlyOnceKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("kafka crash test takes one to two minutes")
	}
	// The soaks mostly wait (kill intervals, writer pauses): the exactly-once
	// ones overlap, each with servers of its own.
	t.Parallel()
	broker := testenv.StartKafka(t)
	const topic = "paimon-eo"
	const kills, brokerRestartAt = 12, 11
	rng := crashRand(t)
	soak{
		sink: "topic (read_committed)", kills: kills, pause: "1.0", minProgress: 2, exactlyOnce: true,
		output: fmt.Sprintf(`output:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: %s
    key: ${! json("id") }
    timeout: 5s
    max_in_flight: 4
    exactly_once:
      enabled: true
      transaction_timeout: 10s
`, broker.Addr, topic),
		observe: func(t *testing.T) idCounts { return committedIDs(t, broker.Addr, topic) },
		during: func(t *testing.T, run int) {
			if run != brokerRestartAt {
				return
			}
			time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
			broker.Stop()
			t.Logf("run %d: broker stopped", run)
			time.Sleep(2 * time.Second)
			broker.Start()
			t.Logf("run %d: broker back", run)
		},
		after: func(t *testing.T) {
			// A read_uncommitted consumer also sees the rows of aborted
			// transactions: that is what read_committed protects from.
			all := idCounts{}
			readTopicAs(t, broker.Addr, topic, false, true, func(id int64, _ *kgo.Record) { all[id]++ })
			extra := 0
			for _, n := range all {
				extra += n - 1
			}
			t.Logf("read_uncommitted: %d records of aborted transactions", extra)
		},
	}.run(t, rng)
}

// committedIDs reads the topic as a read_committed consumer.
func committedIDs(t *testing.T, addr, topic string) idCounts {
	t.Helper()
	seen := idCounts{}
	readTopicAs(t, addr, topic, true, true, func(id int64, _ *kgo.Record) { seen[id]++ })
	return seen
}

// TestExactlyOnceZombieFenced: a pipeline paused (SIGSTOP) while a second
// one with the same consumer takes over, then resumed, is fenced: it stops
// with an error naming the cause and exits non-zero, and nothing it had in
// flight becomes visible — a read_committed consumer sees every row once.
func TestExactlyOnceZombieFenced(t *testing.T) {
	if testing.Short() {
		t.Skip("kafka crash test")
	}
	t.Parallel()
	broker := testenv.StartKafka(t)
	py := testenv.Python(t)
	bin := testenv.Binary(t)
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	script := filepath.Join(dir, "writer.py")
	if err := os.WriteFile(script, []byte(writerPy), 0o644); err != nil {
		t.Fatal(err)
	}
	const commits, size, topic = 30, 20, "paimon-zombie"
	writerDone := startWriter(t, py, script, wh, dir, commits, size, "0.3", filepath.Join(dir, "snapshots.txt"))
	waitFor(t, 60*time.Second, func() bool { return exists(filepath.Join(wh, "db.db", "c", "schema", "schema-0")) })
	cfg := filepath.Join(dir, "eo.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`logger: {level: info}
http: {enabled: false}
input:
  paimon:
    warehouse: %s
    table: db.c
    consumer_id: zombie
    commit_period: 200ms
    poll_interval: 100ms
    batch_size: 20
output:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: %s
    key: ${! json("id") }
    exactly_once: {enabled: true, transaction_timeout: 60s}
`, wh, broker.Addr, topic)), 0o644); err != nil {
		t.Fatal(err)
	}
	type proc struct {
		cmd  *exec.Cmd
		log  string
		done chan error
	}
	start := func(name string) *proc {
		p := &proc{log: filepath.Join(dir, name+".log"), done: make(chan error, 1)}
		f, err := os.Create(p.log)
		if err != nil {
			t.Fatal(err)
		}
		p.cmd = exec.Command(bin, "run", cfg)
		p.cmd.Stdout, p.cmd.Stderr = f, f
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { p.done <- p.cmd.Wait(); f.Close() }()
		t.Cleanup(func() { _ = p.cmd.Process.Kill() })
		return p
	}
	logOf := func(p *proc) string { b, _ := os.ReadFile(p.log); return string(b) }
	committed := func() int { return len(committedIDs(t, broker.Addr, topic)) }

	a := start("a")
	var b *proc
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("a's log:\n%s", logOf(a))
			if b != nil {
				t.Logf("b's log:\n%s", logOf(b))
			}
		}
	})
	waitFor(t, 60*time.Second, func() bool { return committed() > 0 })
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	b = start("b")
	before := committed()
	waitFor(t, 60*time.Second, func() bool { return committed() > before })
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-a.done:
		if err == nil {
			t.Fatalf("the zombie exited 0; want a non-zero exit\n%s", logOf(a))
		}
		// Kafka's fencing decides who owns the consumer: the consumer file
		// only mirrors the committed position, so neither pipeline stops
		// on the other's write to it.
		if l := logOf(a); !strings.Contains(l, "another pipeline with this consumer_id") {
			t.Fatalf("the zombie's log does not name the cause\n%s", l)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the zombie kept running after being fenced\n%s", logOf(a))
	}
	select {
	case err := <-writerDone:
		if err != nil {
			t.Fatalf("writer: %v", err)
		}
	case <-time.After(120 * time.Second):
		t.Fatal("writer did not finish")
	}
	// A liveness bound, generous for a loaded CI machine (the crash soaks run
	// in parallel beside the live interop suite).
	waitFor(t, 180*time.Second, func() bool { return committed() >= commits*size })
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	<-b.done
	got := committedIDs(t, broker.Addr, topic)
	for id := int64(0); id < commits*size; id++ {
		if got[id] != 1 {
			t.Errorf("id %d is in the topic %d times for a read_committed consumer", id, got[id])
		}
	}
}
