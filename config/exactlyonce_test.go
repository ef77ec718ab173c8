package config_test

import (
	"context"
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

// TestExactlyOnceConfigRuns runs config/paimon-to-kafka-exactly-once.yaml
// against a real broker, set up only by its environment variables: alone,
// SIGKILLed once demo.orders is in the topic and started again (nothing new
// is committed: the position was), then as two replicas of a group added
// with --set. A read_committed consumer sees each of the table's 300 rows
// exactly once in each topic, and the consumer files follow the commits.
func TestExactlyOnceConfigRuns(t *testing.T) {
	broker := testenv.StartKafka(t)
	bin := testenv.Binary(t)
	wh := demoWarehouse(t)
	env := func(consumer, topic string) []string {
		return append(os.Environ(), "PAIMON_WAREHOUSE="+wh, "PAIMON_TABLE=demo.orders", "PAIMON_CONSUMER="+consumer,
			"KAFKA_BROKERS="+broker.Addr, "KAFKA_TOPIC="+topic)
	}
	start := func(env []string, args ...string) (*exec.Cmd, *lockedLog, chan error) {
		log := &lockedLog{}
		cmd := exec.Command(bin, append(append([]string{"run", "--set", "http.address=127.0.0.1:0"}, args...), "paimon-to-kafka-exactly-once.yaml")...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		return cmd, log, done
	}

	// Alone, killed, restarted.
	cmd, log, done := start(env("eo-single", "orders-eo"))
	committedRows(t, broker.Addr, "orders-eo", 300, log)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	_, log2, _ := start(env("eo-single", "orders-eo"))
	waitLog(t, log2, "resumes after its committed position")
	time.Sleep(2 * time.Second)
	committedRows(t, broker.Addr, "orders-eo", 300, log2)
	consumerAt(t, wh, "eo-single", 4)

	// Two replicas: a group added on the command line.
	set := fmt.Sprintf("input.paimon.group.seed_brokers=[%s]", broker.Addr)
	var cmds []*exec.Cmd
	var dones []chan error
	var logs []*lockedLog
	for i := 0; i < 2; i++ {
		c, l, d := start(env("eo-group", "orders-eo-group"), "--set", set)
		cmds, logs, dones = append(cmds, c), append(logs, l), append(dones, d)
	}
	for _, l := range logs {
		waitLog(t, l, "assigned")
	}
	committedRows(t, broker.Addr, "orders-eo-group", 300, logs...)
	for _, c := range cmds {
		_ = c.Process.Signal(syscall.SIGTERM)
	}
	for i, d := range dones {
		select {
		case err := <-d:
			if err != nil {
				t.Errorf("replica %d: %v\n%s", i, err, logs[i])
			}
		case <-time.After(40 * time.Second):
			t.Fatalf("replica %d did not stop on SIGTERM\n%s", i, logs[i])
		}
	}
	for slot := 0; slot < 8; slot++ {
		consumerAt(t, wh, fmt.Sprintf("eo-group-slot-%d", slot), 4)
	}
}

// committedRows waits until a read_committed consumer of topic has seen
// want records, then fails unless they are want distinct rows and nothing
// more arrives.
func committedRows(t *testing.T, addr, topic string, want int, logs ...*lockedLog) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ids := map[int64]int{}
	n := 0
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for n < want && ctx.Err() == nil {
		for _, rec := range cl.PollFetches(ctx).Records() {
			var row struct{ ID int64 }
			if err := json.Unmarshal(rec.Value, &row); err != nil {
				t.Fatalf("value %q: %v", rec.Value, err)
			}
			ids[row.ID]++
			n++
		}
	}
	late, lcancel := context.WithTimeout(context.Background(), 2*time.Second)
	n += len(cl.PollFetches(late).Records())
	lcancel()
	if n != want || len(ids) != want {
		var b strings.Builder
		for _, l := range logs {
			b.WriteString(l.String())
		}
		t.Fatalf("%s: %d committed records with %d distinct ids, want %d exactly once\n%s", topic, n, len(ids), want, b.String())
	}
}

func waitLog(t *testing.T, l *lockedLog, s string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(l.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("log never said %q:\n%s", s, l)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// consumerAt checks a consumer file of demo.orders holds next.
func consumerAt(t *testing.T, wh, id string, next int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(wh, "demo.db", "orders", "consumer", "consumer-"+id))
		var c struct{ NextSnapshot int64 }
		if err == nil && json.Unmarshal(b, &c) == nil && c.NextSnapshot == next {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("consumer %s: %s (%v), want nextSnapshot %d", id, b, err, next)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
