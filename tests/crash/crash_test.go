// Package crash kills the real connect-paimon binary with SIGKILL at random
// moments while pypaimon commits to the table it streams, restarts it, and
// checks the delivery guarantee the paimon input documents: every committed
// row reaches the output at least once, and the consumer file never points
// past a snapshot whose rows were not all in the output yet.
package crash

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// writerPy creates db.c (bucket 2) and commits batches of ids, printing
// "<snapshot id> <first id> <count>" after each commit so the test knows
// which rows each snapshot holds without asking the code under test.
const writerPy = `
import sys, time
import pyarrow as pa
from pypaimon import CatalogFactory, Schema

wh, batches, size, pause, log = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
cat = CatalogFactory.create({"warehouse": wh})
cat.create_database("db", True)
schema = pa.schema([("id", pa.int32()), ("name", pa.string())])
cat.create_table("db.c", Schema.from_pyarrow_schema(schema, options={"bucket": "2", "bucket-key": "id"}), False)
with open(log, "a") as out:
    for k in range(batches):
        t = cat.get_table("db.c")
        ids = list(range(k * size, (k + 1) * size))
        wb = t.new_batch_write_builder()
        w, c = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.Table.from_pydict({"id": ids, "name": ["n%d" % i for i in ids]}, schema=schema))
        c.commit(w.prepare_commit())
        w.close()
        c.close()
        snap = t.snapshot_manager().get_latest_snapshot().id
        out.write("%d %d %d\n" % (snap, k * size, size))
        out.flush()
        print("committed", snap, flush=True)
        time.sleep(pause)
`

const (
	batches   = 40
	batchSize = 50
)

type killRecord struct {
	next int64          // consumer nextSnapshot right after the kill
	seen map[int64]bool // ids in the sink right after the kill
}

func TestCrashRestartAtLeastOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test takes about a minute")
	}
	outFile := filepath.Join(t.TempDir(), "out.jsonl")
	soak{
		sink: "output file", kills: 8, pause: "0.4", minProgress: 1,
		extra: `metrics: {none: {}}
pipeline:
  processors:
    # An output that fails intermittently: about one batch in eight is
    # rejected and must be replayed by the input.
    - mapping: |
        root = if random_int(seed: timestamp_unix_nano(), max: 7) == 0 { throw("flaky output") } else { this }
`,
		output: fmt.Sprintf(`output:
  reject_errored:
    file:
      path: %s
      codec: lines
`, outFile),
		observe: func(t *testing.T) idCounts { return readIDs(t, outFile) },
	}.run(t, crashRand(t))
}

// soak is one crash soak: the pypaimon writer commits batches while the
// binary streams the table to a sink with a consumer and is SIGKILLed at
// random moments and restarted; a last bounded run drains the table. The
// three soaks differ only in their sink, so this is the one driver they share.
type soak struct {
	sink        string                      // what the sink is, for messages ("output", "topic", "bucket")
	kills       int                         // SIGKILLs of the streaming binary
	pause       string                      // seconds between the writer's commits
	output      string                      // the config's output section, indented as a top-level key
	observe     func(t *testing.T) idCounts // how many times each id is in the sink right now
	during      func(t *testing.T, run int) // optional: called while run is streaming, before its kill wait
	minProgress int                         // kills at which the consumer must have advanced
	// exactDuplicates checks that a row is in the sink more than once only if
	// its snapshot was unacknowledged at some kill; an output that rejects
	// single messages of a batch gets whole batches replayed, so it can't.
	exactDuplicates bool
	// exactlyOnce: every committed row must be in the sink exactly once.
	exactlyOnce bool
	// after, optional, runs at the end (reports).
	after func(t *testing.T)
	extra string // extra top-level config (e.g. metrics, pipeline), ends with a newline
}

// run drives the soak and checks the input's delivery guarantee: after every
// kill the sink holds every row of every snapshot below the consumer's
// nextSnapshot, and at the end every committed row is in the sink.
func (s soak) run(t *testing.T, rng *rand.Rand) {
	t.Helper()
	py := testenv.Python(t)
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	bin := testenv.Binary(t)
	script := filepath.Join(dir, "writer.py")
	if err := os.WriteFile(script, []byte(writerPy), 0o644); err != nil {
		t.Fatal(err)
	}
	snapLog := filepath.Join(dir, "snapshots.txt")
	writerDone := startWriter(t, py, script, wh, dir, batches, batchSize, s.pause, snapLog)

	// The table must exist before the binary connects; Connect retries
	// anyway, this only keeps the first run from spending its life failing.
	tableDir := filepath.Join(wh, "db.db", "c")
	waitFor(t, 60*time.Second, func() bool { return exists(filepath.Join(tableDir, "schema", "schema-0")) })

	cfg := func(bounded bool) string {
		end := ""
		if bounded {
			end = "    end: {at_latest: true}\n"
		}
		return fmt.Sprintf(`logger: {level: warn}
http: {enabled: false}
%sinput:
  paimon:
    warehouse: %s
    table: db.c
    consumer_id: crash
    commit_period: 100ms
    poll_interval: 100ms
    batch_size: 20
    checkpoint_limit: 100
%s%s`, s.extra, wh, end, s.output)
	}
	streamCfg, boundedCfg := filepath.Join(dir, "stream.yaml"), filepath.Join(dir, "bounded.yaml")
	if err := os.WriteFile(streamCfg, []byte(cfg(false)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(boundedCfg, []byte(cfg(true)), 0o644); err != nil {
		t.Fatal(err)
	}
	binLog, err := os.Create(filepath.Join(dir, "binary.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer binLog.Close()
	t.Cleanup(func() {
		// The temporary directory goes with the test: a failure shows the
		// end of the binary's log here.
		if !t.Failed() {
			return
		}
		if b, err := os.ReadFile(binLog.Name()); err == nil {
			lines := strings.Split(string(b), "\n")
			t.Logf("last lines of the binary's log:\n%s", strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	})

	var recs []killRecord
	for k := 0; k < s.kills; k++ {
		cmd := exec.Command(bin, "run", streamCfg)
		cmd.Stdout, cmd.Stderr = binLog, binLog
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if s.during != nil {
			s.during(t, k)
		}
		time.Sleep(time.Duration(500+rng.IntN(3000)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		_ = cmd.Wait()
		rec := killRecord{next: consumerNext(t, tableDir), seen: s.observe(t).set()}
		t.Logf("kill %d: consumer nextSnapshot %d, %d distinct ids in the %s", k, rec.next, len(rec.seen), s.sink)
		recs = append(recs, rec)
	}
	select {
	case err := <-writerDone:
		if err != nil {
			t.Fatalf("writer: %v (see %s)", err, filepath.Join(dir, "writer.log"))
		}
	case <-time.After(120 * time.Second):
		t.Fatal("writer did not finish")
	}

	// Drain: resume from the consumer up to the latest snapshot and exit.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	final := exec.CommandContext(ctx, bin, "run", boundedCfg)
	final.Stdout, final.Stderr = binLog, binLog
	if err := final.Run(); err != nil {
		t.Fatalf("bounded run: %v (log %s)", err, binLog.Name())
	}

	snaps := readSnapshots(t, snapLog)
	if len(snaps) != batches {
		t.Fatalf("writer logged %d snapshots, want %d", len(snaps), batches)
	}
	got := s.observe(t)
	for id := int64(0); id < batches*batchSize; id++ {
		if got[id] == 0 {
			t.Fatalf("id %d was committed but is not in the %s", id, s.sink)
		}
		if s.exactlyOnce && got[id] != 1 {
			t.Errorf("id %d is in the %s %d times", id, s.sink, got[id])
		}
	}
	if s.after != nil {
		s.after(t)
	}
	if n := consumerNext(t, tableDir); n != snaps[len(snaps)-1].id+1 {
		t.Errorf("final consumer nextSnapshot %d, want %d", n, snaps[len(snaps)-1].id+1)
	}
	progressed := 0
	for k, rec := range recs {
		if rec.next > 1 {
			progressed++
		}
		for _, sn := range snaps {
			if sn.id >= rec.next {
				continue
			}
			for id := sn.first; id < sn.first+sn.count; id++ {
				if !rec.seen[id] {
					t.Fatalf("kill %d: consumer at nextSnapshot %d, but id %d of snapshot %d was not in the %s yet", k, rec.next, id, sn.id, s.sink)
				}
			}
		}
	}
	if progressed < s.minProgress {
		t.Fatalf("the consumer advanced before only %d kills: the test checked too little", progressed)
	}
	if s.exactDuplicates {
		// A duplicate is a row delivered again after a restart: its snapshot
		// must have been unacknowledged (at or above the consumer position) at
		// some kill.
		dups := 0
		for _, sn := range snaps {
			unacked := false
			for _, rec := range recs {
				if sn.id >= rec.next {
					unacked = true
				}
			}
			for id := sn.first; id < sn.first+sn.count; id++ {
				if got[id] > 1 {
					dups++
					if !unacked {
						t.Errorf("id %d of snapshot %d is in the %s %d times, but its snapshot was acknowledged before every kill", id, sn.id, s.sink, got[id])
					}
				}
			}
		}
		t.Logf("%d rows, %d of them delivered more than once", batches*batchSize, dups)
	}
	// A kill between writing and renaming the consumer leaves a temp file;
	// each restart removes those of earlier runs, and the last run ended
	// cleanly: none may be left.
	ents, err := os.ReadDir(filepath.Join(tableDir, "consumer"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left in the consumer directory: %s", e.Name())
		}
	}
}

// idCounts is how many times each id is in a sink.
type idCounts map[int64]int

func (c idCounts) set() map[int64]bool {
	s := make(map[int64]bool, len(c))
	for id := range c {
		s[id] = true
	}
	return s
}

type snapRows struct{ id, first, count int64 }

func readSnapshots(t *testing.T, path string) []snapRows {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []snapRows
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s snapRows
		if _, err := fmt.Sscanf(line, "%d %d %d", &s.id, &s.first, &s.count); err != nil {
			t.Fatalf("%s: line %q: %v", path, line, err)
		}
		out = append(out, s)
	}
	return out
}

// readIDs reads the output file; a last line cut by the kill is ignored
// (its row was not acknowledged, so it is delivered again).
func readIDs(t *testing.T, path string) idCounts {
	t.Helper()
	seen := idCounts{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return seen
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			ID   *int64 `json:"id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil || row.ID == nil {
			continue
		}
		if row.Name != fmt.Sprintf("n%d", *row.ID) {
			t.Fatalf("row %s: name does not match id", sc.Bytes())
		}
		seen[*row.ID]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return seen
}

func consumerNext(t *testing.T, tableDir string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tableDir, "consumer", "consumer-crash"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		NextSnapshot int64 `json:"nextSnapshot"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("consumer file %q: %v", b, err)
	}
	return c.NextSnapshot
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// crashRand is the test's random source: PAIMON_CRASH_SEED, else time-based; the seed is
// logged so a failing kill schedule can be replayed.
func crashRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PAIMON_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("PAIMON_CRASH_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (rerun with PAIMON_CRASH_SEED=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// startWriter starts the pypaimon writer script (batches commits of batchSize rows, pause
// seconds apart, each snapshot logged to snapLog; extra arguments follow) with its output in dir/writer.log; the
// channel reports its exit. It is killed when the test ends.
func startWriter(t *testing.T, py, script, wh, dir string, batches, batchSize int, pause, snapLog string, extra ...string) <-chan error {
	t.Helper()
	writer := exec.Command(py, append([]string{script, wh, strconv.Itoa(batches), strconv.Itoa(batchSize), pause, snapLog}, extra...)...)
	writerOut, err := os.Create(filepath.Join(dir, "writer.log"))
	if err != nil {
		t.Fatal(err)
	}
	writer.Stdout, writer.Stderr = writerOut, writerOut
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	writerDone := make(chan error, 1)
	go func() { writerDone <- writer.Wait() }()
	t.Cleanup(func() {
		if writer.ProcessState == nil {
			_ = writer.Process.Kill()
		}
	})
	return writerDone
}
