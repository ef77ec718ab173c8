package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/urfave/cli/v2"

	"github.com/connect-paimon/connect-paimon/internal/group"
	"github.com/connect-paimon/connect-paimon/internal/kafkaconn"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
)

// `paimon group describe`: the members of an input's group, their slots, and
// each slot's position (its Paimon consumer and the group's committed
// offset, which the input's fence writes with the same position).

const (
	flagConsumerID   = "consumer-id"
	flagSeedBrokers  = "seed-brokers"
	flagGroupName    = "group"
	flagKafkaTLS     = "tls"
	flagSASLMech     = "sasl-mechanism"
	flagSASLUser     = "sasl-username"
	flagSASLPassword = "sasl-password"
)

func groupCommand(sio stdio) *cli.Command {
	return &cli.Command{
		Name:  "group",
		Usage: "Inspect the Kafka consumer group replicas of the paimon input share a table through (the input's group field)",
		Subcommands: []*cli.Command{{
			Name:      "describe",
			Usage:     "List the group's members with their slots, and each slot's position: its Paimon consumer (ID-slot-N for --consumer-id ID) and the group's committed offset",
			ArgsUsage: "[DATABASE.TABLE] --consumer-id ID --seed-brokers HOST:PORT",
			Flags: tableJSONFlags(
				&cli.StringFlag{Name: flagConsumerID, Usage: "the input's consumer_id: slot N keeps its position in the Paimon consumer ID-slot-N"},
				&cli.StringSliceFlag{Name: flagSeedBrokers, EnvVars: []string{"KAFKA_BROKERS"}, Usage: "the group's Kafka brokers, the input's group.seed_brokers (comma-separated or repeated)", Category: "Kafka"},
				&cli.StringFlag{Name: flagGroupName, Usage: "the input's group.name (default: the consumer id)", Category: "Kafka"},
				&cli.BoolFlag{Name: flagKafkaTLS, Usage: "connect to the brokers with TLS (system roots)", Category: "Kafka"},
				&cli.StringFlag{Name: flagSASLMech, Usage: "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", Category: "Kafka"},
				&cli.StringFlag{Name: flagSASLUser, Usage: "SASL username", Category: "Kafka"},
				&cli.StringFlag{Name: flagSASLPassword, EnvVars: []string{"KAFKA_SASL_PASSWORD"}, Usage: "SASL password", Category: "Kafka"},
			),
			Action: action(sio, groupDescribe),
		}},
	}
}

// groupMemberJSON is one member of the group.
type groupMemberJSON struct {
	MemberID   string  `json:"member_id"`
	ClientID   string  `json:"client_id"`
	Host       string  `json:"host"`
	InstanceID string  `json:"instance_id,omitempty"`
	Slots      []int32 `json:"slots"`
}

// groupSlotJSON is one slot's owner and position. NextSnapshotID is the
// slot's consumer file (absent: never written); CommittedOffset the
// group's offset of the slot's partition (absent: never fenced).
type groupSlotJSON struct {
	Slot            int32  `json:"slot"`
	Owner           string `json:"owner,omitempty"`
	ConsumerID      string `json:"consumer_id"`
	NextSnapshotID  *int64 `json:"next_snapshot_id"`
	CommittedOffset *int64 `json:"committed_offset"`
}

type groupJSON struct {
	Table     string            `json:"table"`
	Group     string            `json:"group"`
	Topic     string            `json:"topic"`
	State     string            `json:"state"`
	SlotCount int               `json:"slot_count"`
	Members   []groupMemberJSON `json:"members"`
	Slots     []groupSlotJSON   `json:"slots"`
}

// kafkaOpts are the connection options the flags describe.
func kafkaOpts(c *cli.Context) ([]kgo.Opt, error) {
	seeds := kafkaconn.SplitSeeds(c.StringSlice(flagSeedBrokers))
	if len(seeds) == 0 {
		return nil, fmt.Errorf("%s needs --%s (or KAFKA_BROKERS): the brokers of the input's group", commandPath(c), flagSeedBrokers)
	}
	opts := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ClientID("connect-paimon-cli")}
	if c.Bool(flagKafkaTLS) {
		opts = append(opts, kgo.DialTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	m, err := kafkaconn.Mechanism(c.String(flagSASLMech), c.String(flagSASLUser), c.String(flagSASLPassword), "", nil)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flagSASLMech, err)
	}
	if m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// groupTimeout bounds the broker requests of one describe.
const groupTimeout = 30 * time.Second

func groupDescribe(c *cli.Context, sio stdio) error {
	if _, err := tableArgs(c, 0, ""); err != nil {
		return err
	}
	id := c.String(flagConsumerID)
	if id == "" {
		return fmt.Errorf("%s needs --%s: the input's consumer_id", commandPath(c), flagConsumerID)
	}
	if err := consumer.ValidateID(id); err != nil {
		return fmt.Errorf("--%s: %w", flagConsumerID, err)
	}
	opts, err := kafkaOpts(c)
	if err != nil {
		return err
	}
	name := c.String(flagGroupName)
	if name == "" {
		name = id
	}
	ot, err := openTable(c.Context, c)
	if err != nil {
		return err
	}
	defer ot.Close()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(c.Context, groupTimeout)
	defer cancel()
	g, err := describeGroup(ctx, kadm.NewClient(cl), name)
	if err != nil {
		return err
	}
	g.Table = ot.tbl.Name()
	cm := ot.consumers()
	for i := range g.Slots {
		s := &g.Slots[i]
		s.ConsumerID = group.SlotConsumerID(id, s.Slot)
		cs, ok, err := cm.Consumer(c.Context, s.ConsumerID)
		if err != nil {
			return fmt.Errorf("table %s: consumer %s: %w", g.Table, s.ConsumerID, err)
		}
		if ok {
			next := cs.NextSnapshot
			s.NextSnapshotID = &next
		}
	}
	if wantJSON(c) {
		return writeJSON(sio.out, g)
	}
	return writeGroupTables(sio.out, g)
}

// describeGroup reads the group's members, their slots (the partitions of
// the coordination topic assigned to them) and its committed offsets.
func describeGroup(ctx context.Context, adm *kadm.Client, name string) (*groupJSON, error) {
	topic := group.Topic(name)
	g := &groupJSON{Group: name, Topic: topic, Members: []groupMemberJSON{}, Slots: []groupSlotJSON{}}
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("group %s: list topic %s: %w", name, topic, err)
	}
	td, ok := tds[topic]
	if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
		return nil, fmt.Errorf("group %s: no coordination topic %s: no replica of the input has joined this group on these brokers (check --%s, --%s and --%s)", name, topic, flagConsumerID, flagGroupName, flagSeedBrokers)
	}
	if td.Err != nil {
		return nil, fmt.Errorf("group %s: topic %s: %w", name, topic, td.Err)
	}
	g.SlotCount = len(td.Partitions)
	dgs, err := adm.DescribeGroups(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("group %s: describe: %w", name, err)
	}
	dg, ok := dgs[name]
	if !ok {
		return nil, fmt.Errorf("group %s: not described by the brokers", name)
	}
	if dg.Err != nil {
		return nil, fmt.Errorf("group %s: describe: %w", name, dg.Err)
	}
	g.State = dg.State
	owner := map[int32]string{}
	for _, m := range dg.Members {
		gm := groupMemberJSON{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, Slots: []int32{}}
		if m.InstanceID != nil {
			gm.InstanceID = *m.InstanceID
		}
		if a, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range a.Topics {
				if t.Topic == topic {
					gm.Slots = append(gm.Slots, t.Partitions...)
				}
			}
		}
		slices.Sort(gm.Slots)
		for _, s := range gm.Slots {
			owner[s] = m.MemberID
		}
		g.Members = append(g.Members, gm)
	}
	offs, err := adm.FetchOffsets(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("group %s: fetch committed offsets: %w", name, err)
	}
	for s := int32(0); s < int32(g.SlotCount); s++ {
		gs := groupSlotJSON{Slot: s, Owner: owner[s]}
		if o, ok := offs.Lookup(topic, s); ok && o.Err == nil && o.At >= 0 {
			at := o.At
			gs.CommittedOffset = &at
		}
		g.Slots = append(g.Slots, gs)
	}
	return g, nil
}

func writeGroupTables(w io.Writer, g *groupJSON) error {
	fmt.Fprintf(w, "group %s (topic %s, %d slots) of %s: %s, %d members\n\n", g.Group, g.Topic, g.SlotCount, g.Table, g.State, len(g.Members))
	tw := newTable(w)
	fmt.Fprintln(tw, "MEMBER\tCLIENT_ID\tHOST\tINSTANCE_ID\tSLOTS")
	for _, m := range g.Members {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.MemberID, m.ClientID, m.Host, orDash(m.InstanceID), joinSlots(m.Slots))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = newTable(w)
	fmt.Fprintln(tw, "SLOT\tOWNER\tCONSUMER\tNEXT_SNAPSHOT\tCOMMITTED_OFFSET")
	for _, s := range g.Slots {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", s.Slot, orDash(s.Owner), s.ConsumerID, orDashInt(s.NextSnapshotID), orDashInt(s.CommittedOffset))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orDashInt(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func joinSlots(s []int32) string {
	if len(s) == 0 {
		return "-"
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}
