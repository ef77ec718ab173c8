package bench

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

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestGroupOverhead measures what the consumer group costs: the binary
// reads bench.wide (1,048,576 rows, bucket-unaware, 8 data files) to drop
// as one replica without a group and as one replica of a group with 8
// slots (8 slot readers, each its share of the files, each its own
// consumer) and of a group with 1 slot (the coordination alone), interleaved, PAIMON_BENCH_ROUNDS rounds (default 2), against
// a real Kafka broker. Both follow the table (a group has no end bound) and
// are stopped with SIGTERM once every consumer reached the last snapshot;
// CPU-µs per row is the process's user+sys over the rows. Then it measures
// the time from a replica's SIGKILL until the surviving replica of a
// two-replica group is assigned its slots (session_timeout 6s). What is
// asserted is only that every run read every row; docs/benchmarks.md
// records the figures.
func TestGroupOverhead(t *testing.T) {
	// PAIMON_BENCH_GROUP_TABLE=wide4 (4,194,304 rows) runs longer, so that
	// what a replica pays once (start, group join, plans) weighs less
	// against what it pays per row.
	// PAIMON_BENCH_GROUP_TABLE=many (10,000 one-row files in 1,000
	// snapshots) weighs planning instead: every slot plans every snapshot;
	// with PAIMON_BENCH_GROUP_FOLLOW=1 the replicas start at snapshot 1
	// and follow the 999 after it one by one.
	table, want := "wide", float64(wideRows)
	switch os.Getenv("PAIMON_BENCH_GROUP_TABLE") {
	case "wide4":
		table, want = "wide4", 4*wideRows
	case "many":
		table, want = "many", float64(manyCommits*manyPartitions)
	}
	start := ""
	if os.Getenv("PAIMON_BENCH_GROUP_FOLLOW") == "1" {
		start = "    scan_mode: from-snapshot-full\n    snapshot_id: 1\n"
	}
	dir := testenv.BenchTable(t, table)
	wh := filepath.Join(dir, "warehouse")
	tableDir := filepath.Join(wh, "bench.db", table)
	broker := testenv.StartKafka(t)
	bin := testenv.Binary(t)
	snaps, err := os.ReadDir(filepath.Join(tableDir, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	last := int64(0)
	for _, e := range snaps {
		var id int64
		if _, err := fmt.Sscanf(e.Name(), "snapshot-%d", &id); err == nil {
			last = max(last, id)
		}
	}
	run := func(name string, slots, round int) (time.Duration, time.Duration, float64) {
		id := fmt.Sprintf("bench-%s-%d-%d", name, round, time.Now().UnixNano())
		ids := []string{id}
		extra := ""
		if slots > 0 {
			extra = fmt.Sprintf("    group:\n      seed_brokers: [ %s ]\n      slots: %d\n", broker.Addr, slots)
			ids = nil
			for s := 0; s < slots; s++ {
				ids = append(ids, fmt.Sprintf("%s-slot-%d", id, s))
			}
		}
		prom := filepath.Join(t.TempDir(), "m.prom")
		cfg := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`logger: {level: warn}
http: {enabled: false}
metrics: {prometheus: {file_output_path: %q}}
input:
  paimon:
    warehouse: %s
    table: bench.%s
    consumer_id: %s
    commit_period: 1s
%s%soutput:
  drop: {}
`, prom, wh, table, id, start, extra)), 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() {
			for _, c := range ids {
				_ = os.Remove(filepath.Join(tableDir, "consumer", "consumer-"+c))
			}
		}()
		cmd := exec.Command(bin, "run", cfg)
		var out testenv.LockedBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := start.Add(3 * time.Minute)
		for !allAt(tableDir, ids, last+1) {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("%s: consumers did not reach snapshot %d:\n%s", name, last+1, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		wall := time.Since(start)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out.String())
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		b, err := os.ReadFile(prom)
		if err != nil {
			t.Fatal(err)
		}
		return wall, cpu, sumValues(b, "paimon_rows_read")
	}
	t.Logf("| variant | rows/s | CPU-µs/row | wall |")
	for r := 0; r < benchRounds(t); r++ {
		for _, v := range []struct {
			name  string
			slots int
		}{{"single", 0}, {"group-1-slot", 1}, {"group-8-slots", 8}} {
			wall, cpu, rows := run(v.name, v.slots, r)
			if rows != want {
				t.Fatalf("%s: paimon_rows_read %v, want %v", v.name, rows, want)
			}
			t.Logf("| %s | %.0f | %.2f | %s |", v.name, rows/wall.Seconds(), float64(cpu.Microseconds())/rows, wall.Round(time.Millisecond))
		}
	}

	// SIGKILL to reassignment, two replicas of one group.
	logs := [2]*testenv.LockedBuffer{{}, {}}
	var cmds [2]*exec.Cmd
	id := fmt.Sprintf("bench-kill-%d", time.Now().UnixNano())
	for i := range cmds {
		cfg := filepath.Join(t.TempDir(), "k.yaml")
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`logger: {level: info}
http: {enabled: false}
input:
  paimon:
    warehouse: %s
    table: bench.%s
    consumer_id: %s
    group: {seed_brokers: [ %s ], slots: 8, session_timeout: 6s}
output:
  drop: {}
`, wh, table, id, broker.Addr)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds[i] = exec.Command(bin, "run", cfg)
		cmds[i].Stdout, cmds[i].Stderr = logs[i], logs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmds[i].Process.Kill(); _ = cmds[i].Wait() })
		waitUntil(t, func() bool { return strings.Contains(logs[i].String(), "assigned") })
	}
	defer func() {
		for s := 0; s < 8; s++ {
			_ = os.Remove(filepath.Join(tableDir, "consumer", fmt.Sprintf("consumer-%s-slot-%d", id, s)))
		}
	}()
	time.Sleep(2 * time.Second)
	before := strings.Count(logs[0].String(), "assigned")
	killed := time.Now()
	_ = cmds[1].Process.Kill()
	waitUntil(t, func() bool { return strings.Count(logs[0].String(), "assigned") > before })
	t.Logf("SIGKILL of one of two replicas to its slots assigned to the other: %s (session_timeout 6s)", time.Since(killed).Round(100*time.Millisecond))
}

// allAt reports whether every consumer file named holds nextSnapshot next.
func allAt(tableDir string, ids []string, next int64) bool {
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(tableDir, "consumer", "consumer-"+id))
		if err != nil {
			return false
		}
		var c struct {
			NextSnapshot int64 `json:"nextSnapshot"`
		}
		if json.Unmarshal(b, &c) != nil || c.NextSnapshot != next {
			return false
		}
	}
	return true
}

// sumValues sums every sample of metric in a Prometheus text exposition.
func sumValues(text []byte, metric string) float64 {
	sum := 0.0
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, metric+" ") || strings.HasPrefix(line, metric+"{") {
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				sum += parseFloat(line[i+1:])
			}
		}
	}
	return sum
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
