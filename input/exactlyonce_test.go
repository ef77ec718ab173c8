package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// fakeTxn is a transactional sink: acknowledged bodies wait in the open
// transaction, Commit moves them to the topic with the position, Abort
// drops them — the contract kafka_franz's exactly_once keeps.
type fakeTxn struct {
	mu        sync.Mutex
	open      []string
	topic     []string
	pos       *exactlyonce.Position
	commits   []exactlyonce.Position
	down      bool // Commit fails, as with a broker gone
	resumes   int
	aborts    int
	released  int
	wrongKeys int
}

func (f *fakeTxn) Resume(_ context.Context, k exactlyonce.Key) (exactlyonce.Position, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resumes++
	f.open = nil // a new owner's fence aborts the old open transaction
	if k.Consumer != "eo" || k.Table != "db.t" {
		f.wrongKeys++
	}
	if f.pos == nil {
		return exactlyonce.Position{}, false, nil
	}
	return *f.pos, true, nil
}

func (f *fakeTxn) Commit(_ context.Context, _ exactlyonce.Key, pos exactlyonce.Position) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errors.New("broker unreachable")
	}
	f.topic = append(f.topic, f.open...)
	f.open = nil
	f.pos = &pos
	f.commits = append(f.commits, pos)
	return nil
}

func (f *fakeTxn) Abort(context.Context, exactlyonce.Key) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.aborts++
	f.open = nil
	return nil
}

func (f *fakeTxn) Release(context.Context, exactlyonce.Key) error {
	f.mu.Lock()
	f.released++
	f.mu.Unlock()
	return nil
}

func (f *fakeTxn) write(bodies []string) {
	f.mu.Lock()
	f.open = append(f.open, bodies...)
	f.mu.Unlock()
}

func (f *fakeTxn) committed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.topic)
}

// eoPlans is one snapshot's changes in three splits of seven rows, the
// first split's data file named so a changed plan is noticed.
func eoPlans() []*fakePlan {
	return []*fakePlan{{SnapshotID: 5, Splits: []*fakeSplit{
		{Bucket: 0, File: "data-a", Handle: fakeRows{ids: ids(1, 7), recordSize: 2}},
		{Bucket: 1, File: "data-b", Handle: fakeRows{ids: ids(8, 14), recordSize: 2}},
		{Bucket: 2, File: "data-c", Handle: fakeRows{ids: ids(15, 21), recordSize: 2}},
	}}}
}

// eoInput is an input over src in a stream whose output is txn; opened
// records the configurations it opened the source with.
func eoInput(t *testing.T, src *fakeSource, txn *fakeTxn, opened *[]config) *paimonInput {
	t.Helper()
	return inputWithTxn(t, "warehouse: /wh\ntable: db.t\nconsumer_id: eo\nbatch_size: 3\ncommit_period: 1ms\n", txn,
		func(_ context.Context, c config) (source, error) {
			*opened = append(*opened, c)
			return src, nil
		})
}

// inputWithTxn is the input the YAML configures over open, in a stream whose output is txn
// (nil: an output without exactly once).
func inputWithTxn(t *testing.T, yaml string, txn *fakeTxn, open opener) *paimonInput {
	t.Helper()
	pc, err := inputSpec().ParseYAML(yaml, service.NewEnvironment())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	res := service.MockResources()
	if txn != nil {
		if err := exactlyonce.Register(res, txn); err != nil {
			t.Fatal(err)
		}
	}
	return newInput(cfg, open, res)
}

// pump plays the pipeline: it reads batches, writes them into the open
// transaction and acknowledges them (reject: the nth batch is rejected
// instead), reconnecting when the input asks, until the input ends or
// stopAfter batches were taken.
func pump(t *testing.T, in *paimonInput, txn *fakeTxn, stopAfter, reject int) {
	pumpRejecting(t, in, txn, stopAfter, reject, errors.New("output refused the batch"))
}

// pumpRejecting is pump rejecting the reject-th batch with rejectErr.
func pumpRejecting(t *testing.T, in *paimonInput, txn *fakeTxn, stopAfter, reject int, rejectErr error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := in.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	for n := 1; stopAfter == 0 || n <= stopAfter; {
		// Longer than commit_period: every batch boundary is a barrier.
		time.Sleep(2 * time.Millisecond)
		b, ack, err := in.ReadBatch(ctx)
		switch {
		case errors.Is(err, service.ErrNotConnected):
			if err := in.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			continue
		case errors.Is(err, service.ErrEndOfInput):
			return
		case err != nil:
			t.Fatal(err)
		}
		if n == reject {
			_ = ack(ctx, rejectErr)
		} else {
			txn.write(batchBodies(b))
			_ = ack(ctx, nil)
		}
		n++
	}
}

// TestExactlyOnceResumesMidPlan: the input commits every few rows, crashes
// (its last transaction never commits), and a new input resumes after the
// last committed row — of the same snapshot's plan, from the split and row
// the position names — so the committed topic holds every row once, in
// order.
func TestExactlyOnceResumesMidPlan(t *testing.T) {
	txn := &fakeTxn{}
	var opened []config
	first := eoInput(t, &fakeSource{plans: eoPlans()}, txn, &opened)
	pump(t, first, txn, 4, 0) // 12 rows delivered, the barriers committed some
	txn.mu.Lock()
	txn.down = true // the crash: nothing more commits, the open transaction dies
	txn.mu.Unlock()
	_ = first.Close(context.Background())
	txn.mu.Lock()
	txn.down, txn.open = false, nil
	pos := *txn.pos
	txn.mu.Unlock()
	if pos.Snapshot != 5 || pos.Done || (pos.Split == 0 && pos.Rows == 0) {
		t.Fatalf("committed position %+v, want one inside snapshot 5's plan", pos)
	}
	if got := len(txn.committed()); got == 0 || got >= 12 {
		t.Fatalf("%d rows committed before the crash, want some but not all 12 delivered", got)
	}

	opened = nil
	second := eoInput(t, &fakeSource{plans: eoPlans(), eof: true}, txn, &opened)
	pump(t, second, txn, 0, 0)
	_ = second.Close(context.Background())
	if len(opened) != 1 || opened[0].Read.StartMode != paimon.StartFromSnapshot || opened[0].Read.StartSnapshot != 5 || !opened[0].Read.IgnoreConsumerProgress {
		t.Fatalf("resumed with %+v, want from-snapshot 5 ignoring the consumer file", opened[0].Read)
	}
	if got, want := txn.committed(), idsInOrder(1, 21); !slices.Equal(got, want) {
		t.Fatalf("committed rows\n%q\nwant each of 1..21 once, in order\n%q", got, want)
	}
	if last := txn.commits[len(txn.commits)-1]; !last.Done || last.Snapshot != 5 {
		t.Fatalf("last commit %+v, want snapshot 5 complete", last)
	}
	if txn.wrongKeys != 0 {
		t.Fatalf("resumed %d times with another key than db.t/eo", txn.wrongKeys)
	}
}

// TestExactlyOnceRejectionRewinds: a rejected batch is not replayed into
// the transaction (its rows would be missing from it, or doubled): the
// transaction is aborted and the input reads again from the committed
// position.
func TestExactlyOnceRejectionRewinds(t *testing.T) {
	txn := &fakeTxn{}
	var opened []config
	src := &fakeSource{plans: eoPlans(), eof: true}
	in := eoInput(t, src, txn, &opened)
	// The fake source serves its plans once; the reconnect gets them again.
	in.open = func(_ context.Context, c config) (source, error) {
		opened = append(opened, c)
		return &fakeSource{plans: eoPlans(), eof: true}, nil
	}
	pump(t, in, txn, 0, 3)
	_ = in.Close(context.Background())
	if got, want := txn.committed(), idsInOrder(1, 21); !slices.Equal(got, want) {
		t.Fatalf("committed rows\n%q\nwant each of 1..21 once, in order\n%q", got, want)
	}
	if txn.aborts == 0 || txn.resumes < 2 || len(opened) < 2 {
		t.Fatalf("aborts %d, resumes %d, opens %d: the rejection did not rewind", txn.aborts, txn.resumes, len(opened))
	}
}

// TestExactlyOnceRefusesChangedPlan: a committed position inside a split
// whose first file is not the one the plan now has (another filter, other
// buckets) stops the input, naming both, instead of skipping other rows.
func TestExactlyOnceRefusesChangedPlan(t *testing.T) {
	txn := &fakeTxn{pos: &exactlyonce.Position{Snapshot: 5, Split: 1, Rows: 2, File: "data-x"}}
	var opened []config
	in := eoInput(t, &fakeSource{plans: eoPlans(), eof: true}, txn, &opened)
	pump(t, in, txn, 0, 0)
	_ = in.Close(context.Background())
	err := in.stoppedOn()
	if err == nil || !strings.Contains(err.Error(), "data-x") || !isPermanent(err) {
		t.Fatalf("stopped on %v, want a permanent error naming data-x", err)
	}
	if got := txn.committed(); len(got) != 0 {
		t.Fatalf("committed %q after refusing the plan", got)
	}
}

// TestExactlyOnceNeedsConsumer: without consumer_id there is no key to
// commit positions under; the input says so at connect.
func TestExactlyOnceNeedsConsumer(t *testing.T) {
	res := service.MockResources()
	if err := exactlyonce.Register(res, &fakeTxn{}); err != nil {
		t.Fatal(err)
	}
	pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\n", service.NewEnvironment())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	in := newInput(cfg, func(context.Context, config) (source, error) { return &fakeSource{}, nil }, res)
	_ = in.Connect(context.Background())
	if err := in.stoppedOn(); err == nil || !strings.Contains(err.Error(), "consumer_id") {
		t.Fatalf("stopped on %v, want an error naming consumer_id", err)
	}
}

// idsInOrder is the bodies of ids from..to in read order.
func idsInOrder(from, to int64) []string {
	var out []string
	for id := from; id <= to; id++ {
		out = append(out, fmt.Sprintf(`{"id":%d}`, id))
	}
	return out
}

// keyedTxn is a committer whose writes are keyed by position (S3's).
type keyedTxn struct{ fakeTxn }

func (*keyedTxn) KeysByPosition() bool { return true }

// TestExactlyOnceKeysByPosition: for an output keyed by position, every
// message names its first row's position, and a read resumed after a crash
// cuts the same batches again from the committed position: the first
// attempt's keys after it come back with the same rows.
func TestExactlyOnceKeysByPosition(t *testing.T) {
	txn := &keyedTxn{}
	var opened []config
	read := func(in *paimonInput, max int) map[string][]string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := in.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		byKey := map[string][]string{} // a batch's first position -> its bodies
		for n := 0; max == 0 || n < max; n++ {
			time.Sleep(2 * time.Millisecond)
			b, ack, err := in.ReadBatch(ctx)
			if errors.Is(err, service.ErrEndOfInput) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			first, _ := b[0].MetaGet(exactlyonce.MetaPosition)
			for i, m := range b {
				pos, ok := m.MetaGet(exactlyonce.MetaPosition)
				body, _ := m.AsBytes()
				var row struct{ ID int64 }
				_ = json.Unmarshal(body, &row)
				// Split s holds ids 7s+1..7s+7: row r of it is id 7s+r+1.
				want := exactlyonce.SplitKey(5, false, int((row.ID-1)/7)) + exactlyonce.RowKey((row.ID-1)%7)
				if !ok || pos != want {
					t.Fatalf("message %d (%s) has position %q, want %q", i, body, pos, want)
				}
			}
			byKey[first] = batchBodies(b)
			txn.write(batchBodies(b))
			_ = ack(ctx, nil)
		}
		return byKey
	}
	first := eoInput(t, &fakeSource{plans: eoPlans()}, &txn.fakeTxn, &opened)
	first.eo = nil // eoInput registered the inner fakeTxn; use the keyed one
	first.res = service.MockResources()
	if err := exactlyonce.Register(first.res, txn); err != nil {
		t.Fatal(err)
	}
	before := read(first, 5)
	txn.mu.Lock()
	txn.down = true
	txn.mu.Unlock()
	_ = first.Close(context.Background())
	txn.mu.Lock()
	txn.down, txn.open = false, nil
	pos := *txn.pos
	txn.mu.Unlock()

	second := eoInput(t, &fakeSource{plans: eoPlans(), eof: true}, &txn.fakeTxn, &opened)
	second.res = service.MockResources()
	if err := exactlyonce.Register(second.res, txn); err != nil {
		t.Fatal(err)
	}
	after := read(second, 0)
	_ = second.Close(context.Background())
	resumeKey := exactlyonce.SplitKey(5, false, pos.Split) + exactlyonce.RowKey(pos.Rows)
	if _, ok := after[resumeKey]; !ok {
		t.Fatalf("the resumed read's batches start at %v, none at the committed position %s", keys(after), resumeKey)
	}
	again := 0
	for k, bodies := range before {
		if k < resumeKey {
			continue
		}
		if !slices.Equal(after[k], bodies) {
			t.Fatalf("batch %s held %q before the crash and %q after: a rewrite would not overwrite it", k, bodies, after[k])
		}
		again++
	}
	if again == 0 {
		t.Fatalf("no batch after the committed position %s was written before the crash (%v): the test checked nothing", resumeKey, keys(before))
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestExactlyOnceConfigRefusalStops: an output that refuses rows for a
// reason reading them again cannot mend (exactlyonce.ErrConfig: messages
// that lost their paimon metadata in a processor, say) stops the input with
// that reason instead of rewinding forever.
func TestExactlyOnceConfigRefusalStops(t *testing.T) {
	txn := &fakeTxn{}
	var opened []config
	in := eoInput(t, &fakeSource{plans: eoPlans()}, txn, &opened)
	pumpRejecting(t, in, txn, 0, 2, fmt.Errorf("%w: no paimon_consumer metadata", exactlyonce.ErrConfig))
	_ = in.Close(context.Background())
	if err := in.stoppedOn(); err == nil || !strings.Contains(err.Error(), "no paimon_consumer metadata") {
		t.Fatalf("stopped on %v, want the output's refusal", err)
	}
	if txn.resumes != 1 {
		t.Fatalf("%d resumes: the input read again after a refusal no retry mends", txn.resumes)
	}
}
