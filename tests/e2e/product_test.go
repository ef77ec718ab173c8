package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"gopkg.in/yaml.v3"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestBinaryHelpIsTheProducts: the root help has connect-paimon's tagline
// and examples that work here, not Benthos' (whose `create kafka//file`
// names components this binary does not have).
func TestBinaryHelpIsTheProducts(t *testing.T) {
	bin := testenv.Binary(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		s := string(out)
		for _, want := range []string{"Stream Apache Paimon tables into Kafka, S3", "connect-paimon create paimon//kafka_franz", "connect-paimon paimon tail", "COMMANDS:", "paimon "} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: help lacks %q:\n%s", args, want, s)
			}
		}
		for _, bad := range []string{"kafka//file", "mundane"} {
			if strings.Contains(s, bad) {
				t.Errorf("%v: help still has Benthos' %q:\n%s", args, bad, s)
			}
		}
	}
	// Every example of the help runs (the ones that need a table get the
	// fixture's).
	wh := filepath.Join(t.TempDir(), "wh")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse"), wh)
	for _, args := range [][]string{
		{"create", "paimon//kafka_franz"},
		{"paimon", "snapshots", "--warehouse", wh, "--table", "demo.orders"},
		{"list", "inputs", "outputs"},
	} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
}

// TestBinaryCreatedConfigsLintAndRun: `create paimon//stdout` and
// `create paimon//kafka_franz` print configs that lint clean as printed,
// and run once the placeholders are a real table and broker: every row of
// the fixture table arrives.
func TestBinaryCreatedConfigsLintAndRun(t *testing.T) {
	bin := testenv.Binary(t)
	root := testenv.RepoRoot(t)
	rows := len(testenv.ReadLines(t, filepath.Join(root, "resources", "fixtures", "expected", "demo.orders", "full.jsonl")))
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	for _, expr := range []string{"paimon//stdout", "paimon//kafka_franz"} {
		t.Run(strings.ReplaceAll(expr, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			created, err := exec.Command(bin, "create", expr).Output()
			if err != nil {
				t.Fatalf("create %s: %v", expr, err)
			}
			cfg := filepath.Join(dir, "created.yaml")
			if err := os.WriteFile(cfg, created, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, "lint", cfg).CombinedOutput(); err != nil || len(out) > 0 {
				t.Fatalf("lint of the created config: %v\n%s\n%s", err, out, created)
			}

			var conf map[string]any
			if err := yaml.Unmarshal(created, &conf); err != nil {
				t.Fatal(err)
			}
			wh := filepath.Join(dir, "wh")
			testenv.CopyTree(t, filepath.Join(root, "resources", "fixtures", "warehouse"), wh)
			in := conf["input"].(map[string]any)["paimon"].(map[string]any)
			if in["consumer_id"] == nil {
				t.Errorf("created config has no consumer_id:\n%s", created)
			}
			in["warehouse"], in["table"] = wh, "demo.orders"
			in["end"] = map[string]any{"at_latest": true}
			conf["http"] = map[string]any{"enabled": false}
			conf["logger"].(map[string]any)["level"] = "WARN"
			if out, ok := conf["output"].(map[string]any)["kafka_franz"].(map[string]any); ok {
				out["seed_brokers"], out["topic"] = []any{c.ListenAddrs()[0]}, "orders"
			}
			b, err := yaml.Marshal(conf)
			if err != nil {
				t.Fatal(err)
			}
			run := filepath.Join(dir, "run.yaml")
			if err := os.WriteFile(run, b, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "run", run)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\n%s", err, stderr.String())
			}
			got := 0
			if strings.HasSuffix(expr, "stdout") {
				for _, line := range strings.Split(stdout.String(), "\n") {
					var row map[string]any
					if json.Unmarshal([]byte(line), &row) == nil && row["id"] != nil {
						got++
					}
				}
			} else {
				got = countRecords(t, c.ListenAddrs(), "orders", rows)
			}
			if got != rows {
				t.Errorf("%s delivered %d rows, the table has %d\n%s", expr, got, rows, stderr.String())
			}
		})
	}
}

func countRecords(t *testing.T, seeds []string, topic string, want int) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n := 0
	for n < want && ctx.Err() == nil {
		n += len(cl.PollFetches(ctx).Records())
	}
	// Anything past want would be a duplicate: look a little longer.
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	n += len(cl.PollFetches(ctx2).Records())
	return n
}
