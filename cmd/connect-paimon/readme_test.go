package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shellWords splits a command line as sh would for the README's commands:
// words separated by blanks, "..." and '...' quoting, a trailing # comment.
func shellWords(t *testing.T, line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == '#' && !inWord:
			return words
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestREADMECommands runs every `connect-paimon` command of README's shell
// blocks (the discovery and admin commands) from the repository root on
// the committed demo warehouse: each exits 0, prints something and warns
// about nothing.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	n := 0
	for _, m := range regexp.MustCompile("(?ms)^```sh\n(.*?)^```").FindAllStringSubmatch(string(readme), -1) {
		for _, line := range strings.Split(m[1], "\n") {
			// The binary, installed or through go run (the quickstart).
			rest, ok := strings.CutPrefix(line, "connect-paimon ")
			if !ok {
				if rest, ok = strings.CutPrefix(line, "go run ./cmd/connect-paimon "); !ok {
					continue
				}
			}
			args := shellWords(t, rest)
			n++
			r, proc := runCapturingProcess(t, args...)
			out := r.out + proc
			if r.code != 0 || r.err != nil {
				t.Errorf("README: %s\nexit %d: %v\n%s%s", line, r.code, r.err, r.stderr, proc)
				continue
			}
			if strings.TrimSpace(out) == "" {
				t.Errorf("README: %s\nprinted nothing", line)
			}
			if args[0] == "run" {
				if rows := strings.Count(out, "\n{"); rows != 300 {
					t.Errorf("README: %s\nprinted %d rows, want demo.orders' 300:\n%s", line, rows, out)
				}
			}
			if w := strings.ToLower(r.stderr + proc); strings.Contains(w, "warn") {
				t.Errorf("README: %s\nwarned: %s%s", line, r.stderr, proc)
			}
		}
	}
	if n < 8 {
		t.Fatalf("found %d connect-paimon commands in README's shell blocks, want the discovery and admin commands", n)
	}
}

// runCapturingProcess is run with the process' stdout and stderr captured
// too, where Benthos' run writes rows and logs.
func runCapturingProcess(t *testing.T, args ...string) (result, string) {
	t.Helper()
	proc := filepath.Join(t.TempDir(), "proc.txt")
	f, err := os.Create(proc)
	must(t, err)
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = f, f
	r := run(t, args...)
	os.Stdout, os.Stderr = oldOut, oldErr
	must(t, f.Close())
	b, err := os.ReadFile(proc)
	must(t, err)
	return r, string(b)
}

// TestREADMEGoVersion: README names the Go version go.mod requires.
func TestREADMEGoVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Go " + string(m[1]) + " or later"; !strings.Contains(string(readme), want) {
		t.Errorf("README does not say %q (go.mod's go line)", want)
	}
	if regexp.MustCompile(`Go \(?1\.\d+\+`).Match(readme) {
		t.Errorf("README still names a Go version other than go.mod's")
	}
}

// TestREADMEYAMLLints: every YAML snippet of README lints clean with this
// binary (the paimon input, the outputs, metrics and tracers it bundles).
func TestREADMEYAMLLints(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```yaml\n(.*?)^```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 3 {
		t.Fatalf("found %d YAML snippets in README, want at least 3", len(blocks))
	}
	// The snippets take secrets from the environment, as they should.
	t.Setenv("TOKEN", "secret")
	dir := t.TempDir()
	for i, m := range blocks {
		file := filepath.Join(dir, fmt.Sprintf("snippet%d.yaml", i))
		must(t, os.WriteFile(file, []byte(m[1]), 0o644))
		// Benthos' own lint writes to the process' stdout and stderr.
		proc := filepath.Join(dir, fmt.Sprintf("lint%d.txt", i))
		f, err := os.Create(proc)
		must(t, err)
		oldOut, oldErr := os.Stdout, os.Stderr
		os.Stdout, os.Stderr = f, f
		r := run(t, "lint", file)
		os.Stdout, os.Stderr = oldOut, oldErr
		must(t, f.Close())
		msgs, _ := os.ReadFile(proc)
		if r.code != 0 {
			t.Errorf("README's YAML snippet %d does not lint (exit %d):\n%s\n%s%s", i+1, r.code, m[1], r.stderr, msgs)
		}
	}
}

// TestDocsStandAlone: README and docs/ link only to files of this
// repository that exist (or to web pages), and speak to users, not of
// the project's issues.
func TestDocsStandAlone(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, "../../README.md")
	root, err := filepath.Abs("../..")
	must(t, err)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	issue := regexp.MustCompile(`(?i)\bissues? #?\d+|\(#\d+\)`)
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		must(t, err)
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			abs, err := filepath.Abs(filepath.Join(filepath.Dir(doc), target))
			must(t, err)
			if !strings.HasPrefix(abs, root+string(filepath.Separator)) {
				t.Errorf("%s links %s, outside the repository", doc, m[1])
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links %s, which does not exist", doc, m[1])
			}
		}
		if m := issue.FindString(string(b)); m != "" {
			t.Errorf("%s speaks of %q: user docs do not refer to the project's issues", doc, m)
		}
	}
}
