// Package testenv finds the reference implementations (pypaimon, Java
// Paimon via Maven) for tests, and decides what happens when one is
// missing: locally the test is skipped with a loud message, in CI
// (CI=true) it fails, so a missing install step can never pass as green.
package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	root := repoRoot()
	if root == "" {
		t.Fatal("testenv: cannot locate source file")
	}
	return root
}

func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// InCI reports whether the tests run under CI.
func InCI() bool { return os.Getenv("CI") == "true" }

// Unavailable skips the test loudly, or fails it in CI. The skip is listed
// in the package's report at the end of the run (Main), with FullSuite.
func Unavailable(t testing.TB, what string) {
	t.Helper()
	msg := "!!! " + what + " !!!"
	if InCI() {
		t.Fatal("required in CI: " + msg)
	}
	record(t, what, false)
	t.Skip("SKIPPING: " + msg)
}

// Python returns a python interpreter with pypaimon 2.1.0: $PAIMON_PYTHON,
// else resources/.venv/bin/python (what .ci/run creates).
func Python(t testing.TB) string {
	t.Helper()
	py := os.Getenv("PAIMON_PYTHON")
	if py == "" {
		py = filepath.Join(RepoRoot(t), "resources", ".venv", "bin", "python")
	}
	if _, err := os.Stat(py); err != nil {
		Unavailable(t, "no pypaimon python at "+py+" (set PAIMON_PYTHON, or: python3 -m venv resources/.venv && resources/.venv/bin/pip install -r resources/pygen/requirements.txt)")
	}
	if out, err := exec.Command(py, "-c", "import pypaimon").CombinedOutput(); err != nil {
		Unavailable(t, "pypaimon not importable with "+py+": "+string(out))
	}
	return py
}

// RunPython runs a python script file with args and returns its stdout; a
// failure fails the test with the script's output.
func RunPython(t testing.TB, script string, args ...string) string {
	t.Helper()
	return runPython(t, filepath.Base(script), "file", script, args)
}

// RunPypaimon runs the Python source code (not a file) with pypaimon's
// interpreter, args as sys.argv[1:], and returns its stdout; a failure fails
// the test with the script's stdout and stderr. Without the interpreter the
// test is skipped loudly (failed in CI), as with Python.
func RunPypaimon(t testing.TB, code string, args ...string) string {
	t.Helper()
	return runPython(t, "-c script", "code", code, args)
}

// pyBoot runs a script (file or code, argv[1]) as __main__ and, once it has
// finished, leaves with os._exit. pyarrow and pypaimon keep native worker
// threads that the interpreter's teardown sometimes destroys while they are
// still joinable: the C++ runtime then aborts ("terminate called without an
// active exception") after every row was written and committed, and the
// test would fail on a write that succeeded. A script that raises still
// exits through the interpreter, with its traceback and status.
const pyBoot = `import os, sys, runpy
kind, src = sys.argv[1], sys.argv[2]
sys.argv = [src if kind == "file" else "-c"] + sys.argv[3:]
try:
    if kind == "file":
        runpy.run_path(src, run_name="__main__")
    else:
        exec(compile(src, "<script>", "exec"), {"__name__": "__main__"})
except SystemExit as e:
    if e.code not in (None, 0):
        raise
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
`

func runPython(t testing.TB, what, kind, src string, args []string) string {
	t.Helper()
	py := Python(t)
	cmd := exec.Command(py, append([]string{"-c", pyBoot, kind, src}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python %s %v: %v\nstdout:\n%s\nstderr:\n%s", what, args, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String()
}

// BenchDir returns $PAIMON_BENCH_DIR, where resources/bench/make_tables.py
// caches the large benchmark tables (warehouse/ and a bench.<name>.done
// marker per table), or skips: those measurements are run by hand, never
// required in CI.
func BenchDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("PAIMON_BENCH_DIR")
	if dir == "" {
		tb.Skip("PAIMON_BENCH_DIR is not set: generate the tables with `resources/bench/make_tables.py --dir DIR` and set PAIMON_BENCH_DIR=DIR")
	}
	return dir
}

// BenchTable returns BenchDir after checking that bench.<name> was
// generated completely (its marker is written last, so a half-written
// table is never timed), or skips.
func BenchTable(tb testing.TB, name string) string {
	tb.Helper()
	dir := BenchDir(tb)
	if _, err := os.Stat(filepath.Join(dir, "bench."+name+".done")); err != nil {
		tb.Skipf("table bench.%s is not generated in %s (%v): run `resources/bench/make_tables.py --dir %s --only %s`", name, dir, err, dir, name)
	}
	return dir
}
