package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSkipReportShowsWithoutVerbose runs `go test` (no -v) on a package
// whose tests skip for a missing tool and an opt-in, twice: both runs must
// print the report — the second one too, not a cached bare "ok".
func TestSkipReportShowsWithoutVerbose(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "SKIPPER_SUITE=") {
			env = append(env, kv)
		}
	}
	for run := 1; run <= 2; run++ {
		cmd := exec.Command("go", "test", "./internal/testenv/testdata/skipper")
		cmd.Dir = RepoRoot(t)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d: go test: %v\n%s", run, err, out)
		}
		s := string(out)
		for _, want := range []string{
			"SKIPPED 3 integration test(s) in internal/testenv/testdata/skipper:",
			"    frobnicator not found: TestNeedsTool, TestAlsoNeedsTool\n",
			"    slow skipper suite (opt-in: SKIPPER_SUITE=1): TestOptIn\n",
			"run them all (installs what they need): " + FullSuite,
		} {
			if !strings.Contains(s, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run, want, s)
			}
		}
		if strings.Contains(s, "(cached)") {
			t.Errorf("run %d: a reporting run was cached:\n%s", run, s)
		}
	}
	// With the opt-in given and in CI nothing is skipped silently: the tool
	// skip fails, the opt-in suite is not listed.
	cmd := exec.Command("go", "test", "-run", "TestOptIn|TestRuns", "./internal/testenv/testdata/skipper")
	cmd.Dir = RepoRoot(t)
	cmd.Env = append(env, "SKIPPER_SUITE=1")
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "SKIPPED") {
		t.Errorf("opt-in given: err %v, output:\n%s", err, out)
	}
	cmd = exec.Command("go", "test", "-run", "TestNeedsTool", "./internal/testenv/testdata/skipper")
	cmd.Dir = RepoRoot(t)
	cmd.Env = append(env, "CI=true")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "required in CI") {
		t.Errorf("CI=true: a missing tool must fail: err %v, output:\n%s", err, out)
	}
}
