package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// latencyRun is one measurement: poll interval, number of commits and the
// range of the random gap between commits (wider than the poll so that each
// commit is usually discovered by its own poll, as in a trickle of commits).
type latencyRun struct {
	poll           time.Duration
	commits        int
	minGap, maxGap time.Duration
}

// TestCommitToPlanLatency measures the time from a pypaimon commit to the
// streaming scan yielding its plan, at poll intervals 100 ms and 1 s. A
// Python process appends one-row commits at random gaps while the scan
// (StartLatest) waits; for each plan the latency is taken from the snapshot
// file's mtime (when the commit became visible) and from the snapshot's
// timeMillis (when pypaimon stamped it, a few ms earlier). Median, p99 and
// max are logged (run with -v; docs/benchmarks.md records them). It needs
// PAIMON_BENCH_DIR and takes about two minutes; -short skips it.
func TestCommitToPlanLatency(t *testing.T) {
	dir := testenv.BenchDir(t)
	if testing.Short() {
		t.Skip("takes about two minutes")
	}
	script, err := filepath.Abs("../../resources/bench/commit_loop.py")
	if err != nil {
		t.Fatal(err)
	}
	wh := filepath.Join(dir, "latency-warehouse")
	if err := os.MkdirAll(wh, 0o755); err != nil {
		t.Fatal(err)
	}
	runs := []latencyRun{
		{poll: 100 * time.Millisecond, commits: 60, minGap: 200 * time.Millisecond, maxGap: 600 * time.Millisecond},
		{poll: time.Second, commits: 30, minGap: 1200 * time.Millisecond, maxGap: 2800 * time.Millisecond},
	}
	for _, r := range runs {
		t.Run(r.poll.String(), func(t *testing.T) { measureLatency(t, script, wh, r) })
	}
}

func measureLatency(t *testing.T, script, wh string, r latencyRun) {
	const table = "bench.latency"
	testenv.RunPython(t, script, "--warehouse", wh, "--table", table, "--create")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cat, err := paimon.OpenCatalog(ctx, wh)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tbl.NewStreamReadBuilder().WithStartMode(paimon.StartLatest).WithPollInterval(r.poll).NewStreamingScan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writer := testenv.StartPython(t, ctx, script, "--warehouse", wh, "--table", table,
		"--commits", fmt.Sprint(r.commits), "--min-gap", fmt.Sprint(r.minGap.Seconds()),
		"--max-gap", fmt.Sprint(r.maxGap.Seconds()))
	// The writer's own report of each commit is drained (and counted) so the
	// pipe never blocks it.
	committed := make(chan int, 1)
	go func() {
		n := 0
		sc := bufio.NewScanner(writer.Stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "committed ") {
				n++
			}
		}
		committed <- n
	}()

	var fromMtime, fromStamp []time.Duration
	for i := 0; i < r.commits; i++ {
		p, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("plan %d of %d: %v (writer stderr: %s)", i+1, r.commits, err, writer.Stderr())
		}
		arrived := time.Now()
		if want := int64(i + 2); p.SnapshotID != want {
			t.Fatalf("plan of snapshot %d, want %d", p.SnapshotID, want)
		}
		if len(p.Splits) != 1 || p.Splits[0].RowCount() != 1 {
			t.Fatalf("snapshot %d: plan has %d splits, want 1 split of the 1 committed row", p.SnapshotID, len(p.Splits))
		}
		st, err := tbl.FileIO().Stat(ctx, fileio.Join(tbl.Path(), "snapshot", fmt.Sprintf("snapshot-%d", p.SnapshotID)))
		if err != nil {
			t.Fatal(err)
		}
		fromMtime = append(fromMtime, arrived.Sub(st.ModTime))
		fromStamp = append(fromStamp, arrived.Sub(p.CommitTime))
	}
	if err := writer.Wait(); err != nil {
		t.Fatalf("commit loop: %v\n%s", err, writer.Stderr())
	}
	if n := <-committed; n != r.commits {
		t.Fatalf("writer reported %d commits, want %d", n, r.commits)
	}
	m, s2 := summarize(fromMtime), summarize(fromStamp)
	t.Logf("poll %v, %d commits: latency from snapshot file mtime: median %v p99 %v max %v; from snapshot timeMillis: median %v p99 %v max %v",
		r.poll, r.commits, m[0], m[1], m[2], s2[0], s2[1], s2[2])
}

// summarize returns median, p99 (nearest rank) and max, rounded to 0.1 ms.
func summarize(ds []time.Duration) [3]time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))].Round(100 * time.Microsecond)
	}
	return [3]time.Duration{rank(0.5), rank(0.99), s[len(s)-1].Round(100 * time.Microsecond)}
}
