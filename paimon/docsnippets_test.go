package paimon_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlocks returns the ```go blocks of a Markdown document, joined by a
// blank line.
func goBlocks(doc string) string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?ms)^```go\n(.*?)^```").FindAllStringSubmatch(doc, -1) {
		blocks = append(blocks, strings.TrimSpace(m[1]))
	}
	return strings.Join(blocks, "\n\n")
}

// TestDocSnippetsCompile: every Go snippet a user can copy from README.md
// and docs/ is code of example_test.go, which compiles with this package
// and runs as its Example functions. A snippet edited in a document but
// not here (or the reverse) fails.
func TestDocSnippetsCompile(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]string{}
	for _, m := range regexp.MustCompile(`(?ms)^// snippet: (\S+)\n(.*?)^// end snippet\n`).FindAllStringSubmatch(string(src), -1) {
		regions[m[1]] = strings.TrimSpace(m[2])
	}
	docs, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	docs = append(docs, filepath.Join("..", "README.md"))
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		got := goBlocks(string(b))
		want, ok := regions[name]
		delete(regions, name)
		switch {
		case got == "" && !ok:
		case !ok:
			t.Errorf("%s has Go snippets that example_test.go does not compile; add them between \"// snippet: %s\" and \"// end snippet\"", name, name)
		case got != want:
			t.Errorf("%s: its Go snippets differ from example_test.go's \"snippet: %s\"; copy the code into the document\n--- document:\n%s\n--- example_test.go:\n%s", name, name, got, want)
		}
	}
	for name := range regions {
		t.Errorf("example_test.go has a snippet of %s, which has no Go block", name)
	}
}
