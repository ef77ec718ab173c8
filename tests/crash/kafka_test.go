package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestCrashRestartKafka is the crash test against a real Kafka broker: the
// binary streams paimon -> kafka_franz with a consumer while pypaimon
// commits, is SIGKILLed at random moments (12 times) and restarted, and in
// one of the runs the broker itself is stopped and started again under it.
// After every kill the topic must hold every row of every snapshot below
// the consumer's nextSnapshot (the consumer never runs ahead of Kafka), and
// at the end every committed row is in the topic.
func TestCrashRestartKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("kafka crash test takes one to two minutes")
	}
	py := testenv.Python(t)
	broker := testenv.StartKafka(t)
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	bin := testenv.Binary(t)
	script := filepath.Join(dir, "writer.py")
	if err := os.WriteFile(script, []byte(writerPy), 0o644); err != nil {
		t.Fatal(err)
	}
	snapLog := filepath.Join(dir, "snapshots.txt")

	rng := crashRand(t)

	writerDone := startWriter(t, py, script, wh, dir, batches, batchSize, "0.5", snapLog)
	tableDir := filepath.Join(wh, "db.db", "c")
	waitFor(t, 60*time.Second, func() bool { return exists(filepath.Join(tableDir, "schema", "schema-0")) })

	const topic = "paimon-crash"
	cfg := func(bounded bool) string {
		end := ""
		if bounded {
			end = "    end: {at_latest: true}\n"
		}
		return fmt.Sprintf(`logger: {level: warn}
http: {enabled: false}
input:
  paimon:
    warehouse: %s
    table: db.c
    consumer_id: crash
    commit_period: 100ms
    poll_interval: 100ms
    batch_size: 20
    checkpoint_limit: 100
%soutput:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: %s
    key: ${! json("id") }
    timeout: 5s
    max_in_flight: 4
`, wh, end, broker.Addr, topic)
	}
	streamCfg, boundedCfg := filepath.Join(dir, "stream.yaml"), filepath.Join(dir, "bounded.yaml")
	if err := os.WriteFile(streamCfg, []byte(cfg(false)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(boundedCfg, []byte(cfg(true)), 0o644); err != nil {
		t.Fatal(err)
	}
	binLog, err := os.Create(filepath.Join(dir, "binary.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer binLog.Close()

	// The broker restart is the last run, so the kills before it interleave
	// with the writer's commits.
	const kills, brokerRestartAt = 12, 11
	var recs []killRecord
	for k := 0; k < kills; k++ {
		cmd := exec.Command(bin, "run", streamCfg)
		cmd.Stdout, cmd.Stderr = binLog, binLog
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if k == brokerRestartAt {
			// The broker goes away under the running stream and comes back:
			// the output's batches fail or wait, the input replays them.
			time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
			broker.Stop()
			t.Logf("run %d: broker stopped", k)
			time.Sleep(2 * time.Second)
			broker.Start()
			t.Logf("run %d: broker back", k)
		}
		time.Sleep(time.Duration(500+rng.IntN(3000)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		_ = cmd.Wait()
		rec := killRecord{next: consumerNext(t, tableDir), seen: topicIDs(t, broker.Addr, topic)}
		t.Logf("kill %d: consumer nextSnapshot %d, %d distinct ids in the topic", k, rec.next, len(rec.seen))
		recs = append(recs, rec)
	}
	select {
	case err := <-writerDone:
		if err != nil {
			t.Fatalf("writer: %v (see %s)", err, filepath.Join(dir, "writer.log"))
		}
	case <-time.After(120 * time.Second):
		t.Fatal("writer did not finish")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	final := exec.CommandContext(ctx, bin, "run", boundedCfg)
	final.Stdout, final.Stderr = binLog, binLog
	if err := final.Run(); err != nil {
		t.Fatalf("bounded run: %v (log %s)", err, binLog.Name())
	}

	snaps := readSnapshots(t, snapLog)
	if len(snaps) != batches {
		t.Fatalf("writer logged %d snapshots, want %d", len(snaps), batches)
	}
	got := topicIDs(t, broker.Addr, topic)
	for id := int64(0); id < batches*batchSize; id++ {
		if !got[id] {
			t.Fatalf("id %d was committed but is not in the topic", id)
		}
	}
	if n := consumerNext(t, tableDir); n != snaps[len(snaps)-1].id+1 {
		t.Errorf("final consumer nextSnapshot %d, want %d", n, snaps[len(snaps)-1].id+1)
	}
	progressed := 0
	for k, rec := range recs {
		if rec.next > 1 {
			progressed++
		}
		for _, s := range snaps {
			if s.id >= rec.next {
				continue
			}
			for id := s.first; id < s.first+s.count; id++ {
				if !rec.seen[id] {
					t.Fatalf("kill %d: consumer at nextSnapshot %d, but id %d of snapshot %d was not in the topic", k, rec.next, id, s.id)
				}
			}
		}
	}
	if progressed < 2 {
		t.Fatalf("the consumer advanced before only %d kills: the test checked too little", progressed)
	}
}

// topicIDs reads the whole topic (up to the end offsets of its partitions
// at the time of the call) with a consumer of its own and returns the ids
// of the rows in it, checking each row's name against its id.
func topicIDs(t *testing.T, addr, topic string) map[int64]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("list end offsets of %s: %v", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	seen := map[int64]bool{}
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s: partitions %v not read to their end", topic, want)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var row struct {
				ID   *int64 `json:"id"`
				Name string `json:"name"`
			}
			if err := json.Unmarshal(r.Value, &row); err != nil || row.ID == nil {
				t.Fatalf("record %s/%d@%d: %q is not a row", r.Topic, r.Partition, r.Offset, r.Value)
			}
			if row.Name != fmt.Sprintf("n%d", *row.ID) || string(r.Key) != strconv.FormatInt(*row.ID, 10) {
				t.Fatalf("record key %q value %s: key or name does not match id", r.Key, r.Value)
			}
			seen[*row.ID] = true
			if end, ok := want[r.Partition]; ok && r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
	}
	return seen
}
