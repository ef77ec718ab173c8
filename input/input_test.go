package input

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

var commitTime = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

type delivered struct {
	body string
	meta map[string]any
}

// runStream runs a pipeline of the paimon input over src with cfgYAML (the
// fields below `paimon:`) and returns the delivered rows per batch. consume
// may reject a batch by returning an error.
func runStream(t *testing.T, src *fakeSource, cfgYAML string, consume func(batch []delivered) error) [][]delivered {
	t.Helper()
	var mu sync.Mutex
	var out [][]delivered
	runStreamRaw(t, src, cfgYAML, func(b service.MessageBatch) error {
		var batch []delivered
		for _, m := range b {
			body, err := m.AsBytes()
			if err != nil {
				return err
			}
			d := delivered{body: string(body), meta: map[string]any{}}
			_ = m.MetaWalkMut(func(k string, v any) error { d.meta[k] = v; return nil })
			batch = append(batch, d)
		}
		if consume != nil {
			if err := consume(batch); err != nil {
				return err
			}
		}
		mu.Lock()
		out = append(out, batch)
		mu.Unlock()
		return nil
	})
	return out
}

// runStreamRaw runs the pipeline with consume as its output, for tests that
// need the messages themselves (e.g. to build a BatchError).
func runStreamRaw(t *testing.T, src *fakeSource, cfgYAML string, consume func(service.MessageBatch) error) {
	t.Helper()
	env := service.NewEnvironment()
	if err := register(env, func(context.Context, config) (source, error) { return src, nil }); err != nil {
		t.Fatal(err)
	}
	sb := env.NewStreamBuilder()
	if err := sb.SetLoggerYAML("level: none"); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddInputYAML("paimon:\n  warehouse: /wh\n  table: db.t\n" + cfgYAML); err != nil {
		t.Fatal(err)
	}
	if err := sb.AddBatchConsumerFunc(func(_ context.Context, b service.MessageBatch) error { return consume(b) }); err != nil {
		t.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := strm.Run(ctx); err != nil {
		t.Fatalf("stream: %v", err)
	}
}

func bodies(batches [][]delivered) []string {
	var out []string
	for _, b := range batches {
		for _, d := range b {
			out = append(out, d.body)
		}
	}
	sort.Strings(out)
	return out
}

func idBodies(idss ...[]int64) []string {
	var out []string
	for _, ids := range idss {
		for _, id := range ids {
			out = append(out, fmt.Sprintf(`{"id":%d}`, id))
		}
	}
	sort.Strings(out)
	return out
}

func twoSnapshots() *fakeSource {
	return &fakeSource{eof: true, pks: []string{"id"}, plans: []*fakePlan{
		{SnapshotID: 4, CommitKind: "APPEND", CommitTime: commitTime, SchemaID: 0, LatestSnapshotID: 5, Splits: []*fakeSplit{
			{Partition: map[string]any{"dt": "2024-06-01"}, Bucket: 0, File: "data-a.parquet", FileCount: 1, Bytes: 100, Handle: fakeRows{ids: ids(1, 5), recordSize: 2}},
			{Partition: map[string]any{"dt": "2024-06-01"}, Bucket: 1, File: "data-b.parquet", FileCount: 2, Bytes: 200, Handle: fakeRows{ids: ids(6, 8), recordSize: 3}},
		}},
		{SnapshotID: 5, CommitKind: "APPEND", CommitTime: commitTime.Add(time.Minute), SchemaID: 1, LatestSnapshotID: 5, Splits: []*fakeSplit{
			{Partition: map[string]any{"dt": "2024-06-02"}, Bucket: 1, File: "data-c.parquet", FileCount: 1, Bytes: 50, Handle: fakeRows{ids: ids(9, 10), kinds: []string{"-U", "+U"}, recordSize: 1}},
		}},
	}}
}

func TestFullAndFollowUpDelivery(t *testing.T) {
	src := twoSnapshots()
	out := runStream(t, src, "  consumer_id: c\n  batch_size: 2\n", nil)
	if got, want := bodies(out), idBodies(ids(1, 10)); !slices.Equal(got, want) {
		t.Fatalf("rows\n%q\nwant\n%q", got, want)
	}
	for _, b := range out {
		if len(b) > 2 {
			t.Errorf("batch of %d rows exceeds batch_size 2", len(b))
		}
		for _, d := range b[1:] {
			if d.meta[MetaFile] != b[0].meta[MetaFile] {
				t.Errorf("batch spans splits: %v and %v", b[0].meta[MetaFile], d.meta[MetaFile])
			}
		}
	}
	// The final commit on close covers both snapshots.
	commits := src.commitLog()
	if len(commits) == 0 || commits[len(commits)-1] != 6 {
		t.Fatalf("commits %v, want last nextSnapshot 6", commits)
	}
	if !src.closed {
		t.Error("source not closed")
	}
}

func TestMetadata(t *testing.T) {
	out := runStream(t, twoSnapshots(), "  batch_size: 10\n", nil)
	var m9 map[string]any
	for _, b := range out {
		for _, d := range b {
			if d.body == `{"id":9}` {
				m9 = d.meta
			}
		}
	}
	if m9 == nil {
		t.Fatal("row 9 not delivered")
	}
	want := map[string]any{
		MetaRowKind:    "-U",
		MetaSnapshotID: int64(5),
		MetaCommitKind: "APPEND",
		MetaCommitTime: commitTime.Add(time.Minute),
		MetaSchemaID:   int64(1),
		MetaPartition:  map[string]any{"dt": "2024-06-02"},
		MetaBucket:     int64(1),
		MetaTable:      "db.t",
		MetaFile:       "data-c.parquet",
	}
	for k, v := range want {
		got, ok := m9[k]
		if !ok {
			t.Errorf("metadata %s missing", k)
			continue
		}
		if fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", v, v) {
			t.Errorf("metadata %s = %T %v, want %T %v", k, got, got, v, v)
		}
	}
}

// The shard reaches the library's read, which prunes the other buckets from
// the plans (TestRealShardingExactlyOnce reads a real table that way): the
// input filters nothing itself.
func TestShardingByBucket(t *testing.T) {
	pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\nshard:\n  index: 1\n  count: 3\n", lintEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	sc := cfg.streamConfig()
	var got []int32
	for b := int32(0); b < 6; b++ {
		if sc.ReadsBucket(b) {
			got = append(got, b)
		}
	}
	if !slices.Equal(got, []int32{1, 4}) {
		t.Fatalf("shard 1/3 reads buckets %v, want [1 4]", got)
	}
}

func upsertSource(pks []string) *fakeSource {
	return &fakeSource{eof: true, pks: pks, plans: []*fakePlan{{SnapshotID: 2, CommitKind: "APPEND", Splits: []*fakeSplit{
		{Bucket: 0, Handle: fakeRows{ids: []int64{1, 2, 2, 3, 4}, kinds: []string{"+I", "-U", "+U", "-D", "-U"}}},
	}}}}
}

func TestUpsertMode(t *testing.T) {
	kinds := func(out [][]delivered) []string {
		var ks []string
		for _, b := range out {
			for _, d := range b {
				ks = append(ks, d.meta[MetaRowKind].(string)+d.body)
			}
		}
		return ks
	}
	got := kinds(runStream(t, upsertSource([]string{"id"}), "  upsert_mode: drop_update_before\n", nil))
	want := []string{`+I{"id":1}`, `+U{"id":2}`, `-D{"id":3}`}
	if !slices.Equal(got, want) {
		t.Fatalf("drop_update_before: %q want %q", got, want)
	}
	got = kinds(runStream(t, upsertSource([]string{"id"}), "  upsert_mode: drop_update_before_and_delete\n", nil))
	want = []string{`+I{"id":1}`, `+U{"id":2}`}
	if !slices.Equal(got, want) {
		t.Fatalf("drop_update_before_and_delete: %q want %q", got, want)
	}
	got = kinds(runStream(t, upsertSource(nil), "", nil))
	if len(got) != 5 {
		t.Fatalf("upsert_mode off must deliver all 5 rows, got %q", got)
	}
}

func TestUpsertModeNeedsPrimaryKey(t *testing.T) {
	in := directInput(t, upsertSource(nil), "upsert_mode: drop_update_before\n")
	// A permanent error ends the input (Benthos would retry any other
	// error forever) and is kept for the binary's exit code.
	if err := in.Connect(context.Background()); !errors.Is(err, service.ErrEndOfInput) {
		t.Fatalf("Connect = %v, want end of input", err)
	}
	err := in.stoppedOn()
	if err == nil || !strings.Contains(err.Error(), "no primary key") || !strings.Contains(err.Error(), "db.t") {
		t.Fatalf("want primary key error naming the table, got %v", err)
	}
	if Failed() == nil {
		t.Fatal("Failed() is nil after an input stopped on a permanent error")
	}
	if err := in.Connect(context.Background()); !errors.Is(err, service.ErrEndOfInput) {
		t.Fatalf("second Connect = %v, want end of input without retrying", err)
	}
}

func TestNackReplay(t *testing.T) {
	src := twoSnapshots()
	var mu sync.Mutex
	rejected := map[string]bool{}
	out := runStream(t, src, "  consumer_id: c\n  batch_size: 2\n", func(b []delivered) error {
		mu.Lock()
		defer mu.Unlock()
		// Reject every batch once.
		if !rejected[b[0].body] {
			rejected[b[0].body] = true
			return errors.New("sink unavailable")
		}
		return nil
	})
	if got, want := bodies(out), idBodies(ids(1, 10)); !slices.Equal(got, want) {
		t.Fatalf("after replay got\n%q\nwant\n%q", got, want)
	}
	if c := src.commitLog(); c[len(c)-1] != 6 {
		t.Fatalf("commits %v, want last 6", c)
	}
}

func TestNackDropWithoutReplay(t *testing.T) {
	src := twoSnapshots()
	out := runStream(t, src, "  consumer_id: c\n  batch_size: 2\n  auto_replay_nacks: false\n", func(b []delivered) error {
		if b[0].body == `{"id":1}` {
			return errors.New("rejected")
		}
		return nil
	})
	if got, want := bodies(out), idBodies(ids(3, 10)); !slices.Equal(got, want) {
		t.Fatalf("got\n%q\nwant\n%q (rows 1-2 dropped)", got, want)
	}
	if c := src.commitLog(); c[len(c)-1] != 6 {
		t.Fatalf("a dropped batch still counts as handled: commits %v, want last 6", c)
	}
}

func TestReadErrorResumesSplit(t *testing.T) {
	src := &fakeSource{eof: true, planErr: 1, plans: []*fakePlan{{SnapshotID: 1, Splits: []*fakeSplit{
		{Bucket: 0, Handle: fakeRows{ids: ids(1, 9), recordSize: 2, failAt: 4}},
	}}}}
	out := runStream(t, src, "  batch_size: 3\n", nil)
	if got, want := bodies(out), idBodies(ids(1, 9)); !slices.Equal(got, want) {
		t.Fatalf("rows after a mid-split error\n%q\nwant each of 1..9 exactly once\n%q", got, want)
	}
}

// directInput builds the unwrapped input over src, for exact control of
// ReadBatch and acks.
func directInput(t *testing.T, src *fakeSource, yaml string) *paimonInput {
	t.Helper()
	pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\n"+yaml, service.NewEnvironment())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	return newInput(cfg, func(context.Context, config) (source, error) { return src, nil }, service.MockResources())
}

func TestCommitNeverAheadOfAcks(t *testing.T) {
	src := &fakeSource{plans: []*fakePlan{
		{SnapshotID: 10, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: ids(1, 4)}}}},
		{SnapshotID: 11, Splits: nil}, // nothing to read, e.g. a compaction
		{SnapshotID: 12, Splits: []*fakeSplit{{Bucket: 0, Handle: fakeRows{ids: ids(5, 6)}}}},
	}}
	in := directInput(t, src, "consumer_id: c\nbatch_size: 2\ncommit_period: 1h\n")
	ctx := context.Background()
	if err := in.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	var acks []service.AckFunc
	for range 3 {
		b, ack, err := in.ReadBatch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 2 {
			t.Fatalf("batch of %d", len(b))
		}
		acks = append(acks, ack)
	}
	committed := func() int64 {
		in.commit(ctx, false)
		c := src.commitLog()
		if len(c) == 0 {
			return 0
		}
		return c[len(c)-1]
	}
	if c := committed(); c != 10 {
		t.Fatalf("nothing acked: committed %d, want 10 (start)", c)
	}
	// Ack the snapshot-12 batch and the second batch of 10: 10 is still
	// pending, so nothing may move.
	_ = acks[2](ctx, nil)
	_ = acks[1](ctx, nil)
	if c := committed(); c != 10 {
		t.Fatalf("first batch un-acked: committed %d, want 10", c)
	}
	_ = acks[0](ctx, nil)
	_ = acks[0](ctx, nil) // a duplicate ack must not release anything else
	// Snapshot 12 has not ended (ReadBatch has not looked past it yet), so
	// 10 and 11 are done: next is 12.
	if c := committed(); c != 12 {
		t.Fatalf("10 and 11 done: committed %d, want 12", c)
	}
	go func() { _, _, _ = in.ReadBatch(ctx) }() // reaches the end of 12, then blocks in Next
	deadline := time.Now().Add(5 * time.Second)
	for committed() != 13 {
		if time.Now().After(deadline) {
			t.Fatalf("commits %v, want 13 after snapshot 12 ended", src.commitLog())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := in.Close(ctx); err != nil {
		t.Fatal(err)
	}
	log := src.commitLog()
	for i := 1; i < len(log); i++ {
		if log[i] < log[i-1] {
			t.Fatalf("commits went backwards: %v", log)
		}
	}
}

func TestCloseUnblocksReadBatch(t *testing.T) {
	src := &fakeSource{nextCh: make(chan struct{})}
	in := directInput(t, src, "consumer_id: c\n")
	ctx := context.Background()
	if err := in.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := in.ReadBatch(ctx)
		done <- err
	}()
	<-src.nextCh // ReadBatch is blocked waiting for a snapshot
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := in.Close(cctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, service.ErrEndOfInput) {
			t.Fatalf("ReadBatch after Close returned %v, want ErrEndOfInput", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadBatch still blocked after Close")
	}
	if err := in.Close(ctx); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if !src.closed {
		t.Fatal("source not closed")
	}
}

func TestHeartbeatRewritesWhileIdle(t *testing.T) {
	src := &fakeSource{plans: []*fakePlan{{SnapshotID: 3}}}
	in := directInput(t, src, "consumer_id: c\ncommit_period: 10ms\nheartbeat_interval: 30ms\n")
	ctx := context.Background()
	if err := in.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { _, _, _ = in.ReadBatch(ctx) }() // plans 3 (empty), then idles
	time.Sleep(300 * time.Millisecond)
	if err := in.Close(ctx); err != nil {
		t.Fatal(err)
	}
	log := src.commitLog()
	// One write for the move to 4, then heartbeats of the same value roughly
	// every 30ms; fewer than 3 writes means no heartbeat happened.
	if len(log) < 3 {
		t.Fatalf("commits %v: want repeated heartbeat writes", log)
	}
	for _, c := range log {
		if c != 4 {
			t.Fatalf("commits %v: all must be 4", log)
		}
	}
}

func TestNoConsumerNoCommit(t *testing.T) {
	src := twoSnapshots()
	runStream(t, src, "", nil)
	if c := src.commitLog(); len(c) != 0 {
		t.Fatalf("committed %v without consumer_id", c)
	}
}

func TestConnectErrorNamesTable(t *testing.T) {
	pc, _ := inputSpec().ParseYAML("warehouse: /nowhere\ntable: db.missing\n", service.NewEnvironment())
	cfg, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	in := newInput(cfg, func(context.Context, config) (source, error) {
		return nil, errors.New("table does not exist")
	}, service.MockResources())
	err = in.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "db.missing") || !strings.Contains(err.Error(), "/nowhere") {
		t.Fatalf("got %v", err)
	}
}

// Each layer names the table once: an opener error that already names the
// table and warehouse (the library's do) is not wrapped with them again.
func TestConnectErrorNamesTableOnce(t *testing.T) {
	pc, _ := inputSpec().ParseYAML("warehouse: /nowhere\ntable: db.missing\n", service.NewEnvironment())
	cfg, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	in := newInput(cfg, func(context.Context, config) (source, error) {
		return nil, errors.New("warehouse /nowhere: open table db.missing: no schema files")
	}, service.MockResources())
	err = in.Connect(context.Background())
	if err == nil || strings.Count(err.Error(), "db.missing") != 1 || strings.Count(err.Error(), "/nowhere") != 1 {
		t.Fatalf("got %v, want the table and warehouse named once", err)
	}
}

// The batching policy ends batches inside batch_size: by count, and by its
// check, never across splits.
func TestBatchingPolicy(t *testing.T) {
	out := runStream(t, twoSnapshots(), "  batch_size: 4\n  batching:\n    count: 2\n", nil)
	if got, want := bodies(out), idBodies(ids(1, 10)); !slices.Equal(got, want) {
		t.Fatalf("rows\n%q\nwant\n%q", got, want)
	}
	var sizes []int
	for _, b := range out {
		sizes = append(sizes, len(b))
	}
	// Splits of 5, 3 and 2 rows, cut every 2 rows.
	if want := []int{2, 2, 1, 2, 1, 2}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
	out = runStream(t, twoSnapshots(), "  batch_size: 100\n  batching:\n    check: 'this.id == 2 || this.id == 7'\n", nil)
	sizes = sizes[:0]
	for _, b := range out {
		sizes = append(sizes, len(b))
	}
	// The check closes the batch at ids 2 and 7; split ends close the rest.
	if want := []int{2, 3, 2, 1, 2}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes with check %v, want %v", sizes, want)
	}
}
