package config_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/input"
)

// TestConfigsLint lints every shipped config with the environment the binary
// uses (open bundles plus the paimon input). Environment variables are
// checked as connect-paimon lint checks them: a shipped config must lint on a
// machine that sets none, so every variable it uses has a default.
func TestConfigsLint(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d configs, want at least quickstart, sharding and upsert", len(files))
	}
	linter := service.NewEnvironment().FullConfigSchema("", "").NewStreamConfigLinter()
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
		// The input's own rules (Config.Validate), as connect-paimon lint
		// applies them.
		ours, err := input.LintYAML(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		for _, l := range ours {
			t.Errorf("%s: %s", f, l)
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
	// The happy path logs no warning: what the quickstart prints is rows.
	var warnings bytes.Buffer
	sb.SetLogger(slog.New(slog.NewTextHandler(&warnings, &slog.HandlerOptions{Level: slog.LevelWarn})))
	var rows int
	var row1 string
	var meta1 map[string]any
	if err := sb.AddConsumerFunc(func(_ context.Context, m *service.Message) error {
		rows++
		b, err := m.AsBytes()
		if err != nil {
			return err
		}
		// The mapping re-encodes the row, which sorts keys.
		if strings.Contains(string(b), `"id":1,`) {
			row1 = string(b)
			meta1 = map[string]any{}
			_ = m.MetaWalkMut(func(k string, v any) error { meta1[k] = v; return nil })
		}
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
	// pypaimon 2.1.0 reads 300 rows from this table; row 1 is
	// {id: 1, name: 'héllo wörld-1', amount: 41, price: Decimal('3002.96'),
	//  dt: date(2024, 1, 1), region: 'ap', flag: False, ts: 2024-01-01 00:00:00}
	// (ts is TIMESTAMP(3), so three fraction digits). The mapping adds snapshot.
	if rows != 300 {
		t.Fatalf("quickstart delivered %d rows, want 300", rows)
	}
	if warnings.Len() > 0 {
		t.Errorf("the quickstart logged warnings:\n%s", warnings.String())
	}
	want := `{"amount":41,"dt":"2024-01-01","flag":false,"id":1,"name":"héllo wörld-1","price":"3002.96","region":"ap","snapshot":3,"ts":"2024-01-01T00:00:00.000"}`
	if row1 != want {
		t.Fatalf("row 1\n%s\nwant\n%s", row1, want)
	}
	if p, ok := meta1["paimon_partition"].(map[string]any); !ok || p["dt"] != "2024-01-01" {
		t.Fatalf("paimon_partition = %#v, want {dt: 2024-01-01}", meta1["paimon_partition"])
	}
	if meta1["paimon_table"] != "demo.orders" || meta1["paimon_snapshot_id"] != int64(3) {
		t.Fatalf("metadata %v", meta1)
	}
}

// TestFileRecipeRuns runs paimon-to-file.yaml over the committed demo table
// into a temporary file: the file holds every row once, one JSON object per
// line, exactly the lines of a one-row-per-message run.
func TestFileRecipeRuns(t *testing.T) {
	b, err := os.ReadFile("paimon-to-file.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(yaml, out string) []string {
		t.Helper()
		yaml = strings.Replace(yaml, "${WAREHOUSE:./resources/fixtures/warehouse}", "../resources/fixtures/warehouse", 1)
		yaml = strings.Replace(yaml, "${OUT:./orders.jsonl}", out, 1)
		sb := service.NewEnvironment().NewStreamBuilder()
		if err := sb.SetYAML(yaml); err != nil {
			t.Fatal(err)
		}
		_ = sb.SetLoggerYAML("level: none")
		strm, err := sb.Build()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := strm.Run(ctx); err != nil {
			t.Fatalf("paimon-to-file: %v", err)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(data), "}\n") {
			t.Fatalf("%s does not end with a complete line", out)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		for _, l := range lines {
			if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") {
				t.Fatalf("line %q is not one JSON object", l)
			}
		}
		slices.Sort(lines)
		return lines
	}
	dir := t.TempDir()
	got := run(string(b), filepath.Join(dir, "packed.jsonl"))
	want := run(strings.Replace(string(b), "rows_per_message: 512", "rows_per_message: 1", 1), filepath.Join(dir, "single.jsonl"))
	// pypaimon 2.1.0 reads 300 rows from this table.
	if len(want) != 300 || !slices.Equal(got, want) {
		t.Fatalf("packed run wrote %d lines, one row per message %d; they differ", len(got), len(want))
	}
}
