//go:build !interop_noapi

package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestLiveSpark has Spark SQL write the tables of resources/spark/gen_spark.py (INSERT and
// INSERT OVERWRITE, UPDATE / DELETE / MERGE INTO, merge engines, ALTER TABLE, the compact
// procedure) and dump Spark's own reads of them, then reads every case here and compares.
// Opt-in with PAIMON_INTEROP=1 like TestLive. It needs a python with pyspark ($SPARK_PYTHON)
// and Paimon's Spark connector jar ($PAIMON_SPARK_JARS, a jar or a directory of jars);
// scripts/test-all installs both. Without them it skips loudly, and fails in CI (CI=true).
//
// PAIMON_SPARK_OUT=DIR reads a directory gen_spark.py already wrote (warehouse/, expected/,
// cases-spark.json) instead of running Spark, for working on the reader.
func TestLiveSpark(t *testing.T) {
	testenv.OptIn(t, "PAIMON_INTEROP", "live interop suite (Spark SQL writes the tables)")
	if dir := os.Getenv("PAIMON_SPARK_OUT"); dir != "" {
		runCases(t, dir)
		return
	}
	res, err := filepath.Abs(filepath.Join("..", "..", "resources"))
	if err != nil {
		t.Fatal(err)
	}
	unavailable := func(what string) {
		testenv.Unavailable(t, "LIVE SPARK INTEROP SUITE NOT RUN: "+what+
			" (scripts/test-all --install sets it up: a venv with resources/spark/requirements.txt as SPARK_PYTHON,"+
			" and `mvn -q -B dependency:copy-dependencies` in resources/spark with PAIMON_SPARK_JARS=resources/spark/target/lib)")
	}
	py, jars := os.Getenv("SPARK_PYTHON"), os.Getenv("PAIMON_SPARK_JARS")
	if py == "" || jars == "" {
		unavailable("SPARK_PYTHON or PAIMON_SPARK_JARS is not set")
	}
	if out, err := exec.Command(py, "-c", "import pyspark").CombinedOutput(); err != nil {
		unavailable("pyspark is not importable with " + py + ": " + err.Error() + ": " + string(out))
	}
	if _, err := os.Stat(jars); err != nil {
		unavailable("no Paimon Spark jars: " + err.Error())
	}
	if _, err := exec.LookPath("java"); err != nil {
		unavailable("no java for Spark: " + err.Error())
	}
	out := t.TempDir()
	start := time.Now()
	cmd := exec.Command(py, filepath.Join(res, "spark", "gen_spark.py"), "--jars", jars,
		"--warehouse", filepath.Join(out, "warehouse"), "--expected", filepath.Join(out, "expected"),
		"--cases", filepath.Join(out, "cases-spark.json"))
	cmd.Dir = res
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_spark.py: %v\n%s", err, b)
	}
	t.Logf("Spark wrote the tables in %s", time.Since(start).Round(time.Second))
	runCases(t, out)
}
