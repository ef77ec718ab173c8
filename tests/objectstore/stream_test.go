package objectstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
)

const streamWarehouse = "s3://" + bucket + "/stream"

// pyWriter is a pypaimon process using the S3 warehouse directly (not
// through a fault front: its commits must land), driven one command per
// line by testdata/s3writer.py.
type pyWriter struct {
	t    testing.TB
	proc *testenv.Process
	out  *bufio.Scanner
}

func startWriter(t testing.TB, s *server) *pyWriter {
	t.Helper()
	if s.direct == "" {
		t.Fatal("pypaimon needs a real S3 server")
	}
	script := filepath.Join(testenv.RepoRoot(t), "tests", "objectstore", "testdata", "s3writer.py")
	p := testenv.StartPython(t, context.Background(), script, s.direct, accessKey, secretKey, streamWarehouse)
	return &pyWriter{t: t, proc: p, out: bufio.NewScanner(p.Stdout)}
}

// do sends one command and returns the answer after "ok ".
func (w *pyWriter) do(args ...string) string {
	w.t.Helper()
	if _, err := fmt.Fprintln(w.proc.Stdin, strings.Join(args, " ")); err != nil {
		w.t.Fatalf("pypaimon %v: %v\n%s", args, err, w.proc.Stderr())
	}
	if !w.out.Scan() {
		w.t.Fatalf("pypaimon %v: no answer (%v)\n%s", args, w.out.Err(), w.proc.Stderr())
	}
	line := w.out.Text()
	ans, ok := strings.CutPrefix(line, "ok ")
	if !ok {
		w.t.Fatalf("pypaimon %v: %s\n%s", args, line, w.proc.Stderr())
	}
	return ans
}

// follower is one Go streaming reader of db.t with its own consumer id.
type follower struct {
	srv        *server
	consumerID string
	end        int64
	// restartAt, when > 0, drops the scan after delivering that snapshot
	// and starts a new one, which must resume from the consumer file.
	restartAt int64
	got       map[int64][]int32
	restarts  int
}

func (f *follower) scan(ctx context.Context, tbl *paimon.Table) (*paimon.StreamReadBuilder, *paimon.StreamingScan, error) {
	b := tbl.NewStreamReadBuilder().WithPollInterval(20*time.Millisecond).
		WithConsumerID(f.consumerID).WithStartMode(paimon.StartFromSnapshot).WithStartSnapshot(1).
		WithEndSnapshot(f.end).WithProjection("id", "name")
	sc, err := b.NewStreamingScan(ctx)
	return b, sc, err
}

// run follows the table to the end snapshot. Every plan's rows are read,
// then the consumer is committed and read back from the bucket: it must say
// exactly the position after the plan just delivered, never further.
func (f *follower) run(ctx context.Context) error {
	opts := f.srv.options()
	opts.MaxRetries = 10
	opts.RequestTimeout = 5 * time.Second
	cat, err := paimon.OpenCatalog(ctx, streamWarehouse, paimon.WithStorageOptions(opts))
	if err != nil {
		return err
	}
	if c, ok := cat.FileIO().(io.Closer); ok {
		defer c.Close()
	}
	tbl, err := cat.GetTable(ctx, "db.t")
	if err != nil {
		return err
	}
	cm := consumer.NewManager(cat.FileIO(), tbl.Path(), "")
	b, sc, err := f.scan(ctx, tbl)
	if err != nil {
		return err
	}
	f.got = map[int64][]int32{}
	for {
		p, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("next after snapshot %d: %w", sc.NextSnapshotID()-1, err)
		}
		if p.FirstPlan {
			return fmt.Errorf("snapshot %d: a full plan in from-snapshot mode", p.SnapshotID)
		}
		if _, dup := f.got[p.SnapshotID]; dup {
			return fmt.Errorf("snapshot %d delivered twice", p.SnapshotID)
		}
		ids, err := readIDs(ctx, b.NewRead(), p.Splits)
		if err != nil {
			return fmt.Errorf("snapshot %d: %w", p.SnapshotID, err)
		}
		f.got[p.SnapshotID] = ids
		if err := sc.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
			return fmt.Errorf("commit consumer after snapshot %d: %w", p.SnapshotID, err)
		}
		c, ok, err := cm.Consumer(ctx, f.consumerID)
		if err != nil || !ok || c.NextSnapshot != p.NextSnapshotID {
			return fmt.Errorf("consumer %s after committing %d: %+v, found %v, %v", f.consumerID, p.NextSnapshotID, c, ok, err)
		}
		if p.SnapshotID == f.restartAt {
			f.restarts++
			if b, sc, err = f.scan(ctx, tbl); err != nil {
				return err
			}
		}
	}
}

// readIDs reads every split and returns the ids, checking each name is
// "n<id>" as the writer made it.
func readIDs(ctx context.Context, rd *paimon.Read, splits []*paimon.Split) ([]int32, error) {
	var ids []int32
	for _, sp := range splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			return nil, err
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			id, ok1 := rec.Column(0).(*array.Int32)
			name, ok2 := rec.Column(1).(*array.String)
			if !ok1 || !ok2 {
				rr.Release()
				return nil, fmt.Errorf("unexpected columns %v", rec.Schema())
			}
			for i := range int(rec.NumRows()) {
				if want := "n" + strconv.Itoa(int(id.Value(i))); name.Value(i) != want {
					rr.Release()
					return nil, fmt.Errorf("row id %d has name %q, want %q", id.Value(i), name.Value(i), want)
				}
				ids = append(ids, id.Value(i))
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// TestStreamingOverS3 commits to a table in the bucket with pypaimon's own
// S3 FileIO while two Go streaming scans follow it, one through a clean
// front and one through 15 % injected faults that also restarts halfway
// from its consumer file. Both must deliver every commit's rows exactly
// once under that commit's snapshot id, and their consumer files must be
// readable by pypaimon's ConsumerManager; a consumer pypaimon writes must
// be where a Go scan resumes.
func TestStreamingOverS3(t *testing.T) {
	s := versity(t, fileiotest.FaultConfig{})
	w := startWriter(t, s)
	w.do("create", "db.t", "2")
	faulty, _ := s.another(t, "faults", interopFaults)

	const commits, rowsPer = 8, 40
	followers := []*follower{
		{srv: s, consumerID: "go-clean", end: commits},
		{srv: faulty, consumerID: "go-faulty", end: commits, restartAt: commits / 2},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	errs := make([]error, len(followers))
	var wg sync.WaitGroup
	for i, f := range followers {
		wg.Go(func() { errs[i] = f.run(ctx) })
	}
	want := map[int64][]int32{}
	for i := range commits {
		sid, err := strconv.ParseInt(w.do("append", "db.t", strconv.Itoa(i*rowsPer), strconv.Itoa(rowsPer)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int32
		for id := i * rowsPer; id < (i+1)*rowsPer; id++ {
			ids = append(ids, int32(id))
		}
		want[sid] = ids
		time.Sleep(100 * time.Millisecond)
	}
	if len(want) != commits {
		t.Fatalf("pypaimon reported snapshots %v for %d commits", want, commits)
	}
	wg.Wait()
	_, _, faults := faulty.faults.Stats()
	t.Logf("faults injected into the faulty follower: %v", faults)
	injected := 0
	for _, n := range faults {
		injected += n
	}
	if injected < 10 {
		t.Errorf("only %d faults injected into the faulty follower; the run proves little", injected)
	}
	for i, f := range followers {
		if errs[i] != nil {
			t.Fatalf("%s via %s: %v", f.consumerID, f.srv.name, errs[i])
		}
		for sid, ids := range want {
			if !slices.Equal(f.got[sid], ids) {
				t.Errorf("%s: snapshot %d delivered ids %v, pypaimon committed %v", f.consumerID, sid, f.got[sid], ids)
			}
		}
		if len(f.got) != len(want) {
			t.Errorf("%s: delivered snapshots %d, want %d", f.consumerID, len(f.got), len(want))
		}
		if f.restartAt > 0 && f.restarts != 1 {
			t.Errorf("%s restarted %d times, want 1", f.consumerID, f.restarts)
		}
		// pypaimon reads the consumer file the Go scan committed.
		if got := w.do("consumer", "db.t", f.consumerID); got != strconv.Itoa(commits+1) {
			t.Errorf("pypaimon reads consumer %s as %s, want %d", f.consumerID, got, commits+1)
		}
	}

	// A consumer pypaimon writes is where a Go scan resumes.
	w.do("setconsumer", "db.t", "py", "3")
	f := &follower{srv: faulty, consumerID: "py", end: 4}
	if err := f.run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(f.got) != 2 || !slices.Equal(f.got[3], want[3]) || !slices.Equal(f.got[4], want[4]) {
		t.Fatalf("resuming pypaimon's consumer at 3 delivered %v, want snapshots 3 and 4", f.got)
	}
	if got := w.do("consumer", "db.t", "py"); got != "5" {
		t.Errorf("pypaimon reads consumer py as %s after the Go scan, want 5", got)
	}
}
