package main

import "github.com/urfave/cli/v2"

// adminCommands returns the table administration subcommands added beside
// Benthos' own (run, lint, echo, list, ...). The planned tree is
// `connect-paimon paimon consumers list|get|reset|delete|expire|clear`,
// `paimon snapshots` and `paimon tail`; each lands as a *cli.Command here so
// main needs no change.
func adminCommands() []*cli.Command {
	return nil
}
