//go:build !interop_noapi

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon"
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
		runSparkCases(t, dir)
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
	runSparkCases(t, out)
}

// runSparkCases runs dir's cases, then its differs-spark.json: the reads of Parquet tables
// holding ROW values whose fields are all NULL, which Paimon's Spark connector before 1.0 reads
// with Paimon 0.9's Parquet reader (all-NULL rows become NULL; docs/interop.md, "NULL rows in
// Parquet files of Paimon 0.9"). There Spark's read must be exactly our read with every
// all-NULL row made NULL, and nothing else.
func runSparkCases(t *testing.T, dir string) {
	runCases(t, dir)
	// col = min and col = max of every filterable column of every table (TestLive does the same).
	t.Run("bounds", func(t *testing.T) { runBounds(t, dir) })
	b, err := os.ReadFile(filepath.Join(dir, "differs-spark.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var cf CaseFile
	if err := json.Unmarshal(b, &cf); err != nil {
		t.Fatalf("differs-spark.json: %v", err)
	}
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, filepath.Join(dir, "warehouse"), CheckedAlloc(t))
	if err != nil {
		t.Fatalf("open catalog %s: %v", dir, err)
	}
	for _, c := range cf.Cases {
		t.Run("differs/"+c.Writer+"/"+c.Table+"/"+c.Case, func(t *testing.T) {
			theirs := Expected(t, dir, c.Expected, c.Rows)
			got, err := ReadCase(ctx, cat, c)
			if err != nil {
				t.Fatalf("read %s: %v", describe(c), err)
			}
			collapsed := make([]string, len(got))
			for i, l := range got {
				if collapsed[i], err = collapseNullFieldRows(l); err != nil {
					t.Fatal(err)
				}
			}
			sortLines(collapsed)
			if d := DiffLines(theirs, collapsed); d != "" {
				t.Fatalf("%s: %s (Paimon 0.9's Parquet reader) is not our read with every all-NULL row made NULL:\n%s", describe(c), cf.WriterVersion, d)
			}
		})
	}
}
