//go:build !interop_noapi

package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// liveRandomHistories is how many random schema histories (resources/java SchemaHistGen) the
// live suite writes with its seed.
const liveRandomHistories = 6

// TestLive regenerates the full oracle matrix (pypaimon in resources/.venv, Java Paimon via
// Maven) into a temp dir and runs every case. Opt-in with PAIMON_INTEROP=1; a missing venv or
// Maven skips loudly locally and fails in CI (CI=true), where the suite must really run.
func TestLive(t *testing.T) {
	testenv.OptIn(t, "PAIMON_INTEROP", "live interop suite (pypaimon and Java Paimon regenerate the tables)")
	res, err := filepath.Abs(filepath.Join("..", "..", "resources"))
	if err != nil {
		t.Fatal(err)
	}
	py := os.Getenv("PAIMON_INTEROP_PYTHON")
	if py == "" {
		py = filepath.Join(res, ".venv", "bin", "python")
	}
	unavailable := func(what string, err error) {
		testenv.Unavailable(t, "LIVE INTEROP SUITE NOT RUN: "+what+": "+err.Error()+
			" (create the venv: python3 -m venv resources/.venv && resources/.venv/bin/pip install -r resources/pygen/requirements.txt)")
	}
	if _, err := os.Stat(py); err != nil {
		unavailable("no pypaimon venv", err)
	}
	out := t.TempDir()
	run := func(dir string, name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, b)
		}
	}
	run(res, py, filepath.Join(res, "pygen", "gen_props.py"), "--warehouse", filepath.Join(out, "warehouse"),
		"--props", filepath.Join(out, "props-py.json"))
	run(res, py, filepath.Join(res, "pygen", "gen_append.py"), "--warehouse", filepath.Join(out, "warehouse"),
		"--expected", filepath.Join(out, "expected"), "--cases", filepath.Join(out, "cases.json"))
	if _, err := exec.LookPath("mvn"); err != nil {
		unavailable("no Maven", err)
	}
	if _, err := os.Stat(filepath.Join(res, "java", "src", "main", "java", "org", "connectpaimon", "gen", "JavaGen.java")); err == nil {
		run(filepath.Join(res, "java"), "mvn", "-q", "-B", "-o", "compile", "exec:java",
			"-Dexec.args=--warehouse "+filepath.Join(out, "warehouse")+" --expected "+filepath.Join(out, "expected")+
				" --cases "+filepath.Join(out, "cases-java.json")+" --props "+filepath.Join(out, "props-javagen.json"))
	}
	if _, err := os.Stat(filepath.Join(res, "java", "src", "main", "java", "org", "connectpaimon", "gen", "JavaStatsGen.java")); err == nil {
		// Stats-mode tables: Java's reads are cases, and the pruning property runs on them
		// with a fresh random seed (printed).
		run(filepath.Join(res, "java"), "mvn", "-q", "-B", "-o", "compile", "exec:java",
			"-Dexec.mainClass=org.connectpaimon.gen.JavaStatsGen",
			"-Dexec.args=--warehouse "+filepath.Join(out, "warehouse")+" --expected "+filepath.Join(out, "expected")+
				" --cases "+filepath.Join(out, "cases-javastats.json")+" --props "+filepath.Join(out, "props-java.json"))
	}
	// One seed for the random tables and the property runs (printed: PAIMON_PROPERTY_SEED=<seed>
	// writes the same random schema histories and draws the same filters again).
	seed := propertySeed(t)
	randomHistories := 0
	if _, err := os.Stat(filepath.Join(res, "java", "src", "main", "java", "org", "connectpaimon", "gen", "SchemaHistGen.java")); err == nil {
		randomHistories = liveRandomHistories
		run(filepath.Join(res, "java"), "mvn", "-q", "-B", "-o", "compile", "exec:java",
			"-Dexec.mainClass=org.connectpaimon.gen.SchemaHistGen",
			"-Dexec.args=--warehouse "+filepath.Join(out, "warehouse")+" --expected "+filepath.Join(out, "expected")+
				" --cases "+filepath.Join(out, "cases-randhist.json")+" --db "+randomHistoryDB+
				" --seed "+strconv.FormatUint(seed, 10)+" --count "+strconv.Itoa(randomHistories))
	}
	if _, err := os.Stat(filepath.Join(res, "java", "src", "main", "java", "org", "connectpaimon", "gen", "VersionGen.java")); err == nil {
		runVersionMatrix(t, res, out, run)
	}
	runCases(t, out)
	t.Run("old parquet null rows", func(t *testing.T) {
		if runDiffers(t, out) == 0 {
			t.Fatal("no release of the writer-version matrix read NULL rows differently in Parquet: Paimon 0.9's collapse is no longer shown (docs/interop.md)")
		}
	})
	t.Run("property", func(t *testing.T) { runProperty(t, out, seed) })
	t.Run("schema history property", func(t *testing.T) {
		// The hand-written histories are Java's same tables as the committed ones, which the
		// offline test checks (with a fresh seed under CI): here the random ones alone, six
		// filters per snapshot besides one per column, to keep the suite's time.
		if n := runSchemaHistoryProperty(t, out, seed, nil, 6); n != randomHistories {
			t.Errorf("%d random schema histories in %s, SchemaHistGen was asked for %d", n, randomHistoryDB, randomHistories)
		}
	})
	t.Run("bounds", func(t *testing.T) { runBounds(t, out) })
}

// runVersionMatrix runs VersionGen under every release in resources/java/legacy-versions (its
// own tables and reads), then under the pom's release (reading all of those in one run, then
// writing and reading its own), as resources/regen-fixtures.sh does for the committed set.
func runVersionMatrix(t *testing.T, res, out string, run func(dir, name string, args ...string)) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(res, "java", "legacy-versions"))
	if err != nil {
		t.Fatal(err)
	}
	java := filepath.Join(res, "java")
	args := func(cases, differs string) string {
		return "-Dexec.args=--warehouse " + filepath.Join(out, "warehouse") + " --expected " + filepath.Join(out, "expected") +
			" --cases " + filepath.Join(out, cases) + " --differs " + filepath.Join(out, differs)
	}
	var dbs []string
	for _, v := range strings.Split(string(b), "\n") {
		v = strings.TrimSpace(v)
		if v == "" || strings.HasPrefix(v, "#") {
			continue
		}
		run(java, "mvn", "-q", "-B", "-o", "-Dpaimon.legacy="+v, "compile", "exec:java",
			args("cases-java-"+v+".json", "differs-java-"+v+".json"))
		dbs = append(dbs, "java_"+strings.ReplaceAll(v, ".", "_"))
	}
	if len(dbs) > 0 {
		run(java, "mvn", "-q", "-B", "-o", "compile", "exec:java", "-Dexec.mainClass=org.connectpaimon.gen.VersionGen",
			args("cases-java-by-current.json", "differs-java-by-current.json")+" --read-db "+strings.Join(dbs, ","))
	}
	run(java, "mvn", "-q", "-B", "-o", "compile", "exec:java", "-Dexec.mainClass=org.connectpaimon.gen.VersionGen",
		args("cases-java-current.json", "differs-java-current.json"))
}
