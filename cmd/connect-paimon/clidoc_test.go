package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

const cliReferencePath = "../../docs/cli.md"

// cliReference renders docs/cli.md from the command tree: every `paimon`
// subcommand, its arguments and every flag with its default.
func cliReference() string {
	var b strings.Builder
	b.WriteString(`# connect-paimon paimon: command reference

Generated from the commands themselves (` + "`go test ./cmd/connect-paimon -run TestCLIReference`" + ` checks it;
` + "`UPDATE_CLI_REFERENCE=1`" + ` rewrites it). The pipeline commands (` + "`run`, `lint`, `create`, ..." + `) are Benthos';
the ` + "`paimon`" + ` input's fields are in [reference.md](reference.md).

`)
	root := adminCommands(stdio{})[0]
	b.WriteString("```\n" + root.Description + "\n```\n\n")
	// The warehouse, REST catalog and storage flags are every command's:
	// listed once here.
	common := map[string]bool{}
	for _, f := range catalogFlags() {
		common[f.Names()[0]] = true
	}
	b.WriteString("## Flags of every subcommand\n\n")
	writeFlags(&b, catalogFlags())
	var walk func(prefix string, cs []*cli.Command)
	walk = func(prefix string, cs []*cli.Command) {
		for _, c := range cs {
			path := prefix + " " + c.Name
			if len(c.Subcommands) > 0 {
				walk(path, c.Subcommands)
				continue
			}
			fmt.Fprintf(&b, "## %s\n\n%s.\n\n```\n%s\n```\n\n", path, strings.TrimSuffix(c.Usage, "."), strings.Join(strings.Fields(path+" "+c.ArgsUsage+" [flags]"), " "))
			if c.Description != "" {
				fmt.Fprintf(&b, "```\n%s\n```\n\n", c.Description)
			}
			var own []cli.Flag
			for _, f := range c.Flags {
				if !common[f.Names()[0]] {
					own = append(own, f)
				}
			}
			writeFlags(&b, own)
		}
	}
	walk("connect-paimon paimon", root.Subcommands)
	return b.String()
}

// writeFlags writes a command's visible flags as a table per category, the
// command's own first.
func writeFlags(b *strings.Builder, flags []cli.Flag) {
	byCat := map[string][]cli.Flag{}
	var cats []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		cat := ""
		if c, ok := f.(cli.CategorizableFlag); ok {
			cat = c.GetCategory()
		}
		if _, ok := byCat[cat]; !ok {
			cats = append(cats, cat)
		}
		byCat[cat] = append(byCat[cat], f)
	}
	sort.SliceStable(cats, func(i, j int) bool { return cats[i] == "" && cats[j] != "" })
	for _, cat := range cats {
		title := "Its flags (and those of every subcommand)"
		if cat != "" {
			title = "Flags: " + cat
		}
		fmt.Fprintf(b, "%s:\n\n| flag | default | |\n| --- | --- | --- |\n", title)
		for _, f := range byCat[cat] {
			names := f.Names()
			spelled := make([]string, len(names))
			for i, n := range names {
				if len(n) == 1 {
					spelled[i] = "`-" + n + "`"
				} else {
					spelled[i] = "`--" + n + "`"
				}
			}
			def, usage := "", ""
			if d, ok := f.(cli.DocGenerationFlag); ok {
				usage = d.GetUsage()
				if d.TakesValue() {
					def = d.GetValue()
				} else if v := d.GetValue(); v == "true" {
					def = "true"
				}
				if env := d.GetEnvVars(); len(env) > 0 {
					usage += " (env " + strings.Join(env, ", ") + ")"
				}
			}
			switch def {
			case "", "0", "[]":
				def = "" // unset: the usage says what that means
			default:
				def = "`" + def + "`"
			}
			usage = strings.ReplaceAll(strings.ReplaceAll(usage, "|", "\\|"), "`", "")
			fmt.Fprintf(b, "| %s | %s | %s |\n", strings.Join(spelled, ", "), def, usage)
		}
		b.WriteString("\n")
	}
}

// TestCLIReference: docs/cli.md is the generated reference of the
// commands as they are.
func TestCLIReference(t *testing.T) {
	got := cliReference()
	if os.Getenv("UPDATE_CLI_REFERENCE") == "1" {
		if err := os.WriteFile(cliReferencePath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(cliReferencePath)
	if err != nil {
		t.Fatalf("read %s: %v (generate it with UPDATE_CLI_REFERENCE=1 go test ./cmd/connect-paimon -run TestCLIReference)", cliReferencePath, err)
	}
	if string(want) != got {
		w, g := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := 0; i < len(w) || i < len(g); i++ {
			var a, c string
			if i < len(w) {
				a = w[i]
			}
			if i < len(g) {
				c = g[i]
			}
			if a != c {
				t.Fatalf("%s is stale: first difference at line %d:\n committed: %q\n generated: %q\nregenerate with UPDATE_CLI_REFERENCE=1 go test ./cmd/connect-paimon -run TestCLIReference", cliReferencePath, i+1, a, c)
			}
		}
	}
}
