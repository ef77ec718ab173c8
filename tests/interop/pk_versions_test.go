//go:build !interop_noapi

package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pkVersionsFixturesDir holds the primary-key tables of the writer-version matrix: each older
// release of resources/java/legacy-versions wrote them (resources/java VersionPkGen) and dumped
// its own batch and streaming reads, and Java 1.3.1 dumped its reads of the same tables.
func pkVersionsFixturesDir() string {
	return fixturesSubdir("PAIMON_INTEROP_PK_VERSIONS_DIR", "pk-versions")
}

// TestPKVersions compares the Go reader with every release's reads of the primary-key tables it
// wrote — changelog producers input, lookup and full-compaction, first-row, partial-update and
// aggregation, dynamic buckets, partitions; batch reads of every snapshot and streams in every
// start mode — and with Java 1.3.1's reads of the same tables.
func TestPKVersions(t *testing.T) {
	dir := pkVersionsFixturesDir()
	checkPKVersionsCover(t, dir)
	runPKCases(t, dir)
}

// TestPKVersionsLive writes the matrix again under every release of
// resources/java/legacy-versions, reads it with Java 1.3.1, and compares.
func TestPKVersionsLive(t *testing.T) {
	java := livePKJava(t)
	out := t.TempDir()
	args := func(cases string) string {
		return "-Dexec.args=--warehouse " + filepath.Join(out, "warehouse") + " --expected " + filepath.Join(out, "expected") +
			" --cases " + filepath.Join(out, cases)
	}
	mvn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("mvn", append([]string{"-q", "-B", "-o"}, args...)...)
		cmd.Dir = java
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mvn %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	var dbs []string
	for _, v := range legacyVersions(t) {
		mvn("-Dpaimon.legacy="+v, "compile", "exec:java", "-Dexec.mainClass=org.connectpaimon.gen.VersionPkGen", args("cases-pk-java-"+v+".json"))
		dbs = append(dbs, "javapk_"+strings.ReplaceAll(v, ".", "_"))
	}
	mvn("compile", "exec:java", "-Dexec.mainClass=org.connectpaimon.gen.VersionPkGen",
		args("cases-pk-java-by-current.json")+" --read-db "+strings.Join(dbs, ","))
	checkPKVersionsCover(t, out)
	runPKCases(t, out)
}

// legacyVersions lists the older releases of the writer-version matrix.
func legacyVersions(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "resources", "java", "legacy-versions"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []string
	for _, v := range strings.Split(string(b), "\n") {
		if v = strings.TrimSpace(v); v != "" && !strings.HasPrefix(v, "#") {
			vs = append(vs, v)
		}
	}
	return vs
}

// checkPKVersionsCover fails unless dir holds every legacy release's own reads and Java 1.3.1's
// reads of each release's tables, so a regeneration cannot quietly drop a release.
func checkPKVersionsCover(t *testing.T, dir string) {
	t.Helper()
	own, readBy, err := loadPKCaseFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	wrote, read := map[string]int{}, map[string]int{}
	for _, c := range own.Cases {
		wrote[c.Table[:strings.IndexByte(c.Table, '.')]]++
	}
	for _, f := range readBy {
		for _, c := range f.Cases {
			read[c.Table[:strings.IndexByte(c.Table, '.')]]++
		}
	}
	for _, v := range legacyVersions(t) {
		db := "javapk_" + strings.ReplaceAll(v, ".", "_")
		if wrote[db] == 0 || read[db] == 0 {
			t.Errorf("%s: %d cases of Java %s's own reads, %d of a newer release's reads of its tables; want both", dir, wrote[db], v, read[db])
		}
	}
}
