package testenv

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// JavaREST is a running Java Paimon REST catalog server
// (resources/java RestServer: RESTCatalogServer from paimon-core 1.3.1's
// test-jar over a local warehouse), with a command channel to write tables
// through Java's RESTCatalog.
type JavaREST struct {
	// URI is the server's base URI, Token its bearer token, Warehouse the
	// warehouse name /v1/config answers for, Dir the warehouse directory.
	URI, Token, Warehouse, Dir string

	mu     sync.Mutex
	stdin  io.WriteCloser
	lines  chan string
	stderr *LockedBuffer
}

// JavaRESTOptions configure StartJavaREST.
type JavaRESTOptions struct {
	// DataToken sets data-token.enabled in the server's config answer.
	DataToken bool
	// Gen runs a generator through the REST catalog before READY
	// ("javagen" or "javapk"), writing Expected and Cases.
	Gen, Expected, Cases, Tables string
	// StartTimeout bounds the start (and the generator's run); 0 is 5 minutes.
	StartTimeout time.Duration
}

var javaBuild struct {
	once sync.Once
	cp   string
	err  string
}

// javaClasspath compiles resources/java's sources alone into a temporary
// directory against the project's Maven classpath (resolved offline: the
// CI script resolves it) and returns the classpath that runs them.
func javaClasspath(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	javaBuild.once.Do(func() {
		for _, bin := range []string{"java", "javac", "mvn"} {
			if _, err := exec.LookPath(bin); err != nil {
				javaBuild.err = bin + " not on PATH"
				return
			}
		}
		proj := filepath.Join(root, "resources", "java")
		work, err := os.MkdirTemp("", "connect-paimon-java-")
		if err != nil {
			javaBuild.err = err.Error()
			return
		}
		cpFile := filepath.Join(work, "cp.txt")
		out, err := exec.Command("mvn", "-q", "-o", "-f", filepath.Join(proj, "pom.xml"),
			"dependency:build-classpath", "-Dmdep.outputFile="+cpFile).CombinedOutput()
		if err != nil {
			javaBuild.err = "Maven dependencies of resources/java not resolved (run mvn -B dependency:go-offline there): " + err.Error() + "\n" + lastLines(string(out), 10)
			return
		}
		cp, err := os.ReadFile(cpFile)
		if err != nil {
			javaBuild.err = err.Error()
			return
		}
		var srcs []string
		_ = filepath.WalkDir(filepath.Join(proj, "src", "main", "java"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") {
				srcs = append(srcs, p)
			}
			return nil
		})
		classes := filepath.Join(work, "classes")
		args := append([]string{"-nowarn", "-cp", string(cp), "-d", classes}, srcs...)
		if out, err := exec.Command("javac", args...).CombinedOutput(); err != nil {
			javaBuild.err = "compile resources/java: " + err.Error() + "\n" + lastLines(string(out), 20)
			return
		}
		javaBuild.cp = classes + string(os.PathListSeparator) + strings.TrimSpace(string(cp))
	})
	if javaBuild.err != "" {
		Unavailable(t, "Java Paimon REST server: "+javaBuild.err)
	}
	return javaBuild.cp
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// StartJavaREST starts Java's REST catalog server over a fresh warehouse
// under dir; it stops when the test ends. Without java/javac/mvn or the
// resolved Maven dependencies it skips loudly (fails under CI=true).
func StartJavaREST(t testing.TB, dir string, o JavaRESTOptions) *JavaREST {
	t.Helper()
	if testing.Short() {
		t.Skip("Java REST catalog server skipped in -short mode")
	}
	cp := javaClasspath(t)
	s := &JavaREST{Token: "go-test-token", Warehouse: "go_wh", Dir: filepath.Join(dir, "warehouse"), lines: make(chan string, 64), stderr: &LockedBuffer{}}
	args := []string{"-cp", cp, "org.connectpaimon.gen.RestServer", "--dir", s.Dir, "--warehouse", s.Warehouse,
		"--token", s.Token, "--data-token", fmt.Sprint(o.DataToken)}
	if o.Gen != "" {
		args = append(args, "--gen", o.Gen, "--expected", o.Expected, "--cases", o.Cases)
		if o.Tables != "" {
			args = append(args, "--tables", o.Tables)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		Unavailable(t, "start java: "+err.Error())
	}
	done := make(chan struct{})
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = s.stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cancel()
			<-done
		}
		cancel()
	})
	timeout := o.StartTimeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	// The generator's progress ("wrote javapk.t") is logged as it comes and, with the last
	// lines of stderr (Java's exceptions and logs), shown when the start fails.
	start := time.Now()
	var progress []string
	failed := func(why string) {
		t.Helper()
		t.Fatalf("Java REST server %s after %s (%d generator lines)\nlast stdout:\n%s\nlast stderr:\n%s",
			why, time.Since(start).Round(time.Second), len(progress), lastLines(strings.Join(progress, "\n"), 20), lastLines(s.stderr.String(), 60))
	}
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				failed("exited before READY")
			}
			if u, found := strings.CutPrefix(l, "REST_URI "); found {
				s.URI = strings.TrimSuffix(u, "/")
				continue
			}
			if l == "READY" {
				if s.URI == "" {
					t.Fatal("Java REST server printed no REST_URI")
				}
				if o.Gen != "" {
					t.Logf("Java REST server: %s generated through REST in %s", o.Gen, time.Since(start).Round(time.Second))
				}
				return s
			}
			progress = append(progress, l)
			t.Logf("Java REST server (%s): %s", time.Since(start).Round(time.Second), l)
		case <-deadline:
			failed(fmt.Sprintf("not ready in %s", timeout))
		}
	}
}

// Do sends one command (see RestServer's usage) and returns its answer
// after "OK "; an "ERR" answer fails the test.
func (s *JavaREST) Do(t testing.TB, command string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.stdin, command+"\n"); err != nil {
		t.Fatalf("REST server command %q: %v\n%s", command, err, lastLines(s.stderr.String(), 20))
	}
	select {
	case l, ok := <-s.lines:
		if !ok {
			t.Fatalf("REST server exited on %q:\n%s", command, lastLines(s.stderr.String(), 40))
		}
		if r, found := strings.CutPrefix(l, "OK"); found {
			return strings.TrimSpace(r)
		}
		t.Fatalf("REST server command %q: %s\n%s", command, l, lastLines(s.stderr.String(), 20))
	case <-time.After(3 * time.Minute):
		t.Fatalf("REST server command %q: no answer in 3 minutes", command)
	}
	return ""
}
