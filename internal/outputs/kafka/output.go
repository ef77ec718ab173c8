package kafka

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/connect-paimon/connect-paimon/internal/kafkaconn"
)

// output is one kafka_franz output: a kgo client made on Connect and the
// per-message interpolations.
type output struct {
	opts      []kgo.Opt
	topic     *service.InterpolatedString
	key       *service.InterpolatedString
	partition *service.InterpolatedString
	timestamp *service.InterpolatedString
	headers   *service.MetadataFilter
	tombstone bool
	timeout   time.Duration
	log       *service.Logger
	// txn is the exactly_once mode's committer (nil: at-least-once).
	txn *committer

	mu     sync.RWMutex
	client *kgo.Client
}

// base is the output's plain client (nil before Connect).
func (o *output) base() *kgo.Client {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.client
}

// baseOpts are the options of every client of the output.
func (o *output) baseOpts() []kgo.Opt { return append([]kgo.Opt(nil), o.opts...) }

// txnOpts are the options of a transactional producer.
func (o *output) txnOpts() []kgo.Opt { return o.baseOpts() }

// newOutput builds the output from its parsed config (without batching and
// max in flight, which Benthos applies around it); tests drive WriteBatch
// on it directly.
func newOutput(conf *service.ParsedConfig, log *service.Logger) (*output, error) {
	o := &output{log: log}
	var err error

	conn, err := kafkaconn.Opts(conf)
	if err != nil {
		return nil, err
	}
	if o.topic, err = conf.FieldInterpolatedString(fTopic); err != nil {
		return nil, err
	}
	if conf.Contains(fKey) {
		if o.key, err = conf.FieldInterpolatedString(fKey); err != nil {
			return nil, err
		}
	}
	if conf.Contains(fTimestampMs) {
		if o.timestamp, err = conf.FieldInterpolatedString(fTimestampMs); err != nil {
			return nil, err
		}
	}
	if conf.Contains(fMetadata) {
		if o.headers, err = conf.FieldMetadataFilter(fMetadata); err != nil {
			return nil, err
		}
		// An empty filter selects nothing, but walking it would still
		// stringify every metadata value of every message (paimon_schema
		// is JSON-encoded each time): 80 % of the output's CPU on bench.wide.
		if o.headers.IsEmpty() {
			o.headers = nil
		}
	}
	if o.tombstone, err = conf.FieldBool(fTombstones); err != nil {
		return nil, err
	}
	if o.timeout, err = conf.FieldDuration(fTimeout); err != nil {
		return nil, err
	}

	rack, err := conf.FieldString(fRackID)
	if err != nil {
		return nil, err
	}
	maxMsg, err := conf.FieldInt(fMaxMessageBytes)
	if err != nil {
		return nil, err
	}
	maxWrite, err := conf.FieldInt(fBrokerMaxBytes)
	if err != nil {
		return nil, err
	}
	metaAge, err := conf.FieldDuration(fMetadataMaxAge)
	if err != nil {
		return nil, err
	}
	o.opts = append(conn, []kgo.Opt{
		kgo.ProducerBatchMaxBytes(int32(maxMsg)),
		kgo.BrokerMaxWriteBytes(int32(maxWrite)),
		kgo.MetadataMaxAge(metaAge),
		// The batch timeout bounds each WriteBatch through its context;
		// the produce request itself must not give up earlier.
		kgo.ProduceRequestTimeout(o.timeout),
		kgo.WithLogger(kgoLogger{log}),
	}...)
	if rack != "" {
		o.opts = append(o.opts, kgo.Rack(rack))
	}
	if auto, err := conf.FieldBool(fAutoTopics); err != nil {
		return nil, err
	} else if auto {
		o.opts = append(o.opts, kgo.AllowAutoTopicCreation())
	}

	idempotent, err := conf.FieldBool(fIdempotentWrite)
	if err != nil {
		return nil, err
	}
	acks, err := conf.FieldString(fAcks)
	if err != nil {
		return nil, err
	}
	if idempotent && acks != "all" {
		return nil, fmt.Errorf("%s: %q needs %s: false (idempotent producing requires acks from all in-sync replicas)", fAcks, acks, fIdempotentWrite)
	}
	if !idempotent {
		o.opts = append(o.opts, kgo.DisableIdempotentWrite())
	}
	if o.txn, err = parseTxn(conf, o); err != nil {
		return nil, err
	}
	if o.txn != nil && (!idempotent || acks != "all") {
		return nil, fmt.Errorf("%s: transactions need %s: true and %s: all", fExactlyOnce, fIdempotentWrite, fAcks)
	}
	switch acks {
	case "all":
		o.opts = append(o.opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "leader":
		o.opts = append(o.opts, kgo.RequiredAcks(kgo.LeaderAck()))
	case "none":
		o.opts = append(o.opts, kgo.RequiredAcks(kgo.NoAck()))
	default:
		return nil, fmt.Errorf("%s: unknown value %q (all, leader, none)", fAcks, acks)
	}

	if conf.Contains(fPartitioner) {
		p, err := conf.FieldString(fPartitioner)
		if err != nil {
			return nil, err
		}
		var part kgo.Partitioner
		switch p {
		case "murmur2_hash":
			part = kgo.StickyKeyPartitioner(nil)
		case "round_robin":
			part = kgo.RoundRobinPartitioner()
		case "least_backup":
			part = kgo.LeastBackupPartitioner()
		case "manual":
			part = kgo.ManualPartitioner()
			if !conf.Contains(fPartition) {
				return nil, fmt.Errorf("%s: required with %s: manual", fPartition, fPartitioner)
			}
			if o.partition, err = conf.FieldInterpolatedString(fPartition); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%s: unknown value %q", fPartitioner, p)
		}
		o.opts = append(o.opts, kgo.RecordPartitioner(part))
	}
	if o.partition == nil && conf.Contains(fPartition) {
		return nil, fmt.Errorf("%s: only used with %s: manual", fPartition, fPartitioner)
	}

	if conf.Contains(fCompression) {
		c, err := conf.FieldString(fCompression)
		if err != nil {
			return nil, err
		}
		var codec kgo.CompressionCodec
		switch c {
		case "lz4":
			codec = kgo.Lz4Compression()
		case "snappy":
			codec = kgo.SnappyCompression()
		case "gzip":
			codec = kgo.GzipCompression()
		case "zstd":
			codec = kgo.ZstdCompression()
		case "none":
			codec = kgo.NoCompression()
		default:
			return nil, fmt.Errorf("%s: unknown value %q", fCompression, c)
		}
		o.opts = append(o.opts, kgo.ProducerBatchCompression(codec))
	}

	return o, nil
}

// Connect creates the client and checks that a broker answers, so a wrong
// address is reported at start rather than as a timed-out first batch.
func (o *output) Connect(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.client != nil {
		return nil
	}
	cl, err := kgo.NewClient(o.opts...)
	if err != nil {
		return fmt.Errorf("kafka client: %w", err)
	}
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		return fmt.Errorf("kafka brokers unreachable: %w", err)
	}
	o.client = cl
	if o.txn != nil {
		if err := o.txn.connected(ctx, cl); err != nil {
			o.client = nil
			cl.Close()
			return err
		}
	}
	return nil
}

// WriteBatch produces every message of b and returns once Kafka answered
// for each of them: nil when all were acknowledged, otherwise a
// service.BatchError naming exactly the messages that were not, so only
// those are replayed. With exactly_once it returns once the records are in
// their transaction (writeTxn).
func (o *output) WriteBatch(ctx context.Context, b service.MessageBatch) error {
	o.mu.RLock()
	cl := o.client
	o.mu.RUnlock()
	if cl == nil {
		return service.ErrNotConnected
	}
	// One allocation for the batch's records rather than one per message:
	// the records stay referenced by the client until Kafka answered,
	// which this call waits for, so the slab outlives every use.
	recs := make([]kgo.Record, len(b))
	ex := o.executors(b)
	for i := range b {
		if err := o.record(b, ex, i, &recs[i]); err != nil {
			// A record that cannot be built (bad interpolation result) is
			// a configuration or data problem: rejecting the whole batch
			// keeps the consumer from moving past it.
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	if o.txn != nil {
		return o.writeTxn(b, recs)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	// One promise for the whole batch; failures are rare, so they are
	// collected by record and mapped back to message indexes afterwards.
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed map[*kgo.Record]error
	)
	promise := func(r *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			if failed == nil {
				failed = make(map[*kgo.Record]error)
			}
			failed[r] = err
			mu.Unlock()
		}
		wg.Done()
	}
	wg.Add(len(recs))
	for i := range recs {
		cl.Produce(ctx, &recs[i], promise)
	}
	wg.Wait()
	if len(failed) == 0 {
		return nil
	}

	var berr *service.BatchError
	for i := range recs {
		err, ok := failed[&recs[i]]
		if !ok {
			continue
		}
		if berr == nil {
			berr = service.NewBatchError(b, fmt.Errorf("kafka did not acknowledge every record: %w", err))
		}
		berr.Failed(i, err)
	}
	return berr
}

// batchExecutors are the output's interpolations over one batch. Built
// once per batch: MessageBatch.TryInterpolatedString converts the whole
// batch on every call, so calling it per message made WriteBatch quadratic
// in the batch size (a 1,024-message batch spent ~50 µs per record there).
type batchExecutors struct {
	topic, key, partition, timestamp *service.MessageBatchInterpolationExecutor
}

func (o *output) executors(b service.MessageBatch) batchExecutors {
	ex := batchExecutors{topic: b.InterpolationExecutor(o.topic)}
	if o.key != nil {
		ex.key = b.InterpolationExecutor(o.key)
	}
	if o.partition != nil {
		ex.partition = b.InterpolationExecutor(o.partition)
	}
	if o.timestamp != nil {
		ex.timestamp = b.InterpolationExecutor(o.timestamp)
	}
	return ex
}

// record fills r, the zero record of message i.
func (o *output) record(b service.MessageBatch, ex batchExecutors, i int, r *kgo.Record) error {
	msg := b[i]
	topic, err := ex.topic.TryString(i)
	if err != nil {
		return fmt.Errorf("%s: %w", fTopic, err)
	}
	if topic == "" {
		return fmt.Errorf("%s: interpolated to an empty string", fTopic)
	}
	value, err := msg.AsBytes()
	if err != nil {
		return err
	}
	r.Topic, r.Value = topic, value
	if len(value) == 0 {
		if o.tombstone {
			r.Value = nil
		} else {
			r.Value = []byte{}
		}
	}
	if o.key != nil {
		k, err := ex.key.TryBytes(i)
		if err != nil {
			return fmt.Errorf("%s: %w", fKey, err)
		}
		if len(k) > 0 {
			// An empty key (an append table's missing paimon_key) means
			// no key, so records spread over the partitions instead of
			// all hashing to one.
			r.Key = k
		}
	}
	if o.partition != nil {
		s, err := ex.partition.TryString(i)
		if err != nil {
			return fmt.Errorf("%s: %w", fPartition, err)
		}
		p, err := strconv.ParseInt(s, 10, 32)
		if err != nil || p < 0 {
			return fmt.Errorf("%s: %q is not a partition number", fPartition, s)
		}
		r.Partition = int32(p)
	}
	if o.timestamp != nil {
		s, err := ex.timestamp.TryString(i)
		if err != nil {
			return fmt.Errorf("%s: %w", fTimestampMs, err)
		}
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer of milliseconds", fTimestampMs, s)
		}
		r.Timestamp = time.UnixMilli(ms)
	}
	if o.headers != nil {
		_ = o.headers.Walk(msg, func(k, v string) error {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
			return nil
		})
	}
	return nil
}

// Close flushes nothing: every WriteBatch already waited for its records,
// and a transaction still open was not committed by its input, so it is
// aborted.
func (o *output) Close(ctx context.Context) error {
	if o.txn != nil {
		o.txn.close()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.client != nil {
		o.client.Close()
		o.client = nil
	}
	return nil
}

// kgoLogger forwards franz-go's warnings and errors to the pipeline's
// logger; its info and debug chatter stays out.
type kgoLogger struct{ log *service.Logger }

func (l kgoLogger) Level() kgo.LogLevel {
	if l.log == nil {
		return kgo.LogLevelNone
	}
	return kgo.LogLevelWarn
}

func (l kgoLogger) Log(level kgo.LogLevel, msg string, kv ...any) {
	var sb strings.Builder
	sb.WriteString(msg)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&sb, " %v=%v", kv[i], kv[i+1])
	}
	switch level {
	case kgo.LogLevelError:
		l.log.Error(sb.String())
	default:
		l.log.Warn(sb.String())
	}
}
