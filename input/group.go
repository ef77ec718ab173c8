package input

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/connect-paimon/connect-paimon/internal/group"
	"github.com/connect-paimon/connect-paimon/internal/kafkaconn"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// The group field: replicas sharing a table through Kafka's consumer-group
// protocol.
const (
	fieldGroup               = "group"
	fieldGroupName           = "name"
	fieldGroupSlots          = "slots"
	fieldGroupInstanceID     = "instance_id"
	fieldGroupSessionTimeout = "session_timeout"
)

// defaultSlots is the slot count when group.slots is unset.
const defaultSlots = 8

func groupField() *service.ConfigField {
	return service.NewObjectField(fieldGroup,
		kafkaconn.SeedBrokersField(),
		kafkaconn.ClientIDField("connect-paimon"),
		kafkaconn.TLSField(),
		kafkaconn.SASLField(),
		service.NewStringField(fieldGroupName).
			Description("The consumer group the replicas join; empty: the `consumer_id`.").
			Default(""),
		service.NewIntField(fieldGroupSlots).
			Description("How many slots the table's work is cut into. A slot owns the buckets with `bucket % slots == slot`, or, on a bucket-unaware table, the data files whose hash of partition and name modulo `slots` is the slot. Slots are what the group hands out, so at least as many slots as replicas lets every replica work. A fixed-bucket table gets at most as many slots as it has buckets (more would own nothing). The count is fixed for the life of the group: a different count would move every slot's share, and the input refuses it.").
			Default(defaultSlots),
		service.NewStringField(fieldGroupInstanceID).
			Description("A stable name for this replica (Kafka's static membership, e.g. the pod name): a replica that restarts within `session_timeout` keeps its slots without a rebalance. Empty: a new member on every start.").
			Default("").
			Advanced(),
		service.NewDurationField(fieldGroupSessionTimeout).
			Description("How long the group waits for a replica that stopped answering before its slots move to the others (and resume from their last progress).").
			Default("45s").
			Advanced(),
	).
		Description("Share the table among replicas through a Kafka (or Redpanda) consumer group. Replicas with the same group name split a fixed number of slots, handed out by the group coordinator with the cooperative-sticky balancer; each slot keeps its progress in its own Paimon consumer, `<consumer_id>-slot-<n>`, so snapshot expiry protects every slot and Paimon's tools list them. A slot that moves is drained first: its owner stops reading it, waits for what it delivered to be acknowledged and stores its progress. The group coordinates only; the coordination topic `paimon.slots.<name>` (one partition per slot) holds no records. Needs `consumer_id`; excludes `shard` and `end`.").
		Optional().
		Advanced().
		LintRule(`root = if this.` + kafkaconn.SeedBrokersName + `.or([]).length() == 0 { [ "group needs seed_brokers" ] }`)
}

// groupConfig is the parsed group field.
type groupConfig struct {
	Opts           []kgo.Opt
	Name           string
	Slots          int
	InstanceID     string
	SessionTimeout time.Duration
}

func readGroup(pc *service.ParsedConfig) (*groupConfig, error) {
	// The group's defaulted fields make the object always present once
	// parsed; its one required field says whether the user wrote it (the
	// field's lint rule refuses a group without seed brokers).
	if seeds, err := pc.FieldStringList(fieldGroup, kafkaconn.SeedBrokersName); err != nil || len(seeds) == 0 {
		return nil, nil
	}
	g := pc.Namespace(fieldGroup)
	opts, err := kafkaconn.Opts(g)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", fieldGroup, err)
	}
	c := &groupConfig{Opts: opts}
	var errs [4]error
	c.Name, errs[0] = g.FieldString(fieldGroupName)
	c.Slots, errs[1] = g.FieldInt(fieldGroupSlots)
	c.InstanceID, errs[2] = g.FieldString(fieldGroupInstanceID)
	c.SessionTimeout, errs[3] = g.FieldDuration(fieldGroupSessionTimeout)
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return c, nil
}

// validateGroup checks the group field against the rest of the config.
func (c config) validateGroup() []error {
	if c.Group == nil {
		return nil
	}
	var errs []error
	if c.Read.ConsumerID == "" {
		errs = append(errs, ruleError([]string{fieldGroup, fieldConsumerID}, "group needs consumer_id: each slot keeps its progress in consumer <consumer_id>-slot-<n>"))
	}
	if c.Read.ShardCount > 1 {
		errs = append(errs, ruleError([]string{fieldGroup, fieldShard}, "group and shard both split the table: use one"))
	}
	if c.Read.EndSnapshot > 0 || c.Read.EndAtLatest || c.Read.EndWatermark != nil {
		// A replica that ended would leave the group, and its slots would
		// move to replicas that may have ended too: nobody would own the
		// end of the read.
		errs = append(errs, ruleError([]string{fieldGroup, fieldEnd}, "group follows the table without end: a bounded read runs as one replica (or static shards)"))
	}
	if c.Group.Slots < 1 || c.Group.Slots > 1024 {
		errs = append(errs, fieldError(fieldGroup+"."+fieldGroupSlots, "must be in [1, 1024], got %d", c.Group.Slots))
	}
	return errs
}

// groupName is the consumer group the replicas join.
func (c config) groupName() string {
	if c.Group.Name != "" {
		return c.Group.Name
	}
	return c.Read.ConsumerID
}

// groupInput is the paimon input of a replica in a group: one reader (a
// paimonInput confined to the slot's share, with the slot's consumer) per
// slot it owns, their batches merged. Slots come and go with the group's
// rebalances.
type groupInput struct {
	cfg  config
	open opener
	mgr  *service.Resources
	log  *service.Logger

	out     chan slotBatch
	stopCtx context.Context
	stop    context.CancelFunc
	stopErr atomic.Pointer[error] // the permanent error the replica stopped on

	// alloc is the slot readers' one Arrow pool, window their one
	// delivery window.
	alloc  memory.Allocator
	window *window
	// splitReaders bounds the splits the slot readers read at a time.
	splitReaders chan struct{}
	// meta holds the manifests the slots decoded, for the others.
	meta *paimon.MetadataCache

	mu     sync.Mutex
	member member
	nslots int // the group's slot count (slotCount)
	slots  map[int32]*slotReader
	closed bool

	m groupMetrics
	// lags are the owned slots' last lag values (lagMu guards them).
	lagMu sync.Mutex
	lags  map[int32]lagValues
}

// groupMetrics are the group's own metrics, and the lag gauges it reports
// for its slot readers: the worst of the owned slots (a slot label would
// make a series per slot and replica, most of them stale after a
// rebalance; the worst slot is what an alert needs).
type groupMetrics struct {
	owned      tableGauge
	rebalances tableCounter
	lag        inputMetrics
}

func newGroupMetrics(mt *service.Metrics, table string) groupMetrics {
	g := func(name string) tableGauge { return tableGauge{mt.NewGauge(name, labelTable), table} }
	m := groupMetrics{
		owned:      g("paimon_group_slots_owned"),
		rebalances: tableCounter{mt.NewCounter("paimon_group_rebalances", labelTable), table},
		lag: inputMetrics{lagSnapshots: g("paimon_lag_snapshots"), lagSeconds: g("paimon_lag_seconds"),
			rowsPending: g("paimon_rows_pending"), headroom: g("paimon_expiry_headroom_snapshots")},
	}
	m.owned.Set(0)
	m.rebalances.Incr(0)
	return m
}

// slotLag records slot's lag and reports the worst of the owned slots.
func (g *groupInput) slotLag(slot int32, v lagValues) {
	g.lagMu.Lock()
	defer g.lagMu.Unlock()
	g.lags[slot] = v
	g.publishLag()
}

// dropSlotLag forgets a released slot's lag.
func (g *groupInput) dropSlotLag(slot int32) {
	g.lagMu.Lock()
	defer g.lagMu.Unlock()
	if _, ok := g.lags[slot]; !ok {
		return
	}
	delete(g.lags, slot)
	g.publishLag()
}

// publishLag sets the lag gauges to the worst slot's values; with no slot,
// nothing is behind here (the expiry headroom keeps its last value: there
// is no position of this replica to measure it from). Caller holds lagMu.
func (g *groupInput) publishLag() {
	if len(g.lags) == 0 {
		g.m.lag.lagSnapshots.Set(0)
		g.m.lag.lagSeconds.Set(0)
		g.m.lag.rowsPending.Set(0)
		return
	}
	g.m.lag.setLag(worstLag(g.lags))
}

// worstLag merges the slots' lag values into the worst of each.
func worstLag(lags map[int32]lagValues) lagValues {
	first := true
	var w lagValues
	for _, v := range lags {
		if first {
			w, first = v, false
			continue
		}
		w = w.worse(v)
	}
	return w
}

// member is what the input needs of its group membership: the fence of
// every consumer write, and leaving (*group.Member; tests fake it).
type member interface {
	Fence(ctx context.Context, slot int32, next int64) error
	Close()
}

type slotBatch struct {
	b   service.MessageBatch
	ack service.AckFunc
}

// slotReader reads one slot.
type slotReader struct {
	slot    int32
	in      *paimonInput
	cancel  context.CancelFunc
	done    chan struct{} // closed when the read loop ended
	pending sync.WaitGroup
}

func newGroupInput(cfg config, open opener, mgr *service.Resources) *groupInput {
	ctx, stop := context.WithCancel(context.Background())
	return &groupInput{cfg: cfg, open: open, mgr: mgr, log: mgr.Logger(), out: make(chan slotBatch), alloc: newAllocator(),
		window:       newWindow(cfg.CheckpointLimit, cfg.CheckpointLimitBytes),
		splitReaders: make(chan struct{}, splitReadersPerReplica()),
		meta:         paimon.NewMetadataCache(groupMetadataCacheBytes),
		stopCtx:      ctx, stop: stop, slots: map[int32]*slotReader{},
		m: newGroupMetrics(mgr.Metrics(), cfg.FullName()), lags: map[int32]lagValues{}}
}

// Connect joins the group once; slots start as they are assigned.
func (g *groupInput) Connect(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return service.ErrEndOfInput
	}
	if g.member != nil {
		return nil
	}
	slots, err := g.slotCount(ctx)
	if err != nil {
		return g.stopOnPermanent(err)
	}
	name := g.cfg.groupName()
	m, err := group.Join(ctx, group.Config{
		Opts: g.cfg.Group.Opts, Name: name, Topic: group.Topic(name), Slots: slots,
		InstanceID: g.cfg.Group.InstanceID, SessionTimeout: g.cfg.Group.SessionTimeout,
	}, g)
	if err != nil {
		return g.stopOnPermanent(fmt.Errorf("paimon input on %s: %w", g.cfg.FullName(), err))
	}
	g.member, g.nslots = m, slots
	g.log.Infof("paimon input on %s joined group %s (%d slots)", g.cfg.FullName(), name, slots)
	return nil
}

// slotCount is group.slots, but at most the bucket count of a fixed-bucket
// table: slot s owns the buckets b with b % slots == s, so slots beyond the
// buckets would own nothing, and the group's balancer, which counts slots,
// not work, could give every busy slot to one replica.
func (g *groupInput) slotCount(ctx context.Context) (int, error) {
	cfg := g.cfg
	cfg.Group, cfg.Read.ConsumerID = nil, ""
	src, err := g.open(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("paimon input on %s: %w", g.cfg.FullName(), err)
	}
	defer src.Close()
	slots := g.cfg.Group.Slots
	if bc, ok := src.(bucketCounter); ok {
		if mode, n := bc.Buckets(); mode == "fixed" && n < slots {
			g.log.Infof("paimon input on %s: the table has %d buckets, so the group uses %d slots instead of %d", g.cfg.FullName(), n, n, slots)
			slots = n
		}
	}
	return slots, nil
}

// Assigned implements group.Handler: a reader per new slot.
func (g *groupInput) Assigned(_ context.Context, slots []int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	for _, s := range slots {
		if _, ok := g.slots[s]; ok {
			continue
		}
		cfg := g.cfg
		cfg.Group = nil
		cfg.Read.ShardIndex, cfg.Read.ShardCount = int(s), g.nslots
		cfg.Read.ConsumerID = group.SlotConsumerID(g.cfg.Read.ConsumerID, s)
		slot := s
		cfg.fence = func(ctx context.Context, next int64) error { return g.member.Fence(ctx, slot, next) }
		cfg.alloc, cfg.window, cfg.splitReaders, cfg.meta = g.alloc, g.window, g.splitReaders, g.meta
		in := newInput(cfg, g.open, g.mgr)
		in.lagReport = func(v lagValues) { g.slotLag(slot, v) }
		// One slot's position is not the replica's: these gauges would be
		// overwritten by whichever slot wrote last. The lag gauges report
		// the worst slot instead; counters add up across slots.
		in.m.lag, in.m.committed, in.m.progress = tableGauge{}, tableGauge{}, progressMetrics{}
		if !cfg.Batching.IsNoop() {
			b, err := cfg.Batching.NewBatcher(g.mgr)
			if err != nil {
				g.log.Errorf("paimon input on %s slot %d: %v", g.cfg.FullName(), s, err)
				continue
			}
			in.cur.batcher = b
		}
		ctx, cancel := context.WithCancel(g.stopCtx)
		r := &slotReader{slot: s, in: in, cancel: cancel, done: make(chan struct{})}
		g.slots[s] = r
		go g.read(ctx, r)
	}
	g.countRebalance(slots)
	g.m.owned.Set(int64(len(g.slots)))
	g.log.Infof("paimon input on %s: slots %v assigned, owning %v", g.cfg.FullName(), slots, g.owned())
}

func (g *groupInput) owned() []int32 {
	out := make([]int32, 0, len(g.slots))
	for s := range g.slots {
		out = append(out, s)
	}
	return out
}

// read moves one slot's batches to the merged output until ctx ends or the
// slot's read does.
func (g *groupInput) read(ctx context.Context, r *slotReader) {
	defer close(r.done)
	for ctx.Err() == nil {
		if err := r.in.Connect(ctx); err != nil {
			if errors.Is(err, service.ErrEndOfInput) {
				return
			}
			g.log.Errorf("paimon input on %s slot %d: %v", g.cfg.FullName(), r.slot, err)
			if sleepCtx(ctx, time.Second) != nil {
				return
			}
			continue
		}
		b, ack, err := r.in.ReadBatch(ctx)
		switch {
		case errors.Is(err, service.ErrEndOfInput):
			if r.in.stoppedOn() != nil {
				// The slot's reader stopped on a permanent error (it
				// logged it and Failed() holds it): the replica stops too,
				// rather than follow the table without that slot.
				g.stop()
			}
			return
		case errors.Is(err, service.ErrNotConnected):
			continue
		case err != nil:
			if ctx.Err() == nil {
				g.log.Errorf("paimon input on %s slot %d: %v", g.cfg.FullName(), r.slot, err)
			}
			continue
		}
		r.pending.Add(1)
		once := sync.Once{}
		wrapped := func(actx context.Context, aerr error) error {
			err := ack(actx, aerr)
			once.Do(r.pending.Done)
			return err
		}
		select {
		case g.out <- slotBatch{b, wrapped}:
		case <-ctx.Done():
			// Not delivered: a rejection makes the slot's reader keep its
			// position before it.
			_ = wrapped(context.Background(), errors.New("slot revoked before delivery"))
			return
		}
	}
}

// Revoked implements group.Handler: stop reading, wait for what was
// delivered to be acknowledged, store the progress, then let the slot go.
func (g *groupInput) Revoked(ctx context.Context, slots []int32) {
	g.countRebalance(slots)
	g.release(ctx, slots, true)
}

// Lost implements group.Handler: the slots are someone else's already;
// stop without storing progress (the fence would refuse it anyway).
func (g *groupInput) Lost(ctx context.Context, slots []int32) {
	g.countRebalance(slots)
	g.release(ctx, slots, false)
}

// countRebalance counts an assignment, revocation or loss of some slots in
// paimon_group_rebalances.
func (g *groupInput) countRebalance(slots []int32) {
	if len(slots) > 0 {
		g.m.rebalances.Incr(1)
	}
}

// drainTimeout bounds how long a revoked slot waits for the acks of what
// it delivered; what is still unacknowledged then is delivered again by
// the slot's next owner.
const drainTimeout = 30 * time.Second

func (g *groupInput) release(ctx context.Context, slots []int32, drain bool) {
	g.mu.Lock()
	var rs []*slotReader
	for _, s := range slots {
		if r, ok := g.slots[s]; ok {
			rs = append(rs, r)
			delete(g.slots, s)
		}
	}
	g.m.owned.Set(int64(len(g.slots)))
	g.mu.Unlock()
	for _, r := range rs {
		r.cancel()
		<-r.done
		if drain {
			waited := make(chan struct{})
			go func() { r.pending.Wait(); close(waited) }()
			select {
			case <-waited:
			case <-time.After(drainTimeout):
				g.log.Warnf("paimon input on %s slot %d: acknowledgements still pending after %s; the next owner delivers them again", g.cfg.FullName(), r.slot, drainTimeout)
			case <-ctx.Done():
			}
		}
		if err := r.in.Close(ctx); err != nil {
			g.log.Errorf("paimon input on %s slot %d: %v", g.cfg.FullName(), r.slot, err)
		}
		g.dropSlotLag(r.slot)
	}
	if len(rs) > 0 {
		verb := "revoked"
		if !drain {
			verb = "lost"
		}
		g.log.Infof("paimon input on %s: slots %v %s", g.cfg.FullName(), slots, verb)
	}
}

// ReadBatch returns the next batch of any owned slot.
func (g *groupInput) ReadBatch(ctx context.Context) (service.MessageBatch, service.AckFunc, error) {
	select {
	case sb := <-g.out:
		return sb.b, sb.ack, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-g.stopCtx.Done():
		return nil, nil, service.ErrEndOfInput
	}
}

// Close leaves the group; its slots are revoked (drained and stored) on
// the way out.
func (g *groupInput) Close(ctx context.Context) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	m := g.member
	g.mu.Unlock()
	if m != nil {
		// Leaving revokes every slot through Revoked, which drains them.
		done := make(chan struct{})
		go func() { m.Close(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	g.stop()
	g.mu.Lock()
	left := g.owned()
	g.mu.Unlock()
	g.release(ctx, left, true)
	return nil
}

// stopOnPermanent ends the replica on an error no retry mends (a missing
// table, a changed slot count): logged once, kept for Failed(), and the
// input ends; other errors are returned for Benthos to retry Connect.
func (g *groupInput) stopOnPermanent(err error) error {
	if !isPermanent(err) && !errors.Is(err, group.ErrSlotsChanged) {
		return err
	}
	// Logged once per replica; Failed() keeps the process's first.
	if g.stopErr.CompareAndSwap(nil, &err) {
		failed.CompareAndSwap(nil, &err)
		g.log.Errorf("paimon input stopped: %v (a permanent error: retrying cannot succeed)", err)
	}
	g.stop()
	return service.ErrEndOfInput
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// splitReadersPerReplica is how many splits a replica's slot readers read
// at a time: each split has a decoder and encoders of its own, so more than
// the cores only adds working sets.
// groupMetadataCacheBytes bounds the manifests a replica keeps decoded for
// its slots: about 150,000 data files' entries, the plans of a large table
// or many snapshots of a busy one. Past it, slots that plan together still
// share what they decode at the same time.
const groupMetadataCacheBytes = 64 << 20

func splitReadersPerReplica() int { return max(1, runtime.GOMAXPROCS(0)) }
