package crash

import (
	"fmt"
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
	broker := testenv.StartKafka(t)
	const topic = "paimon-eo"
	const kills, brokerRestartAt = 12, 11
	rng := crashRand(t)
	soak{
		sink: "topic (read_committed)", kills: kills, pause: "0.5", minProgress: 2, exactlyOnce: true,
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
