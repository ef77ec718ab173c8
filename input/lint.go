package input

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/connect-paimon/connect-paimon/internal/readspec"
	"github.com/connect-paimon/connect-paimon/paimon"
)

// The input's rules live in Go, in config.Validate (and, for the streaming
// read, in readspec.Validate on the library's paimon.StreamConfig.Validate),
// in one copy. Benthos
// lint rules can only be Bloblang, run in an environment without custom
// functions, so the spec carries no lint rules of its own: Benthos' linter
// checks field names, types and enums, and LintYAML applies Validate to the
// paimon inputs of a config file. `connect-paimon lint` runs both; the
// constructor runs Validate too, so `run --chilled` and programmatic
// configs get the same errors.

// Lint is a problem found in a config file.
type Lint struct {
	// Line is the 1-based line of the field at fault; the line of the
	// paimon input when that field is not written (its default is at fault)
	// or the error names no field.
	Line int
	What string // the validation error, naming the field
}

func (l Lint) String() string { return fmt.Sprintf("line %d: paimon input: %s", l.Line, l.What) }

// LintYAML validates every paimon input of a Benthos config file: the root
// input, inputs nested in brokers, sequences and other wrappers, and input
// resources. Environment variables are replaced as Benthos does
// (${NAME} and ${NAME:default}); an input using a variable that is unset
// and has no default is skipped, since its values are unknown (Benthos'
// own lint reports the variable). A file that is not YAML is an error.
func LintYAML(conf []byte) ([]Lint, error) {
	return lintYAML(conf, nil)
}

// LintYAMLOpen is LintYAML, then opens the table of every paimon input
// that validates, as the input does when it connects: a wrong warehouse,
// database, table, branch or tag, a column or filter the schema does not
// have is found before the pipeline runs, named with what exists instead.
// The reads themselves are not planned.
func LintYAMLOpen(ctx context.Context, conf []byte) ([]Lint, error) {
	return lintYAML(conf, func(cfg config) error { return openCheck(ctx, cfg) })
}

// openCheck opens cfg's table and scan, and the tag of from-tag.
func openCheck(ctx context.Context, cfg config) error {
	// Lint writes nothing: without the consumer the scan does not tidy
	// the consumer's temporary files.
	cfg.Read.ConsumerID = ""
	src, err := openTable(ctx, cfg)
	if err != nil {
		return err
	}
	defer src.Close()
	if ts, ok := src.(*tableSource); ok && cfg.Read.StartMode == paimon.StartFromTag {
		if _, err := ts.tbl.TagSnapshotID(ctx, cfg.Read.StartTag); err != nil {
			return readspec.Named(&paimon.FieldError{Field: "StartTag", Err: err}, yamlField)
		}
	}
	return nil
}

func lintYAML(conf []byte, open func(config) error) ([]Lint, error) {
	text, unresolved := expandEnv(string(conf))
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		return nil, err
	}
	var lints []Lint
	var walk func(n *yaml.Node, parentKey string)
	walk = func(n *yaml.Node, parentKey string) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, parentKey)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "paimon" && isInputKey(parentKey) {
					err := validateNode(v, unresolved, open)
					if joined, ok := err.(interface{ Unwrap() []error }); ok {
						for _, e := range joined.Unwrap() {
							lints = append(lints, Lint{Line: faultLine(v, e, k.Line), What: e.Error()})
						}
					} else if err != nil {
						lints = append(lints, Lint{Line: faultLine(v, err, k.Line), What: err.Error()})
					}
					continue
				}
				walk(v, k.Value)
			}
		}
	}
	walk(&root, "")
	return lints, nil
}

// faultLine is the line of the first field of err's rule that the paimon
// input v writes (config.Validate's errors name them: Fields), else def.
func faultLine(v *yaml.Node, err error, def int) int {
	var named interface{ Fields() []string }
	if !errors.As(err, &named) {
		return def
	}
	for _, f := range named.Fields() {
		if n := lookup(v, strings.Split(f, ".")); n != nil {
			return n.Line
		}
	}
	return def
}

// lookup finds the key node of a dotted field path in a mapping node.
func lookup(n *yaml.Node, path []string) *yaml.Node {
	for len(path) > 0 && n != nil {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next, key *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == path[0] {
				key, next = n.Content[i], n.Content[i+1]
				break
			}
		}
		if key == nil {
			return nil
		}
		if len(path) == 1 {
			return key
		}
		n, path = next, path[1:]
	}
	return nil
}

// isInputKey reports whether a mapping under this key is an input: the
// root input, a wrapper's input, a broker's or sequence's inputs, resources.
func isInputKey(k string) bool {
	return k == "input" || k == "inputs" || k == "input_resources"
}

func validateNode(v *yaml.Node, unresolved string, open func(config) error) error {
	body, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	if strings.Contains(string(body), unresolved) {
		return nil
	}
	pc, err := inputSpec().ParseYAML(string(body), nil)
	if err != nil {
		return err
	}
	cfg, err := parseConfig(pc)
	if err != nil || open == nil {
		return err
	}
	return open(cfg)
}

var envRef = regexp.MustCompile(`\$\{([0-9A-Za-z_.]+)(:((\$\{[^}]+\}|[^}])*))?\}`)

// expandEnv replaces environment references like Benthos; unset ones
// without a default become a marker, returned too.
func expandEnv(s string) (string, string) {
	const marker = "__paimon_unresolved_env__"
	return envRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		if v, ok := os.LookupEnv(m[1]); ok && v != "" {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		return marker
	}), marker
}
