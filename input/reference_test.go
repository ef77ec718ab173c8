package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// referencePath is the committed config reference the README links.
const referencePath = "../docs/reference.md"

// TestReference keeps docs/reference.md equal to what the spec generates, so
// the reference can never describe fields the input does not have. With
// UPDATE_REFERENCE=1 it rewrites the file instead.
func TestReference(t *testing.T) {
	got, err := renderReference()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_REFERENCE") == "1" {
		if err := os.WriteFile(referencePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("read %s: %v (generate it with UPDATE_REFERENCE=1 go test ./input -run TestReference)", referencePath, err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		line := 0
		for line < len(gl) && line < len(wl) && gl[line] == wl[line] {
			line++
		}
		var g, w string
		if line < len(gl) {
			g = gl[line]
		}
		if line < len(wl) {
			w = wl[line]
		}
		t.Fatalf("%s is stale: first difference at line %d:\n committed: %q\n generated: %q\nregenerate with UPDATE_REFERENCE=1 go test ./input -run TestReference", referencePath, line+1, w, g)
	}
}

// The generator must document every field of the spec, nested ones
// included, with the attributes that matter to a user.
func TestReferenceCoversSpec(t *testing.T) {
	doc, err := renderReference()
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	spec := specJSON(t)
	var walk func(prefix string, fs []specField)
	n := 0
	walk = func(prefix string, fs []specField) {
		for _, f := range fs {
			name := prefix + f.Name
			if f.IsDeprecated {
				// One spelling in the docs: a deprecated alias has no section.
				if strings.Contains(s, "\n### `"+name+"`\n") {
					t.Errorf("reference documents the deprecated field %s", name)
				}
				continue
			}
			n++
			if !strings.Contains(s, "\n### `"+name+"`\n") {
				t.Errorf("reference lacks a section for field %s", name)
			}
			walk(name+".", f.Children)
		}
	}
	walk("", spec.Config.Children)
	if n < 40 {
		t.Fatalf("walked only %d fields", n)
	}
	for _, want := range []string{
		"### `warehouse`\n\nThe warehouse root",
		"**Type:** `string` · **Required**",
		"### `storage.credentials.secret`",
		"**Secret**",
		"storage.credentials.id and storage.credentials.secret must be set together",
		"| `drop-update-before` | Drop `-U` rows",
		"[Apache Paimon](https://paimon.apache.org)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("reference lacks %q", want)
		}
	}
	sec := section(s, "### `storage.credentials.secret`")
	if !strings.Contains(sec, "**Secret**") || !strings.Contains(sec, "**Default:** `\"\"`") {
		t.Errorf("secret field section:\n%s", sec)
	}
	// The rules are Go (Config.Validate), not Bloblang lint rules of the
	// spec, so the reference states them in the description's Validation
	// section; the table's must be there.
	if sec := section(s, "### Validation"); !strings.Contains(sec, "`connect-paimon lint`") || !strings.Contains(sec, "`table` must be `database.table`") {
		t.Errorf("validation section lacks the table rule:\n%s", sec)
	}
}

func section(doc, heading string) string {
	i := strings.Index(doc, heading)
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading):]
	if j := strings.Index(rest, "\n### "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// specField mirrors the field JSON of Benthos' ConfigView.FormatJSON, which,
// unlike TemplateData, carries the advanced/optional flags and lint rules.
type specField struct {
	Name             string      `json:"name"`
	Type             string      `json:"type"`
	Kind             string      `json:"kind"`
	Description      string      `json:"description"`
	IsAdvanced       bool        `json:"is_advanced"`
	IsOptional       bool        `json:"is_optional"`
	IsSecret         bool        `json:"is_secret"`
	IsDeprecated     bool        `json:"is_deprecated"`
	Default          *any        `json:"default"`
	Examples         []any       `json:"examples"`
	AnnotatedOptions [][2]string `json:"annotated_options"`
	Options          []string    `json:"options"`
	Children         []specField `json:"children"`
	Linter           string      `json:"linter"`
}

type specDoc struct {
	Name        string   `json:"name"`
	Status      string   `json:"status"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	Categories  []string `json:"categories"`
	Version     string   `json:"version"`
	Examples    []struct {
		Title   string `json:"title"`
		Summary string `json:"summary"`
		Config  string `json:"config"`
	} `json:"examples"`
	Config specField `json:"config"`
}

func inputView() (*service.ConfigView, error) {
	env := service.NewEnvironment()
	err := env.RegisterBatchInput("paimon", inputSpec(), func(*service.ParsedConfig, *service.Resources) (service.BatchInput, error) {
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	view, ok := env.GetInputConfig("paimon")
	if !ok {
		return nil, fmt.Errorf("paimon input not in the environment")
	}
	return view, nil
}

func specJSON(t *testing.T) specDoc {
	t.Helper()
	view, err := inputView()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := view.FormatJSON()
	if err != nil {
		t.Fatal(err)
	}
	var d specDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// asciidocLink matches the description's asciidoc links, url[text^].
var asciidocLink = regexp.MustCompile(`(https?://[^\s\[]+)\[([^\]^]+)\^?\]`)

// lintMessage matches the messages of the spec's lint rule.
var lintMessage = regexp.MustCompile(`\$errs\.append\("((?:[^"\\]|\\.)*)"`)

// toMarkdown turns the asciidoc constructs the spec description uses
// (section titles, links) into Markdown.
func toMarkdown(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.HasPrefix(l, "== ") {
			l = "### " + strings.TrimPrefix(l, "== ")
		}
		out = append(out, asciidocLink.ReplaceAllString(l, "[$2]($1)"))
	}
	return strings.Join(out, "\n")
}

// renderReference renders the input's config reference as Markdown from
// the spec: the YAML skeletons Benthos generates, every field (nested ones
// by dotted path) with type, default, options, examples and lint rule, the
// cross-field lint rules, and the examples.
func renderReference() ([]byte, error) {
	view, err := inputView()
	if err != nil {
		return nil, err
	}
	raw, err := view.FormatJSON()
	if err != nil {
		return nil, err
	}
	var d specDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, err
	}
	td, err := view.TemplateData()
	if err != nil {
		return nil, err
	}
	// Field examples as YAML, marshalled by Benthos the way its docs show
	// them.
	yamlExamples := map[string][]string{}
	for _, f := range td.Fields {
		yamlExamples[f.FullName] = f.ExamplesMarshalled
	}

	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- Generated from input.Spec() by input/reference_test.go. Do not edit; regenerate with:\n")
	p("     UPDATE_REFERENCE=1 go test ./input -run TestReference -->\n\n")
	p("# `%s` input reference\n\n", d.Name)
	p("%s\n\n", d.Summary)
	p("**Status:** %s · **Since:** %s · **Categories:** %s\n\n", d.Status, d.Version, strings.Join(d.Categories, ", "))
	p("## Contents\n\n- [Common config](#common-config)\n- [Full config](#full-config)\n- [Description](#description)\n- [Fields](#fields)\n- [Examples](#examples)\n\n")
	p("## Common config\n\n```yaml\n%s```\n\n", td.CommonConfigYAML)
	p("## Full config\n\n```yaml\n%s```\n\n", td.AdvancedConfigYAML)
	p("## Description\n\n%s\n\n", toMarkdown(d.Description))
	p("## Fields\n\n")
	var walk func(prefix string, fs []specField)
	walk = func(prefix string, fs []specField) {
		for _, f := range fs {
			if f.IsDeprecated {
				continue
			}
			name := prefix + f.Name
			p("### `%s`\n\n", name)
			if desc := strings.TrimSpace(f.Description); desc != "" {
				p("%s\n\n", desc)
			}
			attrs := []string{"**Type:** `" + typeName(f) + "`"}
			switch {
			case f.Default != nil:
				def, _ := json.Marshal(*f.Default)
				attrs = append(attrs, "**Default:** `"+string(def)+"`")
			case f.IsOptional:
				attrs = append(attrs, "**Optional**")
			case f.Type != "object" || len(f.Children) == 0:
				attrs = append(attrs, "**Required**")
			}
			if f.IsAdvanced {
				attrs = append(attrs, "Advanced")
			}
			if f.IsSecret {
				attrs = append(attrs, "**Secret**")
			}
			p("%s\n\n", strings.Join(attrs, " · "))
			if len(f.AnnotatedOptions) > 0 {
				p("| Option | Meaning |\n| --- | --- |\n")
				for _, o := range f.AnnotatedOptions {
					p("| `%s` | %s |\n", o[0], strings.ReplaceAll(o[1], "|", `\|`))
				}
				p("\n")
			} else if len(f.Options) > 0 {
				p("**Options:** `%s`\n\n", strings.Join(f.Options, "`, `"))
			}
			if ex := yamlExamples[name]; len(ex) > 0 {
				p("**Examples:**\n\n```yaml\n")
				for i, e := range ex {
					if i > 0 {
						p("\n")
					}
					p("%s", e)
				}
				p("```\n\n")
			}
			// Enum fields carry a generated option check; the options table
			// already says it.
			if l := strings.TrimSpace(f.Linter); l != "" && len(f.Options) == 0 && len(f.AnnotatedOptions) == 0 {
				p("**Lint:**\n\n```coffeescript\n%s\n```\n\n", l)
			}
			walk(name+".", f.Children)
		}
	}
	walk("", d.Config.Children)

	// The input's rules are Go (Config.Validate, documented in the
	// description's Validation section); a Bloblang rule, should the spec
	// ever carry one again, is rendered here.
	if strings.TrimSpace(d.Config.Linter) != "" {
		p("## Cross-field lint rules\n\n")
		p("`connect-paimon lint` reports these (the input checks them again when it starts, because lint can be skipped):\n\n")
		for _, m := range lintMessage.FindAllStringSubmatch(d.Config.Linter, -1) {
			msg := strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[1])
			p("- %s\n", msg)
		}
		p("\n<details><summary>The rule as Bloblang</summary>\n\n```coffeescript\n%s\n```\n\n</details>\n\n", strings.TrimSpace(d.Config.Linter))
	}

	p("## Examples\n\n")
	for _, ex := range d.Examples {
		p("### %s\n\n%s\n\n```yaml\n%s\n```\n\n", ex.Title, strings.TrimSpace(ex.Summary), strings.TrimSpace(ex.Config))
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n"), nil
}

func typeName(f specField) string {
	switch f.Kind {
	case "array":
		return "array of " + f.Type
	case "2darray":
		return "two-dimensional array of " + f.Type
	case "map":
		return "map of " + f.Type
	}
	return f.Type
}
