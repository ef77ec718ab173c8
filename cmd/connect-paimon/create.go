package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
)

// createCommand replaces Benthos' create with one whose configs lint clean
// and run once the placeholders (warehouse, table, brokers) are the user's.
// Benthos writes every optional field that has no default with its example
// or a zero value — `snapshot_id: 0`, a `timestamp` beside `scan_mode:
// latest-full`, `partitioner: ""` — so its configs fail lint. This runs
// Benthos' own create (every component and flag works as before) and drops
// those fields, except the few whose example is what a user should keep.
func createCommand(sio stdio, binary string) *cli.Command {
	return &cli.Command{
		Name:  "create",
		Usage: "Create a new " + binary + " config (optional fields without a default are left out)",
		Description: `Takes the arguments of Benthos' create:

  ` + binary + ` create paimon//kafka_franz > ./config.yaml
  ` + binary + ` create --small paimon//aws_s3`,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			out, err := benthosCreate(c, binary)
			if err != nil {
				return err
			}
			clean, err := dropUnsetOptionals(out)
			if err != nil {
				return fmt.Errorf("create: %w", err)
			}
			_, err = sio.out.Write(clean)
			return err
		},
	}
}

// benthosCreate runs Benthos' create and returns what it printed. Benthos
// prints to os.Stdout and offers no writer option, so stdout is a pipe for
// the call; create runs alone in its process.
func benthosCreate(c *cli.Context, binary string) ([]byte, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	copied := make(chan error, 1)
	go func() { _, err := io.Copy(&buf, r); copied <- err }()
	stdout := os.Stdout
	os.Stdout = w
	code, err := service.RunCLIToCode(c.Context,
		service.CLIOptSetArgs(append([]string{binary, "create"}, c.Args().Slice()...)...),
		service.CLIOptSetBinaryName(binary), service.CLIOptSetProductName(binary))
	os.Stdout = stdout
	_ = w.Close()
	if cerr := <-copied; cerr != nil && err == nil {
		err = cerr
	}
	_ = r.Close()
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, errors.New("create failed")
	}
	return buf.Bytes(), nil
}

// keptExamples are optional fields whose example belongs in a new config:
// without a consumer the stream starts over on every restart.
var keptExamples = map[string]bool{
	"input.paimon.consumer_id": true,
}

// optInObjects are optional objects Benthos writes in full because their
// fields have defaults; writing one turns its feature on (a group needs a
// broker), so a created config leaves them out.
var optInObjects = map[string]bool{
	"input.paimon.group": true,
}

const noDefaultOptional = "# No default (optional)"

// dropUnsetOptionals removes the fields Benthos marked "No default
// (optional)" from a created config.
func dropUnsetOptionals(in []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(in, &doc); err != nil {
		return nil, err
	}
	prune(&doc, "")
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

func prune(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			prune(c, path)
		}
	case yaml.MappingNode:
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if (isUnsetOptional(k, v) && !keptExamples[p]) || optInObjects[p] {
				continue
			}
			prune(v, p)
			kept = append(kept, k, v)
		}
		n.Content = kept
	}
}

func isUnsetOptional(k, v *yaml.Node) bool {
	for _, c := range []string{k.LineComment, v.LineComment, k.FootComment, v.HeadComment} {
		if strings.Contains(c, noDefaultOptional) {
			return true
		}
	}
	return false
}
