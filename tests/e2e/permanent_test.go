package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// A permanent error (configuration, missing table or file, unsupported
// feature, corrupt metadata, expired position) ends `connect-paimon run`
// within seconds with a non-zero exit and the message once, instead of
// "Failed to connect" once a second forever. Each case is a real table
// (the committed pypaimon fixtures) and the real binary.
func TestPermanentErrorsEndTheRun(t *testing.T) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	testenv.CopyTree(t, filepath.Join(testenv.RepoRoot(t), "resources", "fixtures", "warehouse"), wh)
	afile := filepath.Join(dir, "not-a-dir")
	testenv.WriteFile(t, dir, "not-a-dir", "x")

	// An expired position: consumer "old" points at snapshot 1, which
	// expiry removed (snapshots 2 and 3 remain).
	orders := filepath.Join(wh, "demo.db", "orders")
	testenv.WriteFile(t, orders, "consumer/consumer-old", `{"nextSnapshot": 1}`)
	if err := os.Remove(filepath.Join(orders, "snapshot", "snapshot-1")); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, fields, want string
	}{
		{"unknown table", "table: demo.nope", "demo.nope"},
		{"unknown database", "table: nodb.orders", "nodb.orders"},
		{"missing warehouse", "warehouse: " + filepath.Join(dir, "nowhere") + "\n    table: demo.orders", "nowhere"},
		{"warehouse is a file", "warehouse: " + afile + "\n    table: demo.orders", "not-a-dir"},
		{"malformed filter", "table: demo.orders\n    filter: \"id >\"", "parse filter"},
		{"filter on an unknown column", "table: demo.orders\n    filter: \"nope = 1\"", "unknown column"},
		{"filter of the wrong type", "table: demo.orders\n    filter: \"id = 'abc'\"", "abc"},
		{"unknown column in columns", "table: demo.orders\n    columns: [id, nope]", "nope"},
		{"missing branch", "table: demo.orders\n    branch: nope", "nope"},
		{"upsert_mode on an append table", "table: demo.orders\n    include_row_kind: true\n    upsert_mode: drop_update_before", "primary key"},
		{"invalid consumer id", "table: demo.orders\n    consumer_id: \"a\\tb\"", "consumer"},
		{"expired consumer position", "table: demo.orders\n    consumer_id: old\n    on_expired: fail", "expired"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fields := c.fields
			if !strings.HasPrefix(fields, "warehouse:") {
				fields = "warehouse: " + wh + "\n    " + fields
			}
			cfg := filepath.Join(t.TempDir(), "c.yaml")
			yaml := "http: {enabled: false}\nmetrics: {none: {}}\ninput:\n  paimon:\n    " + fields +
				"\n    end:\n      at_latest: true\noutput:\n  drop: {}\n"
			if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			out, err := exec.CommandContext(ctx, bin, "run", cfg).CombinedOutput()
			took := time.Since(start)
			if ctx.Err() != nil {
				t.Fatalf("still running after %s (an endless retry?):\n%s", took, tail(out))
			}
			var ee *exec.ExitError
			if err == nil || !asExit(err, &ee) || ee.ExitCode() == 0 {
				t.Fatalf("exit %v, want non-zero:\n%s", err, tail(out))
			}
			if took > 15*time.Second {
				t.Errorf("took %s to stop", took)
			}
			lines := 0
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, c.want) && (strings.Contains(l, "level=error") || !strings.Contains(l, "level=")) {
					lines++
				}
			}
			if lines != 1 {
				t.Fatalf("the error naming %q appears %d times, want once:\n%s", c.want, lines, tail(out))
			}
			if strings.Contains(string(out), "Failed to connect") {
				t.Errorf("retried a permanent error:\n%s", tail(out))
			}
		})
	}
}

func asExit(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

func tail(out []byte) string {
	s := string(out)
	if len(s) > 3000 {
		s = "..." + s[len(s)-3000:]
	}
	return s
}
