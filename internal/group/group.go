// Package group shares a table's work among replicas through Kafka's
// consumer-group protocol: the group coordinator users already run hands
// out a fixed number of slots — the partitions of a small coordination
// topic — with the cooperative-sticky balancer, and a slot's owner reads
// that slot's part of the table. Nothing is written to or read from the
// coordination topic; its partitions only name the slots.
//
// Ownership is proven, not assumed: Fence commits the slot's position as
// the group's offset for its partition, which the coordinator accepts only
// from the slot's current owner in the current generation. A replica that
// was paused past its session timeout (a zombie) fails that commit and must
// not write the slot's progress anywhere else either.
package group

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Topic is the coordination topic of group name: one partition per slot,
// no records.
func Topic(name string) string { return "paimon.slots." + name }

// SlotConsumerID is the Paimon consumer that keeps the progress of a
// group's slot: `<consumer_id>-slot-<n>`.
func SlotConsumerID(consumerID string, slot int32) string {
	return fmt.Sprintf("%s-slot-%d", consumerID, slot)
}

// Config describes one replica's membership.
type Config struct {
	// Brokers are the seed brokers; Opts adds connection options (TLS,
	// SASL, client id) in franz-go's form.
	Brokers []string
	Opts    []kgo.Opt
	// Name is the consumer group; Topic the coordination topic, whose
	// partition count is the slot count.
	Name, Topic string
	// Slots is the number of slots. The topic is created with that many
	// partitions; an existing topic with another count is an error (a
	// change of the slot count moves every slot's progress: a migration).
	Slots int
	// InstanceID, when set, makes the membership static: a replica that
	// restarts within the session timeout keeps its slots without a
	// rebalance.
	InstanceID string
	// SessionTimeout is how long the coordinator waits for a silent member
	// before giving its slots away (0: franz-go's 45 s).
	SessionTimeout time.Duration
}

// Handler is told about slot changes. Each call runs in the group's
// rebalance: the slots it names move to other replicas only once it
// returns.
type Handler interface {
	// Assigned: start reading these slots.
	Assigned(ctx context.Context, slots []int32)
	// Revoked: stop reading these slots, wait for what was delivered to be
	// acknowledged, store their progress, then return.
	Revoked(ctx context.Context, slots []int32)
	// Lost: the slots are gone already (the session expired); stop reading
	// them without storing progress.
	Lost(ctx context.Context, slots []int32)
}

// Member is one replica's membership of the group.
type Member struct {
	cfg Config
	cl  *kgo.Client
	mu  sync.Mutex
	own map[int32]bool
}

// ErrSlotsChanged is wrapped when the coordination topic exists with
// another slot count: a configuration error that no retry mends.
var ErrSlotsChanged = errors.New("the group's slot count changed")

// ErrNotOwner is returned by Fence when this replica no longer owns the
// slot: its progress must not be written.
var ErrNotOwner = errors.New("this replica no longer owns the slot")

// Join creates the coordination topic when it is missing and joins the
// group. Assignments arrive through h.
func Join(ctx context.Context, cfg Config, h Handler) (*Member, error) {
	if cfg.Slots < 1 {
		return nil, fmt.Errorf("group %s: slots must be at least 1, got %d", cfg.Name, cfg.Slots)
	}
	m := &Member{cfg: cfg, own: map[int32]bool{}}
	opts := append([]kgo.Opt{kgo.SeedBrokers(cfg.Brokers...)}, cfg.Opts...)
	admin, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("group %s: %w", cfg.Name, err)
	}
	err = ensureTopic(ctx, kadm.NewClient(admin), cfg.Topic, cfg.Slots)
	admin.Close()
	if err != nil {
		return nil, fmt.Errorf("group %s: %w", cfg.Name, err)
	}
	slotsOf := func(ps map[string][]int32) []int32 {
		out := slices.Clone(ps[cfg.Topic])
		slices.Sort(out)
		return out
	}
	opts = append(opts,
		kgo.ConsumerGroup(cfg.Name),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.Balancers(kgo.CooperativeStickyBalancer()),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(ctx context.Context, _ *kgo.Client, ps map[string][]int32) {
			s := slotsOf(ps)
			m.set(s, true)
			h.Assigned(ctx, s)
		}),
		kgo.OnPartitionsRevoked(func(ctx context.Context, _ *kgo.Client, ps map[string][]int32) {
			s := slotsOf(ps)
			h.Revoked(ctx, s) // still the owner while it drains and stores progress
			m.set(s, false)
		}),
		kgo.OnPartitionsLost(func(ctx context.Context, _ *kgo.Client, ps map[string][]int32) {
			s := slotsOf(ps)
			m.set(s, false)
			h.Lost(ctx, s)
		}),
	)
	if cfg.InstanceID != "" {
		opts = append(opts, kgo.InstanceID(cfg.InstanceID))
	}
	if cfg.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(cfg.SessionTimeout))
	}
	if m.cl, err = kgo.NewClient(opts...); err != nil {
		return nil, fmt.Errorf("group %s: %w", cfg.Name, err)
	}
	// The group is joined by the first poll; polling also runs the
	// callbacks. The topic holds no records, so polls only wait.
	go m.poll()
	return m, nil
}

func (m *Member) poll() {
	for {
		fs := m.cl.PollFetches(context.Background())
		if fs.IsClientClosed() {
			return
		}
	}
}

func (m *Member) set(slots []int32, own bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range slots {
		if own {
			m.own[s] = true
		} else {
			delete(m.own, s)
		}
	}
}

// Owned returns the slots this replica owns now, sorted.
func (m *Member) Owned() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]int32, 0, len(m.own))
	for s := range m.own {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Fence proves to the coordinator that this replica still owns slot, by
// committing next as the group's offset of the slot's partition in the
// current generation, and returns ErrNotOwner when it does not. Call it
// before every write of the slot's progress, and write only on success.
func (m *Member) Fence(ctx context.Context, slot int32, next int64) error {
	m.mu.Lock()
	owned := m.own[slot]
	m.mu.Unlock()
	if !owned {
		return fmt.Errorf("group %s slot %d: %w", m.cfg.Name, slot, ErrNotOwner)
	}
	var cerr error
	m.cl.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{m.cfg.Topic: {slot: {Epoch: -1, Offset: next}}},
		func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			if err != nil {
				cerr = err
				return
			}
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
						cerr = e
					}
				}
			}
		})
	switch {
	case cerr == nil:
		return nil
	case errors.Is(cerr, kerr.IllegalGeneration), errors.Is(cerr, kerr.UnknownMemberID),
		errors.Is(cerr, kerr.FencedInstanceID), errors.Is(cerr, kerr.RebalanceInProgress):
		return fmt.Errorf("group %s slot %d: %w (%v)", m.cfg.Name, slot, ErrNotOwner, cerr)
	}
	return fmt.Errorf("group %s slot %d: commit the fence offset: %w", m.cfg.Name, slot, cerr)
}

// Close leaves the group: owned slots are revoked through the handler
// (which drains and stores them) before Close returns.
func (m *Member) Close() {
	m.cl.Close()
}

// ensureTopic creates the coordination topic with slots partitions, or
// checks that the existing one has that many.
func ensureTopic(ctx context.Context, adm *kadm.Client, topic string, slots int) error {
	resp, err := adm.CreateTopic(ctx, int32(slots), -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err == nil {
		return nil
	}
	if !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("create coordination topic %s: %w", topic, err)
	}
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return fmt.Errorf("describe coordination topic %s: %w", topic, err)
	}
	d, ok := td[topic]
	if !ok || d.Err != nil {
		return fmt.Errorf("describe coordination topic %s: %v", topic, d.Err)
	}
	if n := len(d.Partitions); n != slots {
		return fmt.Errorf("coordination topic %s has %d partitions but slots is %d: changing the slot count moves every slot's share of the table; use a new group name (and new consumer ids) to change it: %w", topic, n, slots, ErrSlotsChanged)
	}
	return nil
}
