package input

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// TestPartialRejectionNarrowsReplays: an output that rejects one message of
// a batch gets the whole batch once more (first deliveries are not indexed),
// then only the rejected message until it is accepted; progress is committed
// only once it is.
func TestPartialRejectionNarrowsReplays(t *testing.T) {
	src := &fakeSource{eof: true, plans: []*fakePlan{{SnapshotID: 7, Splits: []*fakeSplit{
		{Bucket: 0, Handle: fakeRows{ids: ids(1, 6), recordSize: 2}},
	}}}}
	var mu sync.Mutex
	deliveries := map[string]int{}
	accepted := map[string]int{} // messages delivered without an error of their own
	poisonLeft := 3
	runStreamRaw(t, src, "  consumer_id: c\n  batch_size: 3\n", func(b service.MessageBatch) error {
		mu.Lock()
		defer mu.Unlock()
		var bErr *service.BatchError
		for i, m := range b {
			body, err := m.AsBytes()
			if err != nil {
				return err
			}
			deliveries[string(body)]++
			if string(body) == `{"id":2}` && poisonLeft > 0 {
				poisonLeft--
				bErr = service.NewBatchError(b, errors.New("one row refused")).Failed(i, errors.New("poison"))
				continue
			}
			accepted[string(body)]++
		}
		if bErr != nil {
			return bErr
		}
		return nil
	})
	want := map[string]int{
		`{"id":1}`: 2, `{"id":2}`: 4, `{"id":3}`: 2, // whole batch once more, then id 2 alone
		`{"id":4}`: 1, `{"id":5}`: 1, `{"id":6}`: 1,
	}
	for body, n := range want {
		if deliveries[body] != n {
			t.Errorf("%s delivered %d times, want %d (all: %v)", body, deliveries[body], n, deliveries)
		}
	}
	for _, body := range idBodies(ids(1, 6)) {
		if accepted[body] == 0 {
			t.Errorf("%s was never accepted (accepted: %v)", body, accepted)
		}
	}
	if accepted[`{"id":2}`] != 1 {
		t.Errorf(`{"id":2} accepted %d times, want once`, accepted[`{"id":2}`])
	}
	if c := src.commitLog(); len(c) == 0 || c[len(c)-1] != 8 {
		t.Fatalf("commits %v, want last 8", c)
	}
}

// oneSplitInput is a connected input over one snapshot of one split; with
// eof the source ends after it, otherwise it waits for a next snapshot.
func oneSplitInput(t *testing.T, snapshot int64, rows []int64, eof bool, yaml string) *paimonInput {
	t.Helper()
	src := &fakeSource{eof: eof, plans: []*fakePlan{{SnapshotID: snapshot, Splits: []*fakeSplit{
		{Bucket: 0, Handle: fakeRows{ids: rows}},
	}}}}
	in := directInput(t, src, yaml)
	if err := in.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(context.Background()) })
	return in
}

// readAsync runs ReadBatch on a goroutine, so a test can act while it blocks.
func readAsync(in *paimonInput) chan readOutcome {
	ch := make(chan readOutcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b, ack, err := in.ReadBatch(ctx)
		ch <- readOutcome{batchBodies(b), ack, err}
	}()
	return ch
}

type readOutcome struct {
	bodies []string
	ack    service.AckFunc
	err    error
}

func batchBodies(b service.MessageBatch) []string {
	var out []string
	for _, m := range b {
		body, _ := m.AsBytes()
		out = append(out, string(body))
	}
	return out
}

// expectBlocked fails unless ch stays empty for a moment.
func expectBlocked(t *testing.T, ch chan readOutcome, why string) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("ReadBatch returned %v, %v while %s", r.bodies, r.err, why)
	case <-time.After(100 * time.Millisecond):
	}
}

func receive(t *testing.T, ch chan readOutcome) readOutcome {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("ReadBatch did not return")
	}
	return readOutcome{}
}

// TestReplayWhileWaitingForSnapshot: a rejection that arrives while the
// input waits for the next snapshot is replayed at once, not after the wait.
func TestReplayWhileWaitingForSnapshot(t *testing.T) {
	in := oneSplitInput(t, 3, ids(1, 2), false, "consumer_id: c\n")
	ctx := context.Background()
	first := receive(t, readAsync(in))
	if first.err != nil || !slices.Equal(first.bodies, idBodies(ids(1, 2))) {
		t.Fatalf("first read: %v %v", first.bodies, first.err)
	}
	waiting := readAsync(in)
	expectBlocked(t, waiting, "no snapshot is new")
	if err := first.ack(ctx, errors.New("sink down")); err != nil {
		t.Fatal(err)
	}
	replay := receive(t, waiting)
	if replay.err != nil || !slices.Equal(replay.bodies, first.bodies) {
		t.Fatalf("replay: %v %v, want %v", replay.bodies, replay.err, first.bodies)
	}
	if got := in.currentTracker().Committable(); got != 3 {
		t.Fatalf("committable %d before the replay is acked, want 3", got)
	}
	if err := replay.ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := in.currentTracker().Committable(); got != 4 {
		t.Fatalf("committable %d after the replay is acked, want 4", got)
	}
}

// TestEndWaitsForInFlightBatches: a bounded read does not end while a batch
// may still be rejected; a rejection then is replayed, and the input ends
// once everything is acknowledged.
func TestEndWaitsForInFlightBatches(t *testing.T) {
	in := oneSplitInput(t, 1, ids(1, 3), true, "")
	ctx := context.Background()
	first := receive(t, readAsync(in))
	if first.err != nil {
		t.Fatal(first.err)
	}
	next := readAsync(in)
	expectBlocked(t, next, "a batch is in flight")
	_ = first.ack(ctx, errors.New("rejected"))
	replay := receive(t, next)
	if replay.err != nil || !slices.Equal(replay.bodies, first.bodies) {
		t.Fatalf("replay: %v %v, want %v", replay.bodies, replay.err, first.bodies)
	}
	end := readAsync(in)
	expectBlocked(t, end, "the replay is in flight")
	_ = replay.ack(ctx, nil)
	if r := receive(t, end); !errors.Is(r.err, service.ErrEndOfInput) {
		t.Fatalf("after the last ack: %v %v, want end of input", r.bodies, r.err)
	}
}

// TestReplayInterruptedKeepsItsTurn: a caller that gives up during a
// replay's back-off gets its context's error and the batch stays first in
// line; the next call sends it, after the back-off.
func TestReplayInterruptedKeepsItsTurn(t *testing.T) {
	in := oneSplitInput(t, 1, ids(1, 1), false, "")
	ctx := context.Background()
	r := receive(t, readAsync(in))
	_ = r.ack(ctx, errors.New("rejected")) // the first retry is immediate
	r = receive(t, readAsync(in))
	_ = r.ack(ctx, errors.New("rejected")) // the next one waits replayBackoff(2)
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := in.ReadBatch(gone); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadBatch with a cancelled context during back-off: %v", err)
	}
	start := time.Now()
	r = receive(t, readAsync(in))
	if r.err != nil || !slices.Equal(r.bodies, idBodies(ids(1, 1))) {
		t.Fatalf("after the interrupted back-off: %v %v", r.bodies, r.err)
	}
	if waited := time.Since(start); waited < replayBackoff(2) {
		t.Fatalf("third delivery after %s, want the back-off of %s first", waited, replayBackoff(2))
	}
}

func TestReplayBackoff(t *testing.T) {
	for _, c := range []struct {
		tries int
		want  time.Duration
	}{{0, 0}, {1, 0}, {2, 10 * time.Millisecond}, {3, 20 * time.Millisecond}, {8, 640 * time.Millisecond}, {9, time.Second}, {1000, time.Second}} {
		if got := replayBackoff(c.tries); got != c.want {
			t.Errorf("replayBackoff(%d) = %s, want %s", c.tries, got, c.want)
		}
	}
}

func TestSentBatchRanges(t *testing.T) {
	a, b := &encodedRows{n: 10}, &encodedRows{n: 10}
	var sb sentBatch
	for _, r := range []struct {
		c *encodedRows
		i int
	}{{a, 2}, {a, 3}, {a, 4}, {a, 6}, {b, 0}, {b, 1}} {
		sb.add(r.c, r.i)
	}
	want := []rowRange{{a, 2, 5}, {a, 6, 7}, {b, 0, 2}}
	if !slices.Equal(sb.ranges, want) {
		t.Fatalf("ranges %v, want %v", sb.ranges, want)
	}
	nb := sb.only(map[int]bool{1: true, 3: true, 4: true})
	if want := []rowRange{{a, 3, 4}, {a, 6, 7}, {b, 0, 1}}; !slices.Equal(nb.ranges, want) {
		t.Fatalf("narrowed ranges %v, want %v", nb.ranges, want)
	}
}

// A stop right after a snapshot's last batch, before a next ReadBatch
// noticed the snapshot was read to its end, still stores the position
// after it: a graceful stop (or a group's revoked slot) must not leave the
// next reader the whole snapshot to deliver again. With the last batch
// exactly filled the split's end was not seen yet; Close looks.
func TestCloseAfterLastBatchCommitsSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name  string
		batch string
	}{{"batch exactly filled", "3"}, {"batch short of the split's end", "5"}} {
		t.Run(tc.name, func(t *testing.T) {
			src := &fakeSource{plans: []*fakePlan{{SnapshotID: 3, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: ids(1, 3)}}}}}}
			in := directInput(t, src, "consumer_id: c\nbatch_size: "+tc.batch+"\n")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := in.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			b, ack, err := in.ReadBatch(ctx)
			if err != nil || len(b) != 3 {
				t.Fatalf("ReadBatch: %d messages, %v", len(b), err)
			}
			if err := ack(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if err := in.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if c := src.commitLog(); len(c) == 0 || c[len(c)-1] != 4 {
				t.Fatalf("commits %v, want the last at 4 (snapshot 3 delivered and acknowledged)", c)
			}
		})
	}
}

// Close with rows of the snapshot still unread keeps the position at it.
func TestCloseMidSnapshotKeepsPosition(t *testing.T) {
	src := &fakeSource{plans: []*fakePlan{{SnapshotID: 3, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: ids(1, 6), recordSize: 3}}}}}}
	in := directInput(t, src, "consumer_id: c\nbatch_size: 3\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := in.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	_, ack, err := in.ReadBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := ack(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := in.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if c := src.commitLog(); slices.Contains(c, 4) {
		t.Fatalf("commits %v: the position moved past snapshot 3 with rows 4-6 unread", c)
	}
}
