package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
)

// Exactly-once: the rows of a paimon consumer and the read position they
// complete are committed in one Kafka transaction. The paimon input decides
// where a transaction ends (exactlyonce.Committer); this output keeps one
// transactional producer per consumer (a group's slot is a consumer of its
// own) and writes the position into a compacted progress topic inside the
// transaction, Kafka Connect's design for exactly-once sources: the topic is
// the primary store of the position, the Paimon consumer file a secondary one
// the input writes after each commit.

// txnConfig is the exactly_once field.
type txnConfig struct {
	progressTopic string
	idPrefix      string
	timeout       time.Duration
}

// parseTxn reads the exactly_once field: nil unless enabled.
func parseTxn(conf *service.ParsedConfig, o *output) (*committer, error) {
	eo, err := exactlyonce.Enabled(conf, fExactlyOnce)
	if eo == nil || err != nil {
		return nil, err
	}
	var cfg txnConfig
	if cfg.progressTopic, err = eo.FieldString(fEOProgressTopic); err != nil {
		return nil, err
	}
	if cfg.progressTopic == "" {
		return nil, fmt.Errorf("%s.%s: empty", fExactlyOnce, fEOProgressTopic)
	}
	if cfg.idPrefix, err = eo.FieldString(fEOIDPrefix); err != nil {
		return nil, err
	}
	if cfg.timeout, err = eo.FieldDuration(fEOTimeout); err != nil {
		return nil, err
	}
	if cfg.timeout < time.Second {
		return nil, fmt.Errorf("%s.%s: %s is too short for a transaction", fExactlyOnce, fEOTimeout, cfg.timeout)
	}
	return newCommitter(o, cfg), nil
}

// txnProducer is the transactional producer of one key. Its mutex orders
// BeginTransaction against the key's commits; records are produced under
// it only to open the transaction, never while one ends (the input sends no
// rows of a key while committing it).
type txnProducer struct {
	key exactlyonce.Key
	id  string
	cl  *kgo.Client

	mu    sync.Mutex
	inTxn bool
	err   error // the first record of the open transaction Kafka refused
}

// committer is the output's exactlyonce.Committer.
type committer struct {
	o   *output
	cfg txnConfig

	// ready is closed once the output connected and its progress topic
	// exists: an input connecting first waits for it in Resume.
	ready     chan struct{}
	readyOnce sync.Once
	// unusable, set before ready closes, is why Resume cannot work at all.
	unusable error

	mu    sync.Mutex
	prods map[exactlyonce.Key]*txnProducer
}

func newCommitter(o *output, cfg txnConfig) *committer {
	return &committer{o: o, cfg: cfg, prods: map[exactlyonce.Key]*txnProducer{}, ready: make(chan struct{})}
}

// transactionalID is the key's stable transactional id: the same on every
// restart and on every replica that takes the key over, which is what lets
// a new owner fence the old one.
func (c *committer) transactionalID(k exactlyonce.Key) string {
	return c.cfg.idPrefix + k.String()
}

// producer returns the key's producer, nil if the key was not resumed here.
func (c *committer) producer(k exactlyonce.Key) *txnProducer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prods[k]
}

// Resume implements exactlyonce.Committer: a fresh transactional producer
// whose first transaction fences every earlier producer of the id (the
// broker aborts their open transactions), then the last committed position
// read from the progress topic.
func (c *committer) Resume(ctx context.Context, k exactlyonce.Key) (exactlyonce.Position, bool, error) {
	var none exactlyonce.Position
	select {
	case <-c.ready:
		if c.unusable != nil {
			return none, false, c.unusable
		}
	case <-ctx.Done():
		return none, false, fmt.Errorf("exactly_once: waiting for the kafka_franz output to connect: %w", ctx.Err())
	}
	if err := c.drop(k); err != nil {
		return none, false, err
	}
	id := c.transactionalID(k)
	cl, err := kgo.NewClient(append(c.o.txnOpts(), kgo.TransactionalID(id), kgo.TransactionTimeout(c.cfg.timeout))...)
	if err != nil {
		return none, false, fmt.Errorf("exactly_once: producer %s: %w", id, err)
	}
	p := &txnProducer{key: k, id: id, cl: cl}
	fence, err := p.fence(ctx, c.cfg.progressTopic)
	if err != nil {
		cl.Close()
		return none, false, err
	}
	pos, ok, err := c.readPosition(ctx, k, fence)
	if err != nil {
		cl.Close()
		return none, false, err
	}
	c.mu.Lock()
	c.prods[k] = p
	c.mu.Unlock()
	return pos, ok, nil
}

// fence makes the producer the id's owner and returns the offset of its
// fence record. Its InitProducerID (sent with the first record of a
// transaction) bumps the id's epoch, so an earlier producer — a crashed run,
// a paused replica — can commit nothing more, and the broker aborts its open
// transaction. The fence record is committed, under a key of its own (so
// compaction keeps the key's position): a read_committed reader that reaches
// its offset has seen every position of the key ever committed.
func (p *txnProducer) fence(ctx context.Context, topic string) (int64, error) {
	if err := p.cl.BeginTransaction(); err != nil {
		return 0, fmt.Errorf("exactly_once: producer %s: %w", p.id, err)
	}
	val, _ := json.Marshal(map[string]any{"table": p.key.Table, "consumer": p.key.Consumer, "fence": true, "time": time.Now().UnixMilli()})
	rec := &kgo.Record{Topic: topic, Partition: 0, Key: []byte(p.key.String() + "#fence"), Value: val}
	r, perr := p.cl.ProduceSync(ctx, rec).First()
	try := kgo.TryCommit
	if perr != nil {
		try = kgo.TryAbort
	}
	eerr := p.cl.EndTransaction(ctx, try)
	if err := errors.Join(perr, eerr); err != nil {
		return 0, fmt.Errorf("exactly_once: take over transactional id %s: %w", p.id, wrapFenced(err))
	}
	if r.Partition != 0 {
		return 0, fmt.Errorf("%w: progress topic %s: a record went to partition %d; the topic must have one partition", exactlyonce.ErrConfig, topic, r.Partition)
	}
	return r.Offset, nil
}

// readPosition reads the progress topic with read_committed up to the key's
// fence record at offset fence and returns the key's last committed
// position. The reader reaches the fence once every transaction before it
// ended: positions of other keys still open hold it back briefly (at most a
// commit period, or their transaction timeout for a dead replica).
func (c *committer) readPosition(ctx context.Context, k exactlyonce.Key, fence int64) (exactlyonce.Position, bool, error) {
	var none exactlyonce.Position
	topic := c.cfg.progressTopic
	cl, err := kgo.NewClient(append(c.o.baseOpts(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))...)
	if err != nil {
		return none, false, fmt.Errorf("exactly_once: read progress topic %s: %w", topic, err)
	}
	defer cl.Close()
	name := []byte(k.String())
	var (
		last    []byte
		reached bool
	)
	for !reached {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return none, false, fmt.Errorf("exactly_once: read progress topic %s up to offset %d: %w", topic, fence, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return none, false, fmt.Errorf("exactly_once: read progress topic %s: %w", topic, ferr)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= fence {
				reached = true
				return
			}
			if !reached && string(r.Key) == string(name) {
				last = r.Value
			}
		})
	}
	if last == nil {
		return none, false, nil
	}
	pos, err := exactlyonce.ParseRecord(k, last)
	if err != nil {
		return none, false, fmt.Errorf("exactly_once: progress topic %s: %w", topic, err)
	}
	return pos, true, nil
}

// connected creates the progress topic when it is missing — compacted,
// since only the last position of each key matters — and lets Resume go.
func (c *committer) connected(ctx context.Context, cl *kgo.Client) error {
	adm := kadm.NewClient(cl)
	cleanup := "compact"
	_, err := adm.CreateTopic(ctx, 1, -1, map[string]*string{"cleanup.policy": &cleanup}, c.cfg.progressTopic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("exactly_once: create progress topic %s: %w", c.cfg.progressTopic, err)
	}
	td, err := adm.ListTopics(ctx, c.cfg.progressTopic)
	if err != nil {
		return fmt.Errorf("exactly_once: describe progress topic %s: %w", c.cfg.progressTopic, err)
	}
	if d, ok := td[c.cfg.progressTopic]; ok && d.Err == nil && len(d.Partitions) != 1 {
		// A topic made by hand or by auto-creation: positions and the
		// fence records that bound their reading must share a partition.
		c.unusable = fmt.Errorf("%w: progress topic %s has %d partitions; it must have one (delete it, or name another in %s.%s)",
			exactlyonce.ErrConfig, c.cfg.progressTopic, len(d.Partitions), fExactlyOnce, fEOProgressTopic)
	}
	c.readyOnce.Do(func() { close(c.ready) })
	return nil
}

// begin opens the key's transaction if none is open.
func (p *txnProducer) begin() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inTxn {
		return nil
	}
	if err := p.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("exactly_once: begin transaction of %s: %w", p.id, err)
	}
	p.inTxn, p.err = true, nil
	return nil
}

// failed records the first refused record of the open transaction, which
// can then only be aborted.
func (p *txnProducer) failed(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

// Commit implements exactlyonce.Committer: every record of the transaction
// acknowledged, the position produced into it, then committed.
func (c *committer) Commit(ctx context.Context, k exactlyonce.Key, pos exactlyonce.Position) error {
	p := c.producer(k)
	if p == nil {
		return fmt.Errorf("exactly_once: commit of %s, which this output does not own", k)
	}
	if err := p.begin(); err != nil {
		return err
	}
	if err := p.cl.Flush(ctx); err != nil {
		return fmt.Errorf("exactly_once: flush %s: %w", p.id, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return fmt.Errorf("exactly_once: a record of %s's transaction was refused: %w", p.id, wrapFenced(p.err))
	}
	val, err := exactlyonce.EncodeRecord(k, pos)
	if err != nil {
		return err
	}
	rec := &kgo.Record{Topic: c.cfg.progressTopic, Partition: 0, Key: []byte(k.String()), Value: val}
	if err := p.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("exactly_once: position of %s: %w", p.id, wrapFenced(err))
	}
	p.inTxn = false
	if err := p.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("exactly_once: commit transaction of %s: %w", p.id, wrapFenced(err))
	}
	return nil
}

// Abort implements exactlyonce.Committer.
func (c *committer) Abort(ctx context.Context, k exactlyonce.Key) error {
	p := c.producer(k)
	if p == nil {
		return nil
	}
	// Not under p.mu: failing the buffered records calls their promises,
	// which take it.
	aerr := p.cl.AbortBufferedRecords(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	eerr := p.cl.EndTransaction(ctx, kgo.TryAbort)
	p.inTxn, p.err = false, nil
	if err := errors.Join(aerr, eerr); err != nil {
		return fmt.Errorf("exactly_once: abort transaction of %s: %w", p.id, wrapFenced(err))
	}
	return nil
}

// Release implements exactlyonce.Committer: the producer is closed, so the
// key's next owner does not wait for a transaction of ours to time out.
func (c *committer) Release(_ context.Context, k exactlyonce.Key) error {
	return c.drop(k)
}

// drop closes the key's producer, if any.
func (c *committer) drop(k exactlyonce.Key) error {
	c.mu.Lock()
	p := c.prods[k]
	delete(c.prods, k)
	c.mu.Unlock()
	if p != nil {
		p.cl.Close()
	}
	return nil
}

// close closes every producer; their open transactions are aborted by the
// broker (or by the keys' next owners).
func (c *committer) close() {
	c.mu.Lock()
	prods := c.prods
	c.prods = map[exactlyonce.Key]*txnProducer{}
	c.mu.Unlock()
	for _, p := range prods {
		p.cl.Close()
	}
}

// wrapFenced marks errors that mean a newer producer epoch owns the id:
// another owner took it over (PRODUCER_FENCED; INVALID_PRODUCER_EPOCH on a
// produce), or the broker aborted a transaction of ours that outlived
// transaction_timeout. The input tells the two apart where it can (a
// group confirms whether the slot is still this replica's).
func wrapFenced(err error) error {
	if errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) {
		return fmt.Errorf("%w: %w", exactlyonce.ErrFenced, err)
	}
	return err
}

// writeTxn produces the records of a batch into their keys' transactions
// and returns without waiting for Kafka: an acknowledged batch is in the
// open transaction, and the commit flushes and checks every record.
func (o *output) writeTxn(b service.MessageBatch, recs []kgo.Record) error {
	for i := range recs {
		msg := b[i]
		table, _ := msg.MetaGet(exactlyonce.MetaTable)
		consumer, ok := msg.MetaGet(exactlyonce.MetaConsumer)
		if !ok || table == "" {
			return service.NewBatchError(b, errNotPaimon).Failed(i, errNotPaimon)
		}
		k := exactlyonce.Key{Table: table, Consumer: consumer}
		p := o.txn.producer(k)
		if p == nil {
			err := fmt.Errorf("%w: a message of consumer %s, which no paimon input of this stream resumed", exactlyonce.ErrConfig, k)
			return service.NewBatchError(b, err).Failed(i, err)
		}
		if err := p.begin(); err != nil {
			return err
		}
		o.txnProduce(p, &recs[i])
	}
	return nil
}

var errNotPaimon = fmt.Errorf("%w: a message did not come from a paimon input with a consumer_id (no paimon_table/paimon_consumer metadata); only such messages can be written transactionally", exactlyonce.ErrConfig)

// txnProduce produces r into p's open transaction under a context of its
// own: the record must live until the commit's flush, past the batch's call.
func (o *output) txnProduce(p *txnProducer, r *kgo.Record) {
	p.cl.Produce(context.Background(), r, func(r *kgo.Record, err error) {
		if err != nil {
			p.failed(fmt.Errorf("record to %s: %w", r.Topic, err))
		}
	})
}
