package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/urfave/cli/v2"

	"github.com/connect-paimon/connect-paimon/input"
)

// lintCommand replaces Benthos' lint with one that also applies the paimon
// input's validation (input.LintYAML) to the
// files, then runs Benthos' own lint on the same arguments. Benthos lint
// rules can only be Bloblang, so this is where the Go rules reach lint
// without a second, Bloblang copy of them.
func lintCommand(sio stdio, binary string) *cli.Command {
	return &cli.Command{
		Name:            "lint",
		Usage:           "Parse Benthos configs and report any linting errors (the paimon input's rules included)",
		Description:     "Takes the arguments of Benthos' lint: " + binary + " lint ./configs/*.yaml\n--open also opens the table of every paimon input, as the input does when it connects:\na wrong warehouse, database, table, branch, tag, column or filter is reported with what exists.",
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			var args []string
			open := false
			for _, a := range c.Args().Slice() {
				if a == "--open" || a == "-open" {
					open = true
					continue
				}
				args = append(args, a)
			}
			failed := false
			for _, path := range lintPaths(args) {
				b, err := os.ReadFile(path)
				if err != nil {
					continue // Benthos' lint reports unreadable paths
				}
				lint := input.LintYAML
				if open {
					lint = func(b []byte) ([]input.Lint, error) { return input.LintYAMLOpen(c.Context, b) }
				}
				lints, err := lint(b)
				if err != nil {
					continue // and YAML errors
				}
				for _, l := range lints {
					fmt.Fprintf(sio.err, "%s: %s\n", path, l)
					failed = true
				}
			}
			// Plain errors, not cli.Exit: an ExitCoder would make urfave/cli
			// exit the process from inside RunCLIToCode.
			code, err := service.RunCLIToCode(c.Context,
				service.CLIOptSetArgs(append([]string{binary, "lint"}, args...)...),
				service.CLIOptSetBinaryName(binary))
			switch {
			case err != nil:
				return err
			case code != 0 || failed:
				return errors.New("lint found problems")
			}
			return nil
		},
	}
}

// lintPaths lists the config files among lint's arguments: paths and globs,
// and dir/... for every YAML file below dir, as Benthos reads them.
func lintPaths(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if dir, ok := strings.CutSuffix(a, "/..."); ok {
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
					out = append(out, p)
				}
				return nil
			})
			continue
		}
		if m, err := filepath.Glob(a); err == nil && len(m) > 0 {
			out = append(out, m...)
		}
	}
	return out
}
