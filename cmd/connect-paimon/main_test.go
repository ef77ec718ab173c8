package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// The binary's CLI must accept a config using the paimon input (lint exits 0)
// and reject one with a conflicting field (exit 1): this proves the input is
// registered in the environment RunCLI uses.
func TestCLILint(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	must(t, os.WriteFile(good, []byte("input:\n  paimon:\n    warehouse: /wh\n    table: db.t\noutput:\n  stdout: {}\n"), 0o644))
	must(t, os.WriteFile(bad, []byte("input:\n  paimon:\n    warehouse: /wh\n    table: db.t\n    snapshot_id: 3\noutput:\n  stdout: {}\n"), 0o644))
	if code, _ := service.RunCLIToCode(context.Background(), cliOptions([]string{"connect-paimon", "lint", good}, stdio{out: io.Discard, err: io.Discard})...); code != 0 {
		t.Fatalf("lint of a valid config exited %d", code)
	}
	if code, _ := service.RunCLIToCode(context.Background(), cliOptions([]string{"connect-paimon", "lint", bad}, stdio{out: io.Discard, err: io.Discard})...); code != 1 {
		t.Fatalf("lint of a conflicting config exited %d, want 1", code)
	}
	// Java's deprecated alias of latest-full lints as tail accepts it.
	full := filepath.Join(dir, "full.yaml")
	must(t, os.WriteFile(full, []byte("input:\n  paimon:\n    warehouse: /wh\n    table: db.t\n    scan_mode: full\noutput:\n  stdout: {}\n"), 0o644))
	if code, _ := service.RunCLIToCode(context.Background(), cliOptions([]string{"connect-paimon", "lint", full}, stdio{out: io.Discard, err: io.Discard})...); code != 0 {
		t.Fatalf("lint of scan_mode: full exited %d", code)
	}
}

// lint applies the library's consumer id rule: a control character (which
// Benthos' lint alone let through) fails with the file, line and field, in
// a paimon input nested in a broker too; the line is the field's.
func TestCLILintConsumerID(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ctl.yaml")
	must(t, os.WriteFile(bad, []byte("input:\n  broker:\n    inputs:\n      - paimon:\n          warehouse: /wh\n          table: db.t\n          consumer_id: \"a\\u0001b\"\noutput:\n  stdout: {}\n"), 0o644))
	var errw bytes.Buffer
	code, _ := service.RunCLIToCode(context.Background(), cliOptions([]string{"connect-paimon", "lint", bad}, stdio{out: io.Discard, err: &errw})...)
	if code != 1 {
		t.Fatalf("lint exited %d, want 1", code)
	}
	if want := bad + ": line 7: paimon input: field consumer_id: invalid consumer id"; !strings.Contains(errw.String(), want) {
		t.Fatalf("lint output %q lacks %q", errw.String(), want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestVersion: --version reports what Go embeds — the module version, or
// the VCS revision and time of a checkout — and a release's ldflags win.
func TestVersion(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "8ca9d7e1234567890abcdef"}, {Key: "vcs.time", Value: "2026-12-03T13:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		info         *debug.BuildInfo
		ldv, ldd     string
		wantV, wantD string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "", "", "dev-8ca9d7e12345-modified", "2026-12-03T13:00:00Z"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "", "", "v1.4.0", "unknown (no VCS information: built by go run or with -buildvcs=false)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "v2.0.0", "2027-01-01", "v2.0.0", "2027-01-01"},
	} {
		v, d := versionOf(c.info, true, c.ldv, c.ldd)
		if v != c.wantV || d != c.wantD {
			t.Errorf("versionOf(%+v) = %q, %q; want %q, %q", c.info.Main, v, d, c.wantV, c.wantD)
		}
	}
}

// TestCLILintEnumOnce: a typo in an enum field is one problem, reported
// once (by the input's own check, naming the field and the values).
func TestCLILintEnumOnce(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yaml")
	must(t, os.WriteFile(typo, []byte("input:\n  paimon:\n    warehouse: /wh\n    table: db.t\n    scan_mode: latest_fll\n    on_expired: erliest\n    upsert_mode: drop\noutput:\n  stdout: {}\n"), 0o644))
	// Benthos' own lint writes to the process' stdout and stderr.
	proc := filepath.Join(dir, "proc.txt")
	f, err := os.Create(proc)
	must(t, err)
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = f, f
	var out, errw bytes.Buffer
	code, _ := service.RunCLIToCode(context.Background(), cliOptions([]string{"connect-paimon", "lint", typo}, stdio{out: &out, err: &errw})...)
	os.Stdout, os.Stderr = oldOut, oldErr
	must(t, f.Close())
	b, err := os.ReadFile(proc)
	must(t, err)
	all := out.String() + errw.String() + string(b)
	if code != 1 {
		t.Fatalf("lint exited %d, want 1:\n%s", code, all)
	}
	for _, v := range []string{"fll", "erliest", "drop "} {
		lines := 0
		for _, l := range strings.Split(all, "\n") {
			if strings.Contains(l, v) {
				lines++
			}
		}
		if lines != 1 {
			t.Errorf("%q is reported %d times, want once:\n%s", v, lines, all)
		}
	}
	if !strings.Contains(all, `line 5: paimon input: field scan_mode: unknown scan mode "latest-fll" (want latest-full, latest,`) {
		t.Errorf("the scan_mode typo is not named with its field and values:\n%s", all)
	}
}

// TestCLILintOpen: lint --open opens each paimon input's table, so a wrong
// name is found before the pipeline runs, with what exists instead.
func TestCLILintOpen(t *testing.T) {
	dir := t.TempDir()
	wh, err := filepath.Abs(fixtureWarehouse)
	must(t, err)
	write := func(name, fields string) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte("input:\n  paimon:\n    warehouse: "+wh+"\n"+fields+"output:\n  drop: {}\n"), 0o644))
		return p
	}
	good := write("good.yaml", "    table: javagen.branchy\n    scan_mode: from-tag\n    tag: t1\n    columns: [id]\n")
	if r := run(t, "lint", "--open", good); r.code != 0 {
		t.Fatalf("lint --open of a good config: exit %d %v %s", r.code, r.err, r.stderr)
	}
	for _, c := range []struct{ fields, want string }{
		{"    table: demo.ordes\n", "line 2: paimon input: warehouse " + wh + ": table demo.ordes does not exist; did you mean demo.orders?"},
		{"    table: javagen.branchy\n    branch: b2\n", "paimon input: warehouse " + wh + ": table javagen.branchy has no branch b2; did you mean b1?"},
		{"    table: javagen.branchy\n    scan_mode: from-tag\n    tag: t2\n", "line 6: paimon input: field tag: table javagen.branchy has no tag t2; did you mean t1?"},
		{"    table: demo.orders\n    columns: [idd]\n", `line 5: paimon input: table demo.orders: field columns: projection: no column "idd" in schema 0; did you mean id, dt?`},
		{"    table: demo.orders\n    filter: \"regoin = 'eu'\"\n", `unknown column "regoin"; did you mean region?`},
	} {
		p := write("bad.yaml", c.fields)
		r := run(t, "lint", "--open", p)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("lint --open of\n%s: exit %d, %q; want %q", c.fields, r.code, r.stderr, c.want)
		}
		// Without --open the names are not checked.
		if r := run(t, "lint", p); r.code != 0 {
			t.Errorf("lint without --open of\n%s: exit %d %s", c.fields, r.code, r.stderr)
		}
	}
}
