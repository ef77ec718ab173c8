package config_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// lockedLog collects a replica's output.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestGroupConfigRuns runs config/paimon-group.yaml as two replicas on one
// host (the binary, each with -s http.address=127.0.0.1:0), set up only by
// its environment variables, against a real broker: both join the group and
// own slots, every row of demo.orders reaches the topic exactly once, both
// stop cleanly on SIGTERM, and every slot's consumer has passed the table's
// last snapshot.
func TestGroupConfigRuns(t *testing.T) {
	broker := testenv.StartKafka(t)
	bin := testenv.Binary(t)
	wh := demoWarehouse(t)
	env := append(os.Environ(), "PAIMON_WAREHOUSE="+wh, "PAIMON_TABLE=demo.orders", "PAIMON_CONSUMER=orders-group",
		"KAFKA_BROKERS="+broker.Addr, "KAFKA_TOPIC=orders-group")
	type replica struct {
		cmd  *exec.Cmd
		log  *lockedLog
		done chan error
	}
	var rs []*replica
	for i := 0; i < 2; i++ {
		r := &replica{log: &lockedLog{}, done: make(chan error, 1)}
		r.cmd = exec.Command(bin, "run", "-s", "http.address=127.0.0.1:0", "paimon-group.yaml")
		r.cmd.Env, r.cmd.Stdout, r.cmd.Stderr = env, r.log, r.log
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { r.done <- r.cmd.Wait() }()
		t.Cleanup(func() {
			_ = r.cmd.Process.Kill()
			<-r.done
			r.done <- nil
		})
		rs = append(rs, r)
	}
	logs := func() string {
		var b strings.Builder
		for i, r := range rs {
			fmt.Fprintf(&b, "replica %d:\n%s\n", i, r.log.String())
		}
		return b.String()
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(rs[0].log.String(), "assigned") || !strings.Contains(rs[1].log.String(), "assigned") {
		if time.Now().After(deadline) {
			t.Fatalf("both replicas should own slots\n%s", logs())
		}
		for i, r := range rs {
			select {
			case err := <-r.done:
				r.done <- err
				t.Fatalf("replica %d exited: %v\n%s", i, err, logs())
			default:
			}
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Exactly once without transactions: a graceful rebalance moves no row
	// twice (a read_committed consumer reads a plain topic as any other).
	var replicaLogs []*lockedLog
	for _, r := range rs {
		replicaLogs = append(replicaLogs, r.log)
	}
	committedRows(t, broker.Addr, "orders-group", 300, replicaLogs...)

	for _, r := range rs {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
	}
	for i, r := range rs {
		select {
		case err := <-r.done:
			r.done <- err
			if err != nil {
				t.Errorf("replica %d: %v\n%s", i, err, logs())
			}
		case <-time.After(40 * time.Second):
			t.Fatalf("replica %d did not stop on SIGTERM\n%s", i, logs())
		}
	}
	for slot := 0; slot < 8; slot++ {
		b, err := os.ReadFile(filepath.Join(wh, "demo.db", "orders", "consumer", fmt.Sprintf("consumer-orders-group-slot-%d", slot)))
		if err != nil {
			t.Errorf("slot %d: %v", slot, err)
			continue
		}
		var c struct{ NextSnapshot int64 }
		if err := json.Unmarshal(b, &c); err != nil || c.NextSnapshot != 4 {
			t.Errorf("slot %d consumer %s: want nextSnapshot 4 (past snapshot 3, the latest)", slot, b)
		}
	}
}
