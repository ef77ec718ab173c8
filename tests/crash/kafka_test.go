package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
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
	broker := testenv.StartKafka(t)
	const topic = "paimon-crash"
	// The broker restart is the last run, so the kills before it interleave
	// with the writer's commits.
	const kills, brokerRestartAt = 12, 11
	rng := crashRand(t)
	soak{
		sink: "topic", kills: kills, pause: "0.5", minProgress: 2,
		output: fmt.Sprintf(`output:
  kafka_franz:
    seed_brokers: [ %s ]
    topic: %s
    key: ${! json("id") }
    timeout: 5s
    max_in_flight: 4
`, broker.Addr, topic),
		observe: func(t *testing.T) idCounts { return topicIDs(t, broker.Addr, topic) },
		during: func(t *testing.T, run int) {
			if run != brokerRestartAt {
				return
			}
			// The broker goes away under the running stream and comes back:
			// the output's batches fail or wait, the input replays them.
			time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
			broker.Stop()
			t.Logf("run %d: broker stopped", run)
			time.Sleep(2 * time.Second)
			broker.Start()
			t.Logf("run %d: broker back", run)
		},
	}.run(t, rng)
}

// topicIDs reads the whole topic (up to the end offsets of its partitions
// at the time of the call) and returns the ids of the rows in it.
func topicIDs(t *testing.T, addr, topic string) idCounts {
	t.Helper()
	seen := idCounts{}
	readTopic(t, addr, topic, func(id int64, _ *kgo.Record) { seen[id]++ })
	return seen
}

// readTopic reads the whole topic (up to the end offsets of its partitions
// at the time of the call) with a consumer of its own and calls each for
// every record, after checking that it is a row whose name and key match
// its id.
func readTopic(t *testing.T, addr, topic string, each func(id int64, r *kgo.Record)) {
	t.Helper()
	readTopicAs(t, addr, topic, false, false, each)
}

// readTopicAs is readTopic as a read_committed consumer (committed true)
// or a read_uncommitted one. A transactional topic (txn) ends in commit or
// abort markers, which no consumer is handed, and a read_committed one skips
// the aborted records too, so such a read ends when the fetches run dry
// rather than at a record on the end offset.
func readTopicAs(t *testing.T, addr, topic string, committed, txn bool, each func(id int64, r *kgo.Record)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	list := adm.ListEndOffsets
	if committed {
		list = adm.ListCommittedOffsets
	}
	ends, err := list(ctx, topic)
	if err != nil {
		t.Fatalf("list end offsets of %s: %v", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	dry := 0
	for len(want) > 0 && (!txn || dry < 2) {
		pctx, pcancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		pcancel()
		if ctx.Err() != nil {
			t.Fatalf("reading %s: partitions %v not read to their end", topic, want)
		}
		if fs.NumRecords() == 0 {
			dry++
			continue
		}
		dry = 0
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
			each(*row.ID, r)
			if end, ok := want[r.Partition]; ok && r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
	}
}
