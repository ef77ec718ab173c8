package consumer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// javaTool compiles resources/java/.../ConsumerTool.java alone (so the rest
// of the Java project need not build) against the project's resolved Maven
// classpath, and returns the argv that runs it. Maven runs offline: the CI
// script resolves the dependencies; locally a missing cache skips loudly.
func javaTool(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("interop with reference implementations skipped in -short mode")
	}
	missing := func(why string) {
		testenv.Unavailable(t, "Java Paimon consumer interop: "+why)
	}
	for _, bin := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing(bin + " not on PATH")
		}
	}
	projDir, err := filepath.Abs(filepath.Join("..", "..", "resources", "java"))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(projDir, "src", "main", "java", "org", "connectpaimon", "gen", "ConsumerTool.java")
	if _, err := os.Stat(src); err != nil {
		missing("no " + src)
	}
	work := t.TempDir()
	cpFile := filepath.Join(work, "cp.txt")
	cmd := exec.Command("mvn", "-q", "-o", "-f", filepath.Join(projDir, "pom.xml"),
		"dependency:build-classpath", "-Dmdep.outputFile="+cpFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		missing("Maven dependencies of resources/java not resolved (run mvn dependency:resolve there): " +
			err.Error() + "\n" + lastLines(string(out), 10))
	}
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(work, "classes")
	if out, err := exec.Command("javac", "-cp", string(cp), "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("compile %s: %v\n%s", src, err, out)
	}
	return []string{"java", "-cp", classes + string(os.PathListSeparator) + string(cp), "org.connectpaimon.gen.ConsumerTool"}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestInteropJava checks the Go Manager against Java Paimon's own
// ConsumerManager (paimon-bundle, the version in resources/java/pom.xml).
// One test with subtests, so the tool is compiled once.
func TestInteropJava(t *testing.T) {
	argv := javaTool(t)
	ctx := context.Background()
	java := func(t *testing.T, table string) toolRunner { return toolRunner{t: t, argv: argv, table: table} }

	t.Run("java writes, go reads", func(t *testing.T) {
		table := t.TempDir()
		r := java(t, table)
		r.run("", "write", "j-a", "2931")
		r.run("", "write", "j-b", "17")
		r.run("dev", "write", "j-dev", "4")
		raw, err := os.ReadFile(filepath.Join(table, "consumer", "consumer-j-a"))
		if err != nil {
			t.Fatal(err)
		}
		// Go's writer must produce Java's bytes exactly.
		if want := string(Consumer{NextSnapshot: 2931}.JSON()); string(raw) != want {
			t.Fatalf("Java wrote %q, Go writes %q", raw, want)
		}
		m := NewManager(fileio.NewLocal(), table, "")
		all, err := m.Consumers(ctx)
		if err != nil || !reflect.DeepEqual(all, map[string]int64{"j-a": 2931, "j-b": 17}) {
			t.Fatalf("Consumers = %v %v", all, err)
		}
		if n, ok, err := m.MinNextSnapshot(ctx); err != nil || !ok || n != 17 {
			t.Fatalf("MinNextSnapshot = %d %v %v", n, ok, err)
		}
		if _, err := os.Stat(filepath.Join(table, "branch", "branch-dev", "consumer", "consumer-j-dev")); err != nil {
			t.Fatalf("Java's branch path differs from the one Go assumes: %v", err)
		}
		dev, err := m.WithBranch("dev").Consumers(ctx)
		if err != nil || !reflect.DeepEqual(dev, map[string]int64{"j-dev": 4}) {
			t.Fatalf("dev Consumers = %v %v", dev, err)
		}
	})

	t.Run("go writes, java reads", func(t *testing.T) {
		table := t.TempDir()
		m := NewManager(fileio.NewLocal(), table, "")
		want := map[string]int64{"g-a": 20, "g-b": 7, "g c": 9000000000}
		for id, n := range want {
			if err := m.Reset(ctx, id, Consumer{NextSnapshot: n}); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.WithBranch("dev").Reset(ctx, "g-dev", Consumer{NextSnapshot: 3}); err != nil {
			t.Fatal(err)
		}
		writeRaw(t, filepath.Join(table, "consumer", ".consumer-g-a.deadbeef.tmp"), `{"nextSnap`)
		r := java(t, table)
		v := r.read("")
		if !reflect.DeepEqual(v.Consumers, want) {
			t.Fatalf("Java consumers() = %v, want %v", v.Consumers, want)
		}
		if v.Min == nil || *v.Min != 7 {
			t.Fatalf("Java minNextSnapshot() = %v, want 7", v.Min)
		}
		goIDs, _ := m.ListIDs(ctx)
		if !reflect.DeepEqual(v.IDs, goIDs) {
			t.Fatalf("Java listAllIds() = %q, Go ListIDs = %q", v.IDs, goIDs)
		}
		if dv := r.read("dev"); !reflect.DeepEqual(dv.Consumers, map[string]int64{"g-dev": 3}) {
			t.Fatalf("Java dev consumers() = %v", dv.Consumers)
		}
		// Java deletes, Go no longer sees it.
		r.run("", "delete", "g-b")
		if _, ok, err := m.Consumer(ctx, "g-b"); ok || err != nil {
			t.Fatalf("after Java delete: ok=%v err=%v", ok, err)
		}
	})

	t.Run("clear agrees with Java full-match", func(t *testing.T) {
		ids := []string{"job-1", "job-2", "job-keep", "other", "test", "test-id1"}
		cases := []struct{ incl, excl string }{
			{".*", ""},
			{"test", ""}, // the case where pypaimon differs
			{"job-.*", "job-keep"},
			{"job", ""},
			{"job-[0-9]+|other", ""},
			{".*", "test"},
			{".*", "job-.*|test.*"},
		}
		for _, tc := range cases {
			goTable, jTable := twinTables(t, ids)
			java(t, jTable).run("", "clear", tc.incl, tc.excl)
			var excl *regexp.Regexp
			if tc.excl != "" {
				excl = regexp.MustCompile(tc.excl)
			}
			m := NewManager(fileio.NewLocal(), goTable, "")
			if _, err := m.Clear(ctx, regexp.MustCompile(tc.incl), excl); err != nil {
				t.Fatal(err)
			}
			goLeft, _ := m.ListIDs(ctx)
			jLeft, _ := NewManager(fileio.NewLocal(), jTable, "").ListIDs(ctx)
			if !reflect.DeepEqual(goLeft, jLeft) {
				t.Errorf("clear(%q, %q): Go left %q, Java left %q", tc.incl, tc.excl, goLeft, jLeft)
			}
		}
	})

	t.Run("expire agrees with Java", func(t *testing.T) {
		ids := []string{"a", "b", "c", "d", "e", "f"}
		goTable, jTable := twinTables(t, ids)
		cut := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		mtimes := map[string]time.Time{
			"a": cut.Add(-48 * time.Hour),
			"b": cut.Add(-time.Second),
			"c": cut.Add(time.Second),
			"d": cut.Add(72 * time.Hour),
			"e": cut.Add(-500 * time.Microsecond), // Java sees mtime in ms
			"f": cut.Add(500 * time.Microsecond),
		}
		for _, table := range []string{goTable, jTable} {
			for id, mt := range mtimes {
				if err := os.Chtimes(filepath.Join(table, "consumer", "consumer-"+id), mt, mt); err != nil {
					t.Fatal(err)
				}
			}
		}
		java(t, jTable).run("", "expire", strconv.FormatInt(cut.UnixMilli(), 10))
		deleted, err := NewManager(fileio.NewLocal(), goTable, "").Expire(ctx, cut)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a", "b", "e"}; !reflect.DeepEqual(deleted, want) {
			t.Fatalf("Go Expire deleted %q, want %q", deleted, want)
		}
		goLeft, _ := NewManager(fileio.NewLocal(), goTable, "").ListIDs(ctx)
		jLeft, _ := NewManager(fileio.NewLocal(), jTable, "").ListIDs(ctx)
		if !reflect.DeepEqual(goLeft, jLeft) {
			t.Fatalf("after expire: Go left %q, Java left %q", goLeft, jLeft)
		}
	})
}
