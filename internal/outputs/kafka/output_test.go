package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
)

func fakeCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// consume reads want records of topic from the start, failing after 20 s.
func consume(t *testing.T, brokers []string, topic string, want int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < want {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records of %s: %v", len(out), want, topic, err)
		}
		fs.EachError(func(tp string, p int32, err error) { t.Logf("fetch %s/%d: %v", tp, p, err) })
		out = append(out, fs.Records()...)
	}
	return out
}

func runStream(t *testing.T, yaml string) {
	t.Helper()
	sb := service.NewStreamBuilder()
	if err := sb.SetYAML(yaml); err != nil {
		t.Fatal(err)
	}
	st, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestStreamKeysHeadersTimestamps(t *testing.T) {
	c := fakeCluster(t)
	addrs := c.ListenAddrs()
	runStream(t, fmt.Sprintf(`
logger: {level: warn}
input:
  generate:
    count: 50
    interval: ""
    mapping: |
      root = {"id": count("ids")}
      meta paimon_key = {"id": count("keys")}.string()
      meta paimon_row_kind = "+I"
      meta other = "x"
output:
  kafka_franz:
    seed_brokers: [ %q ]
    topic: t-${! json("id") %% 2 }
    key: ${! @paimon_key }
    timestamp_ms: ${! 1700000000000 + json("id") }
    metadata:
      include_prefixes: [ paimon_ ]
    compression: zstd
    batching: {count: 7, period: 50ms}
`, strings.Join(addrs, ",")))

	for parity, topic := range []string{"t-0", "t-1"} {
		recs := consume(t, addrs, topic, 25)
		if len(recs) != 25 {
			t.Fatalf("%s: %d records, want 25", topic, len(recs))
		}
		seen := map[string]bool{}
		for _, r := range recs {
			var id int
			if _, err := fmt.Sscanf(string(r.Value), `{"id":%d}`, &id); err != nil {
				t.Fatalf("value %q: %v", r.Value, err)
			}
			if id%2 != parity {
				t.Errorf("id %d in %s", id, topic)
			}
			if want := fmt.Sprintf(`{"id":%d}`, id); string(r.Key) != want {
				t.Errorf("key %q, want %q", r.Key, want)
			}
			if got := r.Timestamp.UnixMilli(); got != 1700000000000+int64(id) {
				t.Errorf("id %d: timestamp %d", id, got)
			}
			hdr := map[string]string{}
			for _, h := range r.Headers {
				hdr[h.Key] = string(h.Value)
			}
			if hdr["paimon_row_kind"] != "+I" || hdr["paimon_key"] != string(r.Key) || len(hdr) != 2 {
				t.Errorf("headers %v: want exactly paimon_row_kind and paimon_key", hdr)
			}
			seen[string(r.Value)] = true
		}
		if len(seen) != 25 {
			t.Errorf("%s: %d distinct values of 25 (duplicates)", topic, len(seen))
		}
	}
}

func TestTombstonesAndEmptyValues(t *testing.T) {
	c := fakeCluster(t)
	addrs := c.ListenAddrs()
	for _, tomb := range []bool{true, false} {
		topic := fmt.Sprintf("tomb-%v", tomb)
		runStream(t, fmt.Sprintf(`
logger: {level: warn}
input:
  generate:
    count: 4
    interval: ""
    mapping: |
      let n = count("n-%[3]v")
      root = if $n %% 2 == 0 { "" } else { "v" + $n.string() }
      meta k = "k" + $n.string()
output:
  kafka_franz:
    seed_brokers: [ %[1]q ]
    topic: %[2]s
    key: ${! @k }
    partitioner: manual
    partition: "0"
    tombstones: %[3]v
    max_in_flight: 1
`, addrs[0], topic, tomb))
		recs := consume(t, addrs, topic, 4)
		for _, r := range recs {
			var n int
			fmt.Sscanf(string(r.Key), "k%d", &n)
			switch {
			case n%2 == 1:
				if string(r.Value) != fmt.Sprintf("v%d", n) {
					t.Errorf("tombstones %v: key %s value %q", tomb, r.Key, r.Value)
				}
			case tomb && r.Value != nil:
				t.Errorf("tombstones on: key %s has value %q, want null", r.Key, r.Value)
			case !tomb && (r.Value == nil || len(r.Value) != 0):
				t.Errorf("tombstones off: key %s value %v, want empty non-null", r.Key, r.Value)
			}
			if r.Partition != 0 {
				t.Errorf("manual partition 0, got %d", r.Partition)
			}
		}
	}
}

// TestRejectsExactlyTheUnacknowledgedRecords: records Kafka refuses (here:
// to a topic that does not exist, auto-creation off) make WriteBatch name
// exactly those messages, so the input replays them and nothing else.
func TestRejectsExactlyTheUnacknowledgedRecords(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "exists"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o := newTestOutput(t, fmt.Sprintf("seed_brokers: [ %q ]\ntopic: ${! @topic }\nallow_auto_topic_creation: false\ntimeout: 20s\n", c.ListenAddrs()[0]))
	batch := service.MessageBatch{}
	for i := 0; i < 6; i++ {
		m := service.NewMessage([]byte(fmt.Sprintf("m%d", i)))
		m.MetaSetMut("topic", map[bool]string{true: "missing", false: "exists"}[i%2 == 1])
		batch = append(batch, m)
	}
	err = o.WriteBatch(context.Background(), batch)
	var berr *service.BatchError
	if !errors.As(err, &berr) {
		t.Fatalf("WriteBatch: %v, want a BatchError", err)
	}
	failed := map[int]bool{}
	berr.WalkMessages(func(i int, _ *service.Message, err error) bool {
		if err != nil {
			failed[i] = true
		}
		return true
	})
	for i := 0; i < 6; i++ {
		if failed[i] != (i%2 == 1) {
			t.Errorf("message %d (to the missing topic: %v): failed=%v", i, i%2 == 1, failed[i])
		}
	}
	if recs := consume(t, c.ListenAddrs(), "exists", 3); len(recs) != 3 {
		t.Errorf("%d records in the topic, want 3", len(recs))
	}
}

// TestTimeoutRejectsWholeBatch: a broker that keeps answering with a
// retriable error makes WriteBatch give up after timeout, rejecting all.
// Without idempotence: an idempotent producer cannot fail a record once a
// request holding it was sent (the broker may have written it), so there
// the batch waits for the broker instead, which is never a loss.
func TestTimeoutRejectsWholeBatch(t *testing.T) {
	c := fakeCluster(t, kfake.SeedTopics(1, "slow"))
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		resp := pr.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range pr.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.NotEnoughReplicas.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	o := newTestOutput(t, fmt.Sprintf("seed_brokers: [ %q ]\ntopic: slow\ntimeout: 500ms\nidempotent_write: false\n", c.ListenAddrs()[0]))
	start := time.Now()
	batch := service.MessageBatch{service.NewMessage([]byte("a")), service.NewMessage([]byte("b"))}
	err := o.WriteBatch(context.Background(), batch)
	var berr *service.BatchError
	if !errors.As(err, &berr) || berr.IndexedErrors() != 2 {
		t.Fatalf("WriteBatch: %v, want both messages rejected", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("WriteBatch took %v with timeout 500ms", d)
	}
}

func TestConnectFailsOnNoBroker(t *testing.T) {
	o := parseOutput(t, "seed_brokers: [ \"127.0.0.1:1\" ]\ntopic: x\n")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := o.Connect(ctx); err == nil {
		t.Fatal("Connect to a closed port succeeded")
	}
}

func TestLintRules(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{"acks: leader", "idempotent_write: false"},
		{"partitioner: manual", "partition is required"},
		{"partition: \"1\"", "only used with partitioner: manual"},
		{"sasl: [{mechanism: GSSAPI}]", "GSSAPI"},
		{"exactly_once: {enabled: true}\n    acks: leader\n    idempotent_write: false", "exactly_once needs idempotent_write: true and acks: all"},
		{"exactly_once: {enabled: true}\n    batching: {count: 100}", "exactly_once with a batching count or byte_size needs a batching period"},
	} {
		env := service.NewEnvironment()
		err := env.NewStreamBuilder().SetYAML(fmt.Sprintf("input: {generate: {mapping: 'root = 1'}}\noutput:\n  kafka_franz:\n    seed_brokers: [a:1]\n    topic: x\n    %s\n", tc.conf))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: lint error %v, want one containing %q", tc.conf, err, tc.want)
		}
	}
	env := service.NewEnvironment()
	if err := env.NewStreamBuilder().SetYAML("input: {generate: {mapping: 'root = 1'}}\noutput:\n  kafka_franz:\n    seed_brokers: [a:1]\n    topic: x\n    acks: leader\n    idempotent_write: false\n"); err != nil {
		t.Errorf("acks leader without idempotence: %v", err)
	}
}

func newTestOutput(t *testing.T, yaml string) *output {
	t.Helper()
	o := parseOutput(t, yaml)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := o.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return o
}

func parseOutput(t *testing.T, yaml string) *output {
	t.Helper()
	conf, err := Spec().ParseYAML(yaml, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := newOutput(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	return o
}
