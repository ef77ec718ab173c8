package config_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"

	_ "github.com/connect-paimon/connect-paimon/input"
)

// TestConfigsLint lints every shipped config with the environment the binary
// uses (open bundles plus the paimon input).
func TestConfigsLint(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d configs, want at least quickstart, sharding and upsert", len(files))
	}
	linter := service.NewEnvironment().FullConfigSchema("", "").NewStreamConfigLinter()
	linter.SetSkipEnvVarCheck(true)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lints, err := linter.LintYAML(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		for _, l := range lints {
			t.Errorf("%s: %s", f, l.Error())
		}
	}
}

// TestQuickstartRuns runs the quickstart's input over the committed demo
// table and checks it terminates with rows.
func TestQuickstartRuns(t *testing.T) {
	b, err := os.ReadFile("quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(string(b), "./resources/fixtures/warehouse", "../resources/fixtures/warehouse", 1)
	yaml = strings.Replace(yaml, "output:\n  stdout:\n    codec: lines\n", "", 1)
	sb := service.NewEnvironment().NewStreamBuilder()
	if err := sb.SetYAML(yaml); err != nil {
		t.Fatal(err)
	}
	_ = sb.SetLoggerYAML("level: none")
	var rows int
	if err := sb.AddConsumerFunc(func(_ context.Context, m *service.Message) error {
		rows++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	strm, err := sb.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := strm.Run(ctx); err != nil {
		t.Fatalf("quickstart: %v", err)
	}
	if rows == 0 {
		t.Fatal("quickstart delivered no rows")
	}
	t.Logf("quickstart delivered %d rows", rows)
}
