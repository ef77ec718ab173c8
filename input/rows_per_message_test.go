package input

import (
	"context"
	"errors"
	"fmt"
	"github.com/connect-paimon/connect-paimon/paimon/types"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// mixedKinds is a changelog of ids 1..n whose row kinds change every few
// rows, so that messages of several rows must be cut at kind changes.
func mixedKinds(n int) []string {
	pattern := []string{"+I", "+I", "-U", "+U", "+U", "+U", "-D", "+I", "+I", "+I", "+I"}
	out := make([]string, n)
	for i := range out {
		out[i] = pattern[i%len(pattern)]
	}
	return out
}

// TestRowsPerMessageGroupsRows: with rows_per_message 3 every message is up
// to 3 consecutive rows of one batch and one row kind, newline-delimited,
// with that kind's metadata and no paimon_key; the rows, read line by line,
// are exactly those of one row per message, in the same order.
func TestRowsPerMessageGroupsRows(t *testing.T) {
	newSrc := func() *fakeSource {
		return &fakeSource{eof: true, pks: []string{"id"}, plans: []*fakePlan{{SnapshotID: 4, Splits: []*fakeSplit{
			{Bucket: 0, Handle: fakeRows{ids: ids(1, 40), kinds: mixedKinds(40), recordSize: 6}},
			{Bucket: 1, Handle: fakeRows{ids: ids(41, 45), recordSize: 6}},
		}}}}
	}
	type line struct{ body, kind string }
	var single []line
	for _, b := range runStream(t, newSrc(), "  batch_size: 7\n", nil) {
		for _, d := range b {
			if d.meta[MetaKey] == nil {
				t.Fatalf("one row per message: %s has no %s", d.body, MetaKey)
			}
			single = append(single, line{d.body, fmt.Sprint(d.meta[MetaRowKind])})
		}
	}
	var grouped []line
	messages := 0
	for _, b := range runStream(t, newSrc(), "  batch_size: 7\n  rows_per_message: 3\n", nil) {
		rows := 0
		for _, d := range b {
			messages++
			lines := strings.Split(d.body, "\n")
			if len(lines) > 3 {
				t.Errorf("message of %d rows: %q", len(lines), d.body)
			}
			if _, ok := d.meta[MetaKey]; ok {
				t.Errorf("message %q of several rows carries %s", d.body, MetaKey)
			}
			for _, l := range lines {
				grouped = append(grouped, line{l, fmt.Sprint(d.meta[MetaRowKind])})
			}
			rows += len(lines)
		}
		if rows > 7 {
			t.Errorf("batch of %d rows exceeds batch_size 7", rows)
		}
	}
	if len(single) != 45 || !slices.Equal(grouped, single) {
		t.Fatalf("rows of 3-row messages differ from single-row messages:\n got %v\nwant %v", grouped, single)
	}
	if messages >= 45 || messages < 45/3 {
		t.Fatalf("%d messages for 45 rows of up to 3", messages)
	}
}

// TestRowsPerMessageReplaysWholeMessages: a rejected message of several rows
// is replayed with all of its rows: the whole batch once, then that message
// alone until it is accepted; the consumer is committed only after.
func TestRowsPerMessageReplaysWholeMessages(t *testing.T) {
	src := &fakeSource{eof: true, plans: []*fakePlan{{SnapshotID: 7, Splits: []*fakeSplit{
		{Bucket: 0, Handle: fakeRows{ids: ids(1, 12), recordSize: 5}},
	}}}}
	var mu sync.Mutex
	deliveries := map[string]int{}
	accepted := map[string]int{}
	poisonLeft := 3
	runStreamRaw(t, src, "  consumer_id: c\n  batch_size: 8\n  rows_per_message: 3\n", func(b service.MessageBatch) error {
		mu.Lock()
		defer mu.Unlock()
		var bErr *service.BatchError
		for i, m := range b {
			body, err := m.AsBytes()
			if err != nil {
				return err
			}
			deliveries[string(body)]++
			if strings.Contains(string(body), `{"id":5}`) && poisonLeft > 0 {
				poisonLeft--
				bErr = service.NewBatchError(b, errors.New("one message refused")).Failed(i, errors.New("poison"))
				continue
			}
			accepted[string(body)]++
		}
		if bErr != nil {
			return bErr
		}
		return nil
	})
	// Records of 5 rows: messages are cut at record ends too (1-3, 4-5,
	// 6-8 | 9-10, 11-12), batches at 8 rows.
	body := func(from, to int64) string {
		var rows []string
		for id := from; id <= to; id++ {
			rows = append(rows, fmt.Sprintf(`{"id":%d}`, id))
		}
		return strings.Join(rows, "\n")
	}
	want := map[string]int{
		body(1, 3): 2, body(4, 5): 4, body(6, 8): 2, // whole batch once more, then 4-5 alone
		body(9, 10): 1, body(11, 12): 1,
	}
	if !maps(deliveries, want) {
		t.Fatalf("deliveries %v, want %v", deliveries, want)
	}
	if accepted[body(4, 5)] != 1 {
		t.Errorf("the rejected message was accepted %d times, want once", accepted[body(4, 5)])
	}
	if c := src.commitLog(); len(c) == 0 || c[len(c)-1] != 8 {
		t.Fatalf("commits %v, want last 8", c)
	}
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSentBatchMessagesNarrowed: narrowing a batch of several rows per
// message to some of its messages rebuilds exactly those messages.
func TestSentBatchMessagesNarrowed(t *testing.T) {
	c := &encodedRows{n: 9, kinds: []types.RowKind{types.Insert, types.Insert, types.Insert, types.Insert, types.Delete, types.Insert, types.Insert, types.Insert, types.Insert}}
	for i := 0; i < c.n; i++ {
		c.body = append(c.body, fmt.Sprintf("r%d\n", i)...)
		c.ends = append(c.ends, len(c.body))
	}
	b := &sentBatch{perMsg: 3, tmpls: &splitTemplates{}}
	for i := 0; i < c.n; i++ {
		b.add(c, i)
	}
	var got []string
	b.eachMessage(func(c *encodedRows, from, to int) { got = append(got, string(c.rows(from, to))) })
	if want := []string{"r0\nr1\nr2", "r3", "r4", "r5\nr6\nr7", "r8"}; !slices.Equal(got, want) {
		t.Fatalf("messages %q, want %q", got, want)
	}
	nb := b.only(map[int]bool{1: true, 3: true, 4: true})
	got = got[:0]
	nb.eachMessage(func(c *encodedRows, from, to int) { got = append(got, string(c.rows(from, to))) })
	if want := []string{"r3", "r5\nr6\nr7", "r8"}; !slices.Equal(got, want) {
		t.Fatalf("narrowed messages %q, want %q", got, want)
	}
	if nb.rowCount() != 5 {
		t.Fatalf("narrowed batch has %d rows, want 5", nb.rowCount())
	}
}

// TestRealRowsPerMessageFixture reads the committed demo.orders fixture
// (pypaimon-written) with rows_per_message 4 and with one row per message:
// the lines are the same rows with the same metadata (paimon_key aside),
// and no message holds more than 4.
func TestRealRowsPerMessageFixture(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse", "demo.db"), filepath.Join(wh, "demo.db"))
	rt := &realTable{t: t, wh: wh, name: "demo.orders"}
	cfg := "  scan_mode: from-snapshot-full\n  snapshot_id: 1\n  end: {at_latest: true}\n"
	metaOf := func(d delivered) string {
		var keys []string
		for k, v := range d.meta {
			if k != MetaKey {
				keys = append(keys, fmt.Sprintf("%s=%v", k, v))
			}
		}
		slices.Sort(keys)
		return strings.Join(keys, " ")
	}
	var want []string
	for _, d := range startReal(t, rt, cfg).wait() {
		want = append(want, d.body+" | "+metaOf(d))
	}
	var got []string
	multi := false
	for _, d := range startReal(t, rt, cfg+"  rows_per_message: 4\n").wait() {
		lines := strings.Split(d.body, "\n")
		if len(lines) > 4 {
			t.Fatalf("message of %d rows", len(lines))
		}
		multi = multi || len(lines) > 1
		for _, l := range lines {
			got = append(got, l+" | "+metaOf(d))
		}
	}
	if len(want) < 5 || !multi {
		t.Fatalf("fixture read %d rows, no message of several rows: the test exercised nothing", len(want))
	}
	// Batches of different splits may be interleaved differently between
	// the runs; rows and their metadata must match as a set.
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("rows of 4-row messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDeliveredBodiesStayIntact holds on to every delivered body, without a
// copy, as an output that keeps message bytes after acknowledging them does
// (a memory cache output stores them as they are), while acks arrive late
// and out of order, some batches are rejected and replayed, and reading
// runs ahead under back-pressure. Every body must still read as it was
// delivered at the end, and every row must have been accepted: the input
// never reuses a buffer a message may still reference. Run with -race.
func TestDeliveredBodiesStayIntact(t *testing.T) {
	for _, perMsg := range []int{1, 4} {
		t.Run(fmt.Sprintf("rows_per_message_%d", perMsg), func(t *testing.T) {
			var splits []*fakeSplit
			for b := int64(0); b < 4; b++ {
				splits = append(splits, &fakeSplit{Bucket: int32(b), Handle: fakeRows{ids: ids(b*500+1, b*500+500), recordSize: 64}})
			}
			src := &fakeSource{eof: true, plans: []*fakePlan{{SnapshotID: 3, Splits: splits[:2]}, {SnapshotID: 4, Splits: splits[2:]}}}
			in := directInput(t, src, fmt.Sprintf("consumer_id: c\nbatch_size: 50\ncheckpoint_limit: 200\nrows_per_message: %d\n", perMsg))
			ctx := t.Context()
			if err := in.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = in.Close(ctx) })
			type held struct {
				raw  []byte // the message's own bytes, as a retaining output keeps them
				copy string
			}
			var kept []held
			type pending struct {
				ack    service.AckFunc
				bodies []string
			}
			var inFlight []pending
			accepted := map[string]int{}
			reads, rejected := 0, 0
			settle := func(k int) {
				// Acks out of order: the newest first, every third one rejected.
				p := inFlight[k]
				inFlight = slices.Delete(inFlight, k, k+1)
				var err error
				if reads%3 == 0 {
					err = errors.New("sink unavailable")
					rejected++
				}
				if err == nil {
					for _, b := range p.bodies {
						for _, l := range strings.Split(b, "\n") {
							accepted[l]++
						}
					}
				}
				if aerr := p.ack(ctx, err); aerr != nil {
					t.Fatal(aerr)
				}
			}
			for {
				if len(inFlight) >= 3 {
					settle(len(inFlight) - 1)
				}
				rctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				b, ack, err := in.ReadBatch(rctx)
				cancel()
				if errors.Is(err, service.ErrEndOfInput) {
					break
				}
				if errors.Is(err, context.DeadlineExceeded) && len(inFlight) > 0 {
					// The end (or the limit) waits for the batches held here.
					settle(0)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				reads++
				p := pending{ack: ack}
				for _, m := range b {
					raw, err := m.AsBytes()
					if err != nil {
						t.Fatal(err)
					}
					kept = append(kept, held{raw, string(raw)})
					p.bodies = append(p.bodies, string(raw))
				}
				inFlight = append(inFlight, p)
				if len(inFlight) == 3 && reads%2 == 0 {
					settle(0)
				}
				if reads > 2000 {
					t.Fatal("no end after 2000 batches")
				}
			}
			for len(inFlight) > 0 {
				settle(len(inFlight) - 1)
			}
			if rejected == 0 || len(kept) == 0 {
				t.Fatalf("%d rejections of %d bodies: the test exercised no replay", rejected, len(kept))
			}
			for i, h := range kept {
				if string(h.raw) != h.copy {
					t.Fatalf("body %d changed after delivery: %q, was %q", i, h.raw, h.copy)
				}
			}
			for id := int64(1); id <= 2000; id++ {
				if accepted[fmt.Sprintf(`{"id":%d}`, id)] == 0 {
					t.Fatalf("row %d never accepted", id)
				}
			}
			if c := src.commitLog(); len(c) > 0 && c[len(c)-1] > 5 {
				t.Fatalf("commits %v beyond snapshot 4", c)
			}
		})
	}
}
