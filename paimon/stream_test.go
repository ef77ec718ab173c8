package paimon_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/tests/interop"
)

// writer drives paimon/testdata/pywriter.py: pypaimon commits into a table
// while a Go streaming scan follows it. One Python process serves a whole
// test (importing pypaimon costs more than a commit).
type writer struct {
	t    *testing.T
	wh   string
	proc *testenv.Process
	out  *bufio.Reader
}

func newWriter(t *testing.T, bucket string, partitioned bool) *writer {
	w := &writer{t: t, wh: t.TempDir()}
	script := filepath.Join(testenv.RepoRoot(t), "paimon", "testdata", "pywriter.py")
	w.proc = testenv.StartPython(t, context.Background(), script, w.wh, "serve")
	w.out = bufio.NewReader(w.proc.Stdout)
	args := []string{"create", "db.t", bucket}
	if partitioned {
		args = append(args, "partitioned")
	}
	w.run(args...)
	return w
}

func (w *writer) run(args ...string) {
	w.t.Helper()
	if _, err := fmt.Fprintln(w.proc.Stdin, strings.Join(args, " ")); err != nil {
		w.t.Fatalf("pywriter %v: %v\n%s", args, err, w.proc.Stderr())
	}
	reply, err := w.out.ReadString('\n')
	if err != nil {
		w.t.Fatalf("pywriter %v: %v\n%s", args, err, w.proc.Stderr())
	}
	if reply = strings.TrimSpace(reply); reply != "ok" {
		w.t.Fatalf("pywriter %v: %s\n%s", args, reply, w.proc.Stderr())
	}
}

func (w *writer) append(start, count int, part string) {
	w.run("append", "db.t", fmt.Sprint(start), fmt.Sprint(count), part)
}

func (w *writer) table(ctx context.Context) *paimon.Table {
	w.t.Helper()
	cat, err := paimon.OpenCatalog(ctx, w.wh, interop.CheckedAlloc(w.t))
	if err != nil {
		w.t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, "db.t")
	if err != nil {
		w.t.Fatal(err)
	}
	return tbl
}

// rowsOf reads a plan's splits into "kind:id" strings, sorted.
func rowsOf(t *testing.T, ctx context.Context, rd *paimon.Read, splits []*paimon.Split) []string {
	t.Helper()
	var out []string
	for _, sp := range splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			kindIdx, idIdx := -1, -1
			for i, f := range rec.Schema().Fields() {
				switch f.Name {
				case "_row_kind":
					kindIdx = i
				case "id":
					idIdx = i
				}
			}
			for r := 0; r < int(rec.NumRows()); r++ {
				kind := "+I"
				if kindIdx >= 0 {
					kind = rec.Column(kindIdx).(*array.String).Value(r)
				}
				out = append(out, fmt.Sprintf("%s:%d", kind, rec.Column(idIdx).(*array.Int32).Value(r)))
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
	}
	sort.Strings(out)
	return out
}

func ids(kind string, from, n int) []string {
	var out []string
	for i := from; i < from+n; i++ {
		out = append(out, fmt.Sprintf("%s:%d", kind, i))
	}
	sort.Strings(out)
	return out
}

func next(t *testing.T, ctx context.Context, s *paimon.StreamingScan) *paimon.StreamPlan {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p, err := s.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return p
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s:\n got  %v\n want %v", what, got, want)
	}
}

func TestStreamFullThenFollowUps(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "2", true)
	w.append(0, 5, "a") // snapshot 1
	tbl := w.table(ctx)
	b := tbl.NewStreamReadBuilder().WithPollInterval(20 * time.Millisecond).WithIncludeRowKind(true).WithEmitEmptyPlans(true)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd := b.NewRead()
	p := next(t, ctx, s)
	if !p.FirstPlan || p.SnapshotID != 1 || p.NextSnapshotID != 2 {
		t.Fatalf("first plan: %+v", p)
	}
	equal(t, "first plan", rowsOf(t, ctx, rd, p.Splits), ids("+I", 0, 5))

	// A commit made while the scan waits is picked up by polling.
	done := make(chan *paimon.StreamPlan, 1)
	go func() {
		p, err := s.Next(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- p
	}()
	time.Sleep(100 * time.Millisecond)
	w.append(10, 3, "b") // snapshot 2
	select {
	case p = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no plan for snapshot 2")
	}
	if p.FirstPlan || p.SnapshotID != 2 || p.CommitKind != "APPEND" {
		t.Fatalf("follow-up: %+v", p)
	}
	equal(t, "snapshot 2", rowsOf(t, ctx, rd, p.Splits), ids("+I", 10, 3))

	// OVERWRITE is skipped by default; with emit-empty the skip is visible.
	w.run("overwrite", "db.t", "100", "2", "a") // snapshot 3
	p = next(t, ctx, s)
	if !p.Skipped || p.SnapshotID != 3 || len(p.Splits) != 0 || p.NextSnapshotID != 4 {
		t.Fatalf("overwrite should be skipped: %+v", p)
	}

	// Schema evolution: a column added, then an append under schema 1.
	w.run("addcol", "db.t", "extra")
	w.append(20, 2, "a") // snapshot 4
	p = next(t, ctx, s)
	if p.SnapshotID != 4 || p.SchemaID != 1 {
		t.Fatalf("snapshot 4: %+v", p)
	}
	equal(t, "snapshot 4", rowsOf(t, ctx, rd, p.Splits), ids("+I", 20, 2))
}

func TestStreamReadOverwrite(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", true)
	w.append(0, 3, "a")                         // 1
	w.append(50, 2, "b")                        // 2
	w.run("overwrite", "db.t", "100", "2", "a") // 3: replaces partition a
	tbl := w.table(ctx)
	b := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(3).
		WithStreamingReadOverwrite(true).WithIncludeRowKind(true).WithPollInterval(10 * time.Millisecond)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := next(t, ctx, s)
	if p.SnapshotID != 3 || p.CommitKind != "OVERWRITE" {
		t.Fatalf("plan: %+v", p)
	}
	// An append table: the rows the overwrite wrote, none retracted (Java's
	// streaming-read-append-overwrite).
	equal(t, "overwrite of an append table", rowsOf(t, ctx, b.NewRead(), p.Splits), ids("+I", 100, 2))
}

func TestStreamStartModesAndEnd(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 2, "")  // 1
	w.append(10, 2, "") // 2
	w.append(20, 2, "") // 3
	tbl := w.table(ctx)
	snap2, err := tbl.Snapshots().Snapshot(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		build func(*paimon.StreamReadBuilder) *paimon.StreamReadBuilder
		want  [][]string // rows per plan until EOF
	}{
		{"latest-full", func(b *paimon.StreamReadBuilder) *paimon.StreamReadBuilder { return b },
			[][]string{append(append(ids("+I", 0, 2), ids("+I", 10, 2)...), ids("+I", 20, 2)...)}},
		{"from-snapshot", func(b *paimon.StreamReadBuilder) *paimon.StreamReadBuilder {
			return b.WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(2)
		}, [][]string{ids("+I", 10, 2), ids("+I", 20, 2)}},
		{"from-snapshot-full", func(b *paimon.StreamReadBuilder) *paimon.StreamReadBuilder {
			return b.WithStartMode(paimon.StartFromSnapshotFull).WithStartSnapshot(2)
		}, [][]string{append(ids("+I", 0, 2), ids("+I", 10, 2)...), ids("+I", 20, 2)}},
		// Java: start after the last snapshot strictly earlier than the time.
		{"from-timestamp", func(b *paimon.StreamReadBuilder) *paimon.StreamReadBuilder {
			return b.WithStartMode(paimon.StartFromTimestamp).WithStartTimestamp(time.UnixMilli(snap2.TimeMillis))
		}, [][]string{ids("+I", 10, 2), ids("+I", 20, 2)}},
		{"from-snapshot below earliest clamps", func(b *paimon.StreamReadBuilder) *paimon.StreamReadBuilder {
			return b.WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(1).WithEndSnapshot(1)
		}, [][]string{ids("+I", 0, 2)}},
		{"latest", func(b *paimon.StreamReadBuilder) *paimon.StreamReadBuilder {
			return b.WithStartMode(paimon.StartLatest)
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(tbl.NewStreamReadBuilder().WithPollInterval(10 * time.Millisecond))
			if c.name != "from-snapshot below earliest clamps" {
				b = b.WithEndSnapshot(3)
			}
			s, err := b.NewStreamingScan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for {
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				p, err := s.Next(cctx)
				cancel()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, rowsOf(t, ctx, b.NewRead(), p.Splits))
			}
			if fmt.Sprint(got) != fmt.Sprint(sortEach(c.want)) {
				t.Fatalf("got %v\nwant %v", got, sortEach(c.want))
			}
		})
	}
}

func sortEach(xs [][]string) [][]string {
	for _, x := range xs {
		sort.Strings(x)
	}
	return xs
}

func TestStreamBucketsInEveryPhase(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "2", false)
	w.append(0, 20, "")
	tbl := w.table(ctx)
	all := map[string]bool{}
	for _, bucket := range []int32{0, 1} {
		b := tbl.NewStreamReadBuilder().WithBuckets(bucket).WithPollInterval(10 * time.Millisecond).WithEndSnapshot(1)
		s, err := b.NewStreamingScan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p := next(t, ctx, s)
		for _, sp := range p.Splits {
			if sp.Bucket() != bucket {
				t.Fatalf("bucket filter %d let bucket %d through", bucket, sp.Bucket())
			}
		}
		for _, r := range rowsOf(t, ctx, b.NewRead(), p.Splits) {
			if all[r] {
				t.Fatalf("row %s read by two shards", r)
			}
			all[r] = true
		}
	}
	if len(all) != 20 {
		t.Fatalf("two shards read %d rows, want 20", len(all))
	}
}

func TestStreamConsumerResumeAndExpiry(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	w.append(0, 2, "")  // 1
	w.append(10, 2, "") // 2
	tbl := w.table(ctx)
	b := tbl.NewStreamReadBuilder().WithConsumerID("c1").WithPollInterval(10 * time.Millisecond)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := next(t, ctx, s)
	if !p.FirstPlan || p.SnapshotID != 2 {
		t.Fatalf("%+v", p)
	}
	// The scan never commits by itself.
	if _, err := os.Stat(filepath.Join(tbl.Path(), "consumer", "consumer-c1")); !os.IsNotExist(err) {
		t.Fatalf("consumer written without CommitConsumer: %v", err)
	}
	if err := s.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
		t.Fatal(err)
	}
	w.append(20, 2, "") // 3
	// A new scan with the same consumer resumes at snapshot 3 (no full plan).
	s2, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p = next(t, ctx, s2)
	if p.FirstPlan || p.SnapshotID != 3 {
		t.Fatalf("resume: %+v", p)
	}
	equal(t, "resume", rowsOf(t, ctx, b.NewRead(), p.Splits), ids("+I", 20, 2))

	// Expire snapshots 1..3 behind the consumer's back: a consumer at 1
	// must fail loudly, naming itself and the earliest snapshot.
	w.append(30, 1, "") // 4
	if err := s.CommitConsumer(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1", "2", "3"} {
		if err := os.Remove(filepath.Join(tbl.Path(), "snapshot", "snapshot-"+id)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(tbl.Path(), "snapshot", "EARLIEST"), []byte("4"), 0o644)
	s3, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = s3.Next(cctx)
	if !errors.Is(err, paimon.ErrExpired) || !strings.Contains(err.Error(), `"c1"`) || !strings.Contains(err.Error(), "earliest snapshot is 4") {
		t.Fatalf("want expiry error naming the consumer and earliest, got %v", err)
	}
	// Opt-in policy: continue from the earliest.
	s4, err := b.WithOnExpired(paimon.ExpiredEarliest).NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p = next(t, ctx, s4)
	if p.SnapshotID != 4 {
		t.Fatalf("earliest policy: %+v", p)
	}
}

func TestStreamEmptyTableWaits(t *testing.T) {
	ctx := context.Background()
	w := newWriter(t, "-1", false)
	tbl := w.table(ctx)
	b := tbl.NewStreamReadBuilder().WithPollInterval(20 * time.Millisecond)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = s.Next(cctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("empty table: want to wait, got %v", err)
	}
	w.append(0, 3, "")
	p := next(t, ctx, s)
	if !p.FirstPlan || p.SnapshotID != 1 {
		t.Fatalf("%+v", p)
	}
	equal(t, "first snapshot", rowsOf(t, ctx, b.NewRead(), p.Splits), ids("+I", 0, 3))
}
