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
	ver, built := buildVersion()
	opts := []service.CLIOptFunc{
		service.CLIOptSetArgs(args...),
		service.CLIOptSetBinaryName("connect-paimon"),
		service.CLIOptSetProductName("connect-paimon"),
		service.CLIOptSetVersion(ver, built),
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

// Set by a release build: -ldflags "-X main.version=v1.2.3 -X main.date=2026-01-02T00:00:00Z".
// They win over the build info.
var version, date string

// buildVersion is what --version prints: the release's ldflags when set,
// else the module build info Go embeds. `go install ...@vX` stamps the
// module version; `go build` in a git checkout stamps the revision, its
// time and whether the tree was modified. `go run` and `go test` stamp no
// revision, which the date then says.
func buildVersion() (v, built string) {
	info, ok := debug.ReadBuildInfo()
	return versionOf(info, ok, version, date)
}

// versionOf is buildVersion on given build info and ldflags values.
func versionOf(info *debug.BuildInfo, ok bool, ldVersion, ldDate string) (v, built string) {
	v, built = "dev", "unknown (no VCS information: built by go run or with -buildvcs=false)"
	var rev, modified string
	if ok {
		if mv := info.Main.Version; mv != "" && mv != "(devel)" {
			v = mv
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				built = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	if v == "dev" && rev != "" {
		v = "dev-" + rev[:min(12, len(rev))]
		if modified == "true" {
			v += "-modified"
		}
	}
	if ldVersion != "" {
		v = ldVersion
	}
	if ldDate != "" {
		built = ldDate
	}
	return v, built
}
