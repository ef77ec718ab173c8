package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
)

// TestTransactionsCommitRowsWithTheirPosition drives the committer as the
// paimon input does, on kfake: rows written and committed with a position
// are visible to a read_committed consumer and the position comes back on
// the next Resume; rows of an aborted transaction are not, and a second
// owner's Resume fences the first, whose commit then fails as fenced.
func TestTransactionsCommitRowsWithTheirPosition(t *testing.T) {
	brokers := fakeCluster(t).ListenAddrs()
	yaml := fmt.Sprintf("seed_brokers: [ %s ]\ntopic: rows\nexactly_once: {enabled: true, progress_topic: progress}\n", brokers[0])
	o := newTestOutput(t, yaml)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := exactlyonce.Key{Table: "db.t", Consumer: "c"}
	if _, ok, err := o.txn.Resume(ctx, k); err != nil || ok {
		t.Fatalf("first Resume: ok %t, %v; want no position", ok, err)
	}
	batch := func(from, to int) service.MessageBatch {
		var b service.MessageBatch
		for i := from; i < to; i++ {
			m := service.NewMessage([]byte(fmt.Sprintf(`{"id":%d}`, i)))
			m.MetaSetMut(exactlyonce.MetaTable, k.Table)
			m.MetaSetMut(exactlyonce.MetaConsumer, k.Consumer)
			b = append(b, m)
		}
		return b
	}
	if err := o.WriteBatch(ctx, batch(0, 10)); err != nil {
		t.Fatal(err)
	}
	pos := exactlyonce.Position{Snapshot: 3, Split: 1, Rows: 4, File: "f"}
	if err := o.txn.Commit(ctx, k, pos); err != nil {
		t.Fatal(err)
	}
	if err := o.WriteBatch(ctx, batch(10, 15)); err != nil {
		t.Fatal(err)
	}
	if err := o.txn.Abort(ctx, k); err != nil {
		t.Fatal(err)
	}
	if got := committedCount(t, brokers, "rows"); got != 10 {
		t.Fatalf("a read_committed consumer sees %d rows, want the 10 committed", got)
	}

	// A second owner takes the key over: it reads the position, and the
	// first owner can commit nothing more.
	o2 := newTestOutput(t, yaml)
	got, ok, err := o2.txn.Resume(ctx, k)
	if err != nil || !ok || got != pos {
		t.Fatalf("second owner's Resume = %+v, %t, %v; want %+v", got, ok, err, pos)
	}
	if err := o.WriteBatch(ctx, batch(15, 20)); err == nil {
		err = o.txn.Commit(ctx, k, exactlyonce.Position{Snapshot: 4, Done: true})
		if err == nil {
			t.Fatal("the fenced owner committed")
		}
	}
	if got := committedCount(t, brokers, "rows"); got != 10 {
		t.Fatalf("after the fenced owner's attempt a read_committed consumer sees %d rows, want 10", got)
	}
}

// TestTransactionsRefuseForeignMessages: a message that no paimon input
// with a consumer sent cannot be placed in a transaction.
func TestTransactionsRefuseForeignMessages(t *testing.T) {
	c := fakeCluster(t)
	o := newTestOutput(t, fmt.Sprintf("seed_brokers: [ %s ]\ntopic: rows\nexactly_once: {enabled: true}\n", c.ListenAddrs()[0]))
	err := o.WriteBatch(context.Background(), service.MessageBatch{service.NewMessage([]byte("x"))})
	if err == nil {
		t.Fatal("a message without paimon metadata was written transactionally")
	}
}

func committedCount(t *testing.T, brokers []string, topic string) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	n := 0
	for dry := 0; dry < 2; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		if fs.NumRecords() == 0 {
			dry++
		}
		n += fs.NumRecords()
	}
	return n
}
