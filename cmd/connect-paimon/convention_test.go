package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// leafCommands returns every runnable `paimon` subcommand by its path
// ("consumers list").
func leafCommands() map[string]*cli.Command {
	out := map[string]*cli.Command{}
	var walk func(prefix string, cs []*cli.Command)
	walk = func(prefix string, cs []*cli.Command) {
		for _, c := range cs {
			p := strings.TrimSpace(prefix + " " + c.Name)
			if len(c.Subcommands) > 0 {
				walk(p, c.Subcommands)
				continue
			}
			out[p] = c
		}
	}
	walk("", adminCommands(stdio{})[0].Subcommands)
	return out
}

// warehouseWide are the subcommands that address a warehouse, not a table.
var warehouseWide = []string{"databases", "tables"}

// TestCLIConvention: every `paimon` subcommand speaks the same language:
// --format table|json with --json as a hidden alias, the table as the first
// argument or --table, and the same warehouse and catalog flags.
func TestCLIConvention(t *testing.T) {
	var catalog []string
	for _, f := range catalogFlags() {
		catalog = append(catalog, f.Names()...)
	}
	for path, c := range leafCommands() {
		names := map[string]cli.Flag{}
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				names[n] = f
			}
		}
		for _, n := range append([]string{flagFormat, flagJSON, "w"}, catalog...) {
			if names[n] == nil {
				t.Errorf("%s has no --%s", path, n)
			}
		}
		if j, ok := names[flagJSON].(*cli.BoolFlag); !ok || !j.Hidden {
			t.Errorf("%s: --json must be a hidden alias of --format json", path)
		}
		if slices.Contains(warehouseWide, path) {
			continue
		}
		for _, n := range []string{flagTable, "t", flagBranch} {
			if names[n] == nil {
				t.Errorf("%s has no --%s", path, n)
			}
		}
		if !strings.HasPrefix(c.ArgsUsage, "[DATABASE.TABLE]") {
			t.Errorf("%s: ArgsUsage %q does not start with the optional table argument", path, c.ArgsUsage)
		}
	}

	wh := copyTable(t, "demo", "orders")
	// Each table command, with the table as argument and --json, and as
	// --table with --format json, prints JSON.
	for _, args := range [][]string{
		{"describe"}, {"files"}, {"snapshots"}, {"consumers", "list"},
		{"tail", "--end-at-latest", "--columns", "id"},
	} {
		for _, form := range [][]string{{"demo.orders", "--json"}, {"--table", "demo.orders", "--format", "json"}, {"-t", "demo.orders"}} {
			full := append(append([]string{"paimon"}, args...), "-w", wh)
			full = append(full, form...)
			out := mustRun(t, full...)
			if form[0] == "-t" && args[0] != "tail" {
				if json.Valid([]byte(out)) {
					t.Errorf("%q: the default format is a table, got JSON", full)
				}
				continue
			}
			if args[0] == "tail" {
				sc := bufio.NewScanner(strings.NewReader(out))
				for sc.Scan() {
					if !json.Valid(sc.Bytes()) {
						t.Fatalf("%q: line %q is not JSON", full, sc.Text())
					}
				}
				continue
			}
			if !json.Valid([]byte(out)) {
				t.Errorf("%q: not JSON:\n%s", full, out)
			}
		}
		mustFail(t, `--format "xml": want table or json`, append(append([]string{"paimon"}, args...), "-w", wh, "demo.orders", "--format", "xml")...)
	}
	for _, args := range [][]string{{"databases"}, {"tables"}, {"tables", "demo"}} {
		full := append(append([]string{"paimon"}, args...), "-w", wh, "--json")
		if out := mustRun(t, full...); !json.Valid([]byte(out)) {
			t.Errorf("%q: not JSON:\n%s", full, out)
		}
	}
	// Consumer commands take the table first, then the id.
	mustRun(t, "paimon", "consumers", "reset", "demo.orders", "c1", "--next", "2", "-w", wh)
	out := mustRun(t, "paimon", "consumers", "get", "demo.orders", "c1", "-w", wh, "--json")
	if !strings.Contains(out, `"next_snapshot_id": 2`) {
		t.Errorf("consumers get: %s", out)
	}
	mustFail(t, "consumers get needs a consumer id: connect-paimon paimon consumers get [DATABASE.TABLE] ID", "paimon", "consumers", "get", "-w", wh, "-t", "demo.orders")
	mustFail(t, "paimon describe needs a table: DATABASE.TABLE as its first argument, or --table", "paimon", "describe", "-w", wh)
	mustFail(t, "--json is short for --format json", "paimon", "snapshots", "demo.orders", "-w", wh, "--json", "--format", "table")
	mustFail(t, `--format "table": tail prints rows as JSON lines`, "paimon", "tail", "demo.orders", "-w", wh, "--format", "table")
}

// TestCLIStartPastLatest: tail and files apply the library's one rule for
// a position past the latest snapshot (demo.orders holds 1..3), naming the
// flag; an end bound already passed ends normally with an INFO line.
func TestCLIStartPastLatest(t *testing.T) {
	wh := fixtureWarehouse
	mustFail(t, "--snapshot-id: table demo.orders: scan mode from-snapshot-full starts at snapshot 99, but the latest snapshot is 3 (the table holds snapshots 1..3",
		"paimon", "tail", "demo.orders", "-w", wh, "--scan-mode", "from-snapshot-full", "--snapshot-id", "99")
	mustFail(t, "--snapshot-id: table demo.orders: scan mode from-snapshot starts at snapshot 99, but the latest snapshot is 3",
		"paimon", "tail", "demo.orders", "-w", wh, "--scan-mode", "from-snapshot", "--snapshot-id", "99", "--end-at-latest")
	mustFail(t, "--snapshot-id: table demo.orders: snapshot 9 does not exist (the latest is 3, the table holds snapshots 1..3)",
		"paimon", "files", "demo.orders", "-w", wh, "--snapshot-id", "9")
	r := run(t, "paimon", "tail", "demo.orders", "-w", wh, "--scan-mode", "from-snapshot", "--snapshot-id", "4", "--end-at-latest")
	if r.code != 0 || r.err != nil || r.out != "" || !strings.Contains(r.stderr, "INFO table demo.orders: scan mode from-snapshot starts at snapshot 4, past the end snapshot 3: nothing to read") {
		t.Fatalf("tail from 4 to the latest (3): exit %d, err %v, out %q, stderr %q", r.code, r.err, r.out, r.stderr)
	}
}

// TestCLINamesWhatExists: every command names what exists when a name is
// wrong — the warehouse (a parent of the real one), database, table,
// branch, tag, consumer — and describe shows branches and tags.
func TestCLINamesWhatExists(t *testing.T) {
	wh := fixtureWarehouse
	parent := "../../resources/fixtures"
	for _, cmd := range [][]string{{"databases"}, {"tables"}} {
		mustFail(t, "--warehouse: the warehouse "+parent+" has no database (no <database>.db directory); is the warehouse "+parent+"/warehouse?",
			append(append([]string{"paimon"}, cmd...), "-w", parent)...)
	}
	mustFail(t, "database dmeo does not exist in warehouse "+wh+"; did you mean demo?", "paimon", "tables", "dmeo", "-w", wh)
	for _, cmd := range []string{"describe", "files", "snapshots", "tail"} {
		mustFail(t, "warehouse "+wh+": table demo.ordes does not exist; did you mean demo.orders?", "paimon", cmd, "demo.ordes", "-w", wh)
		mustFail(t, "table crm.customers: database crm does not exist; the existing databases are demo,", "paimon", cmd, "crm.customers", "-w", wh)
		mustFail(t, "table javagen.branchy has no branch b2; did you mean b1?", "paimon", cmd, "javagen.branchy", "--branch", "b2", "-w", wh)
	}
	cwh := copyTable(t, "demo", "orders")
	mustRun(t, "paimon", "consumers", "reset", "demo.orders", "orders-sink", "--next", "2", "-w", cwh)
	mustFail(t, `table demo.orders: consumer "orders-snk" does not exist; did you mean orders-sink?`, "paimon", "consumers", "get", "demo.orders", "orders-snk", "-w", cwh)
	mustFail(t, `table demo.orders: consumer "x" does not exist; the existing consumers are orders-sink`, "paimon", "consumers", "delete", "demo.orders", "x", "-w", cwh)

	var d describeJSON
	if err := json.Unmarshal([]byte(mustRun(t, "paimon", "describe", "javagen.branchy", "-w", wh, "--json")), &d); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Branches, []string{"main", "b1"}) || len(d.Tags) != 1 || d.Tags[0] != (tagJSON{Name: "t1", SnapshotID: 1}) {
		t.Errorf("describe: branches %q, tags %+v", d.Branches, d.Tags)
	}
	out := mustRun(t, "paimon", "describe", "javagen.branchy", "-w", wh)
	if !strings.Contains(out, "branches         main, b1\n") || !strings.Contains(out, "tags             t1: snapshot 1\n") {
		t.Errorf("describe:\n%s", out)
	}
}

// TestTailFromTag: tail reads a tag with the input's field, --tag, and a
// config with scan_mode from-tag lints only with its tag.
func TestTailFromTag(t *testing.T) {
	out := mustRun(t, "paimon", "tail", "javagen.branchy", "-w", fixtureWarehouse, "--scan-mode", "from-tag", "--tag", "t1")
	if out != "{\"_row_kind\":\"+I\",\"id\":1,\"s\":\"base\"}\n{\"_row_kind\":\"+I\",\"id\":2,\"s\":\"base\"}\n" {
		t.Fatalf("tail of tag t1:\n%s", out)
	}
	mustFail(t, "--tag: table javagen.branchy has no tag t2; did you mean t1?", "paimon", "tail", "javagen.branchy", "-w", fixtureWarehouse, "--scan-mode", "from-tag", "--tag", "t2")
	mustFail(t, "--tag: required by scan mode from-tag", "paimon", "tail", "javagen.branchy", "-w", fixtureWarehouse, "--scan-mode", "from-tag")

	dir := t.TempDir()
	good := filepath.Join(dir, "tag.yaml")
	bad := filepath.Join(dir, "notag.yaml")
	must(t, os.WriteFile(good, []byte("input:\n  paimon:\n    warehouse: /wh\n    table: db.t\n    scan_mode: from-tag\n    tag: t1\noutput:\n  stdout: {}\n"), 0o644))
	must(t, os.WriteFile(bad, []byte("input:\n  paimon:\n    warehouse: /wh\n    table: db.t\n    scan_mode: from-tag\noutput:\n  stdout: {}\n"), 0o644))
	if r := run(t, "lint", good); r.code != 0 {
		t.Fatalf("lint of from-tag with a tag: exit %d %v %s", r.code, r.err, r.stderr)
	}
	if r := run(t, "lint", bad); r.code != 1 || !strings.Contains(r.stderr, "field tag: required by scan mode from-tag") {
		t.Fatalf("lint of from-tag without a tag: exit %d, %q", r.code, r.stderr)
	}
}

// TestTailTimestampDate: from-timestamp takes a plain date as midnight
// UTC, and anything else gets the accepted formats.
func TestTailTimestampDate(t *testing.T) {
	// demo.orders' snapshots were all committed on 2026-11-29: from that
	// day every snapshot's changes are read, from the next day none.
	out := mustRun(t, "paimon", "tail", "demo.orders", "-w", fixtureWarehouse, "--scan-mode", "from-timestamp", "--timestamp", "2026-11-29", "--end-at-latest", "--columns", "id")
	if n := strings.Count(out, "\n"); n != 300 {
		t.Fatalf("from 2026-11-29: %d rows, want 300", n)
	}
	mustFail(t, `--timestamp: "29/11/2026" is not a time: want RFC 3339 (2024-06-01T00:00:00Z, 2024-06-01T02:00:00+02:00) or a date (2024-06-01, midnight UTC)`,
		"paimon", "tail", "demo.orders", "-w", fixtureWarehouse, "--scan-mode", "from-timestamp", "--timestamp", "29/11/2026")
}

// TestFlagsAfterTheTable: list flags written after the table argument
// keep their elements.
func TestFlagsAfterTheTable(t *testing.T) {
	out := mustRun(t, "paimon", "tail", "demo.orders", "-w", fixtureWarehouse, "--end-at-latest", "--columns", "id,region", "--columns", "amount", "--buckets", "0", "--filter", "id = 7")
	if out != "{\"_row_kind\":\"+I\",\"id\":7,\"region\":\"ap\",\"amount\":184}\n" {
		t.Fatalf("tail with list flags after the table: %q", out)
	}
}

// TestCLIUnknownFlag: a wrong flag is one line naming it and the nearest
// flags of the command, before or after the arguments, not a page of help.
func TestCLIUnknownFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"paimon", "snapshots", "-w", fixtureWarehouse, "--formt", "json", "demo.orders"}, "connect-paimon paimon snapshots: unknown flag --formt; did you mean --format? (--help lists the flags)"},
		{[]string{"paimon", "snapshots", "demo.orders", "-w", fixtureWarehouse, "--jsn"}, "connect-paimon paimon snapshots: unknown flag --jsn; did you mean --json?"},
		{[]string{"paimon", "tail", "-w", fixtureWarehouse, "--scan-mod", "latest"}, "connect-paimon paimon tail: unknown flag --scan-mod; did you mean --scan-mode?"},
	} {
		r := run(t, c.args...)
		if r.code == 0 || r.err == nil || r.err.Error() != c.want && !strings.HasPrefix(r.err.Error(), c.want) {
			t.Errorf("%q: exit %d, %v; want %q", c.args, r.code, r.err, c.want)
		}
		if strings.Contains(r.out, "USAGE") || strings.Contains(r.stderr, "USAGE") {
			t.Errorf("%q printed the help", c.args)
		}
	}
}
