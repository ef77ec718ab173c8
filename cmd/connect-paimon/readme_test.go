package main

import (
	"os"
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
			if !strings.HasPrefix(line, "connect-paimon ") {
				continue
			}
			args := shellWords(t, line)[1:]
			n++
			r := run(t, args...)
			if r.code != 0 || r.err != nil {
				t.Errorf("README: %s\nexit %d: %v\n%s", line, r.code, r.err, r.stderr)
				continue
			}
			if strings.TrimSpace(r.out) == "" {
				t.Errorf("README: %s\nprinted nothing", line)
			}
			if strings.Contains(strings.ToLower(r.stderr), "warn") {
				t.Errorf("README: %s\nwarned: %s", line, r.stderr)
			}
		}
	}
	if n < 7 {
		t.Fatalf("found %d connect-paimon commands in README's shell blocks, want the discovery and admin commands", n)
	}
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
