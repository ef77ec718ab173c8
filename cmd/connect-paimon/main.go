// Command connect-paimon is a Benthos binary with the open component bundles
// (pure, io) and the paimon input: run, lint, echo, list, create and the
// other Benthos subcommands work as usual.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"

	// The input registers itself on import; lint.go uses it by name.
	"github.com/connect-paimon/connect-paimon/input"
	// Outputs, metrics and tracers Connect users expect, built here on
	// open libraries (Connect's own are not open source).
	_ "github.com/connect-paimon/connect-paimon/internal/observe/notrace"
	_ "github.com/connect-paimon/connect-paimon/internal/observe/otlp"
	_ "github.com/connect-paimon/connect-paimon/internal/observe/prometheus"
	_ "github.com/connect-paimon/connect-paimon/internal/outputs/awss3"
	_ "github.com/connect-paimon/connect-paimon/internal/outputs/kafka"
)

func main() {
	code, err := service.RunCLIToCode(context.Background(), cliOptions(os.Args, stdio{out: os.Stdout, err: os.Stderr})...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	// A paimon input that stopped on a permanent error ended its pipeline
	// the only way Benthos lets an input; the run failed all the same. The
	// input logged the error.
	if input.Failed() != nil && code == 0 {
		code = 1
	}
	os.Exit(code)
}

const docsURL = "https://github.com/connect-paimon/connect-paimon"

// cliOptions assembles the CLI; tests call it with their own arguments and
// writers.
func cliOptions(args []string, sio stdio) []service.CLIOptFunc {
	version, built := buildVersion()
	opts := []service.CLIOptFunc{
		service.CLIOptSetArgs(args...),
		service.CLIOptSetBinaryName("connect-paimon"),
		service.CLIOptSetProductName("connect-paimon"),
		service.CLIOptSetVersion(version, built),
		service.CLIOptSetDocumentationURL(docsURL),
	}
	for _, c := range adminCommands(sio) {
		opts = append(opts, service.CLIOptAddCommand(c))
	}
	opts = append(opts, service.CLIOptAddCommand(lintCommand(sio, "connect-paimon")),
		service.CLIOptAddCommand(createCommand(sio, "connect-paimon")))
	installProductHelp("connect-paimon", docsURL)
	return opts
}

// buildVersion reads the version from the module build info rather than
// ldflags-set globals: `go install ...@vX` stamps it, and VCS builds stamp
// the revision and time.
func buildVersion() (version, built string) {
	version, built = "dev", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if version == "dev" && len(s.Value) >= 12 {
				version = "dev-" + s.Value[:12]
			}
		case "vcs.time":
			built = s.Value
		}
	}
	return
}
