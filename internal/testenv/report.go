package testenv

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// FullSuite is the one command that installs every tool the integration
// suites need and runs them all (what CI runs).
const FullSuite = "scripts/test-all"

// skipped is what this test binary skipped for want of a tool or an opt-in:
// the report Main prints after the run. Test support, not library state.
var skipped struct {
	sync.Mutex
	mainRuns bool                // Main wraps the run: report at its end
	byReason map[string][]string // reason → test names, in skip order
	order    []string            // reasons in first-skip order
	optIn    map[string]bool     // reasons that are opt-in suites (not reported in CI)
}

// Main runs the package's tests (call it from TestMain) and then, if any
// test was skipped by Unavailable or OptIn, prints which, why and the
// command that runs them — on the terminal of `go test ./...`, where it shows
// without -v. go test shows a passing package's own output only with -v, so
// the report is written to the go command's stderr (Linux /proc), else to
// ours; and a run that reports is kept out of go's test cache, so a second
// `go test ./...` reports again instead of replaying a bare "ok".
func Main(m *testing.M) {
	skipped.Lock()
	skipped.mainRuns = true
	skipped.Unlock()
	code := m.Run()
	if r := report(); r != "" {
		w, closeW := terminal()
		fmt.Fprint(w, r)
		closeW()
	}
	os.Exit(code)
}

// OptIn skips the test unless the environment variable env is "1": a slow
// or tool-heavy suite the fast `go test ./...` leaves out, run by FullSuite.
// The skip is listed in Main's report (outside CI, where FullSuite's own
// step runs the suite).
func OptIn(t testing.TB, env, what string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		return
	}
	reason := what + " (opt-in: " + env + "=1)"
	record(t, reason, true)
	t.Skip("SKIPPING: " + reason + "; " + FullSuite + " runs it")
}

func record(t testing.TB, reason string, optIn bool) {
	skipped.Lock()
	if skipped.byReason == nil {
		skipped.byReason, skipped.optIn = map[string][]string{}, map[string]bool{}
	}
	if _, seen := skipped.byReason[reason]; !seen {
		skipped.order = append(skipped.order, reason)
		skipped.optIn[reason] = optIn
	}
	skipped.byReason[reason] = append(skipped.byReason[reason], t.Name())
	first, mainRuns := len(skipped.byReason[reason]) == 1, skipped.mainRuns
	skipped.Unlock()
	if optIn && InCI() {
		return
	}
	uncache()
	if !mainRuns && first {
		// A package without testenv.Main: say it now, once per reason.
		w, closeW := terminal()
		fmt.Fprintf(w, "SKIPPED in %s: %s (%s) — run the full suite: %s\n", pkgDir(), t.Name(), reason, FullSuite)
		closeW()
	}
}

// Say prints one line where `go test ./...` shows it without -v (see
// terminal): for what a run must tell even when it passes, such as the
// random seed a property test drew in CI.
func Say(format string, args ...any) {
	w, closeW := terminal()
	fmt.Fprintf(w, format+"\n", args...)
	closeW()
}

// report is the text Main prints, "" when nothing needs saying.
func report() string {
	skipped.Lock()
	defer skipped.Unlock()
	var b strings.Builder
	n := 0
	for _, reason := range skipped.order {
		if skipped.optIn[reason] && InCI() {
			continue
		}
		tests := skipped.byReason[reason]
		n += len(tests)
		names := tests
		if len(names) > 4 {
			names = append(names[:4:4], "+"+strconv.Itoa(len(tests)-4)+" more")
		}
		fmt.Fprintf(&b, "    %s: %s\n", reason, strings.Join(names, ", "))
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("SKIPPED %d integration test(s) in %s:\n%s    run them all (installs what they need): %s\n",
		n, pkgDir(), b.String(), FullSuite)
}

// terminal is where the report shows: the stderr of the `go test` command
// that runs this binary when there is one and it is a terminal or a pipe (a
// passing package's own output is hidden without -v), else our stderr.
func terminal() (io.Writer, func()) {
	proc := "/proc/" + strconv.Itoa(os.Getppid())
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil || !isGoTest(cmdline) {
		return os.Stderr, func() {}
	}
	// A terminal or a pipe (CI logs) only: a regular file opened here
	// would not share go's write offset, and go would overwrite the report.
	if fi, err := os.Stat(proc + "/fd/2"); err != nil || fi.Mode().IsRegular() {
		return os.Stderr, func() {}
	}
	f, err := os.OpenFile(proc+"/fd/2", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return os.Stderr, func() {}
	}
	return f, func() { f.Close() }
}

// isGoTest reports whether a /proc cmdline is `go test ...`.
func isGoTest(cmdline []byte) bool {
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	return len(args) >= 2 && filepath.Base(args[0]) == "go" && args[1] == "test"
}

// uncache keeps this run out of go's test cache: go refuses to cache a run
// that opened a file inside the module modified less than two seconds ago
// (cmd/go's modTimeCutoff; files outside the module are not tracked). The
// file is under the repository's git-ignored tmp/.
func uncache() {
	p := filepath.Join(repoRoot(), "tmp", "testenv-skip-report")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	if err := os.WriteFile(p, []byte(time.Now().String()), 0o644); err != nil {
		return
	}
	if f, err := os.Open(p); err == nil {
		f.Close()
	}
}

// pkgDir is the tested package's directory relative to the repository
// (go test runs a test binary in its package's directory).
func pkgDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	root := repoRoot()
	if rel, err := filepath.Rel(root, wd); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return wd
}
