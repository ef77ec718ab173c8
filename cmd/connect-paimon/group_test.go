package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// startGroupReplica runs a pipeline whose paimon input joins group of the
// table demo.orders in wh, as a replica of a deployment would.
func startGroupReplica(t *testing.T, wh, brokers, instance string) {
	t.Helper()
	sb := service.NewStreamBuilder()
	if err := sb.SetLoggerYAML("level: warn"); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddInputYAML(fmt.Sprintf(`paimon:
  warehouse: %s
  table: demo.orders
  consumer_id: describe-me
  commit_period: 200ms
  poll_interval: 200ms
  group:
    seed_brokers: [ %s ]
    slots: 3
    client_id: replica-%s
    instance_id: %s
    session_timeout: 10s
`, wh, brokers, instance, instance)); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddOutputYAML("drop: {}"); err != nil {
		t.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = strm.Run(context.Background()); close(done) }()
	t.Cleanup(func() {
		_ = strm.StopWithin(20 * time.Second)
		<-done
	})
}

// Against a real broker, two replicas share demo.orders; `paimon group
// describe` lists both (client id, instance id, slots) and each slot's
// position in its Paimon consumer and in the group's committed offset.
func TestGroupDescribe(t *testing.T) {
	broker := testenv.StartKafka(t)
	wh := copyTable(t, "demo", "orders")
	startGroupReplica(t, wh, broker.Addr, "a")
	startGroupReplica(t, wh, broker.Addr, "b")
	args := []string{"paimon", "group", "describe", "demo.orders", "-w", wh, "--consumer-id", "describe-me", "--seed-brokers", broker.Addr}
	var g groupJSON
	settled := func() bool {
		if len(g.Members) != 2 || len(g.Slots) != 3 {
			return false
		}
		// Until the second member's first rebalance ends, the first may own
		// every slot: the group is settled once both own some.
		for _, m := range g.Members {
			if len(m.Slots) == 0 {
				return false
			}
		}
		for _, s := range g.Slots {
			if s.Owner == "" || s.NextSnapshotID == nil || s.CommittedOffset == nil || *s.NextSnapshotID != *s.CommittedOffset {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(90 * time.Second)
	var last result
	for {
		last = run(t, append(args, "--format", "json")...)
		if last.code == 0 && last.err == nil {
			g = groupJSON{}
			if err := json.Unmarshal([]byte(last.out), &g); err != nil {
				t.Fatalf("%v\n%s", err, last.out)
			}
			if settled() {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group did not settle: exit %d %v\n%s%s", last.code, last.err, last.out, last.stderr)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if g.Group != "describe-me" || g.Topic != "paimon.slots.describe-me" || g.SlotCount != 3 || g.Table != "demo.orders" {
		t.Errorf("header: %+v", g)
	}
	owned := map[int32]string{}
	for _, m := range g.Members {
		if m.ClientID != "replica-"+m.InstanceID || m.Host == "" || len(m.Slots) == 0 {
			t.Errorf("member %+v: want client id replica-<instance id>, a host, and slots", m)
		}
		for _, s := range m.Slots {
			owned[s] = m.MemberID
		}
	}
	for _, s := range g.Slots {
		if owned[s.Slot] != s.Owner || s.ConsumerID != fmt.Sprintf("describe-me-slot-%d", s.Slot) {
			t.Errorf("slot %+v: owner or consumer wrong (members own %v)", s, owned)
		}
	}
	// The table form names the same things.
	out := mustRun(t, args...)
	for _, want := range []string{"MEMBER", "replica-a", "replica-b", "SLOT", "describe-me-slot-2", "COMMITTED_OFFSET"} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("describe:\n%s", out)
	// A group no replica joined is an error that says so.
	r := run(t, "paimon", "group", "describe", "demo.orders", "-w", wh, "--consumer-id", "nobody", "--seed-brokers", broker.Addr)
	if r.code == 0 || !strings.Contains(r.out+r.stderr+fmt.Sprint(r.err), "no replica") {
		t.Errorf("unknown group: exit %d %v\n%s%s", r.code, r.err, r.out, r.stderr)
	}
}
