package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/suggest"
	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// fixtureDirs lists what the committed warehouse holds, read from disk, so
// the discovery commands are checked against the files, not a hard-coded
// list.
func fixtureDirs(t *testing.T) (dbs []string, tables []string) {
	t.Helper()
	ents, err := os.ReadDir(fixtureWarehouse)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasSuffix(e.Name(), ".db") {
			continue
		}
		db := strings.TrimSuffix(e.Name(), ".db")
		dbs = append(dbs, db)
		ts, err := os.ReadDir(filepath.Join(fixtureWarehouse, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range ts {
			if _, err := os.Stat(filepath.Join(fixtureWarehouse, e.Name(), tt.Name(), "schema")); err == nil {
				tables = append(tables, db+"."+tt.Name())
			}
		}
	}
	slices.Sort(dbs)
	slices.Sort(tables)
	return dbs, tables
}

func TestDiscoveryDatabasesAndTables(t *testing.T) {
	dbs, tables := fixtureDirs(t)
	if len(dbs) < 2 || len(tables) < 5 {
		t.Fatalf("fixture warehouse too small: %v %v", dbs, tables)
	}
	if got := strings.Fields(mustRun(t, "paimon", "databases", "--warehouse", fixtureWarehouse)); !slices.Equal(got, dbs) {
		t.Errorf("databases: %v, want %v", got, dbs)
	}
	var gotDBs []string
	if err := json.Unmarshal([]byte(mustRun(t, "paimon", "databases", "--warehouse", fixtureWarehouse, "--format", "json")), &gotDBs); err != nil || !slices.Equal(gotDBs, dbs) {
		t.Errorf("databases json: %v %v, want %v", gotDBs, err, dbs)
	}
	if got := strings.Fields(mustRun(t, "paimon", "tables", "--warehouse", fixtureWarehouse)); !slices.Equal(got, tables) {
		t.Errorf("tables: %v, want %v", got, tables)
	}
	var rows []tableRow
	if err := json.Unmarshal([]byte(mustRun(t, "paimon", "tables", "demo", "--warehouse", fixtureWarehouse, "--format", "json")), &rows); err != nil {
		t.Fatal(err)
	}
	var want []tableRow
	for _, tb := range tables {
		if db, name, _ := strings.Cut(tb, "."); db == "demo" {
			want = append(want, tableRow{Database: db, Table: name})
		}
	}
	if !slices.Equal(rows, want) {
		t.Errorf("tables demo json: %v, want %v", rows, want)
	}
	mustFail(t, "did you mean demo?", "paimon", "tables", "dmeo", "--warehouse", fixtureWarehouse)
	mustFail(t, "--format \"yaml\": want table or json", "paimon", "databases", "--warehouse", fixtureWarehouse, "--format", "yaml")
}

func TestDiscoveryDescribe(t *testing.T) {
	wh := copyTable(t, "demo", "orders")
	ctx := t.Context()
	mgr := consumer.NewManager(fileio.NewLocal(), filepath.Join(wh, "demo.db", "orders"), "")
	if err := mgr.Reset(ctx, "to-kafka", consumer.Consumer{NextSnapshot: 2}); err != nil {
		t.Fatal(err)
	}
	var d describeJSON
	if err := json.Unmarshal([]byte(mustRun(t, "paimon", "describe", "demo.orders", "--warehouse", wh, "--format", "json")), &d); err != nil {
		t.Fatal(err)
	}
	// What the files say, read here independently of the command.
	var schemaFile struct {
		Fields []struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"fields"`
		PartitionKeys []string          `json:"partitionKeys"`
		PrimaryKeys   []string          `json:"primaryKeys"`
		Options       map[string]string `json:"options"`
	}
	if err := json.Unmarshal(testenv.ReadFile(t, filepath.Join(wh, "demo.db", "orders", "schema", "schema-0")), &schemaFile); err != nil {
		t.Fatal(err)
	}
	if len(d.Columns) != len(schemaFile.Fields) {
		t.Fatalf("columns %v, schema file %v", d.Columns, schemaFile.Fields)
	}
	for i, f := range schemaFile.Fields {
		if d.Columns[i].ID != f.ID || d.Columns[i].Name != f.Name || d.Columns[i].Type == "" {
			t.Errorf("column %d: %+v, schema file %+v", i, d.Columns[i], f)
		}
	}
	if !slices.Equal(d.PartitionKeys, nonNil(schemaFile.PartitionKeys)) || !slices.Equal(d.PrimaryKeys, nonNil(schemaFile.PrimaryKeys)) {
		t.Errorf("keys: partition %v primary %v, schema file %v %v", d.PartitionKeys, d.PrimaryKeys, schemaFile.PartitionKeys, schemaFile.PrimaryKeys)
	}
	for k, v := range schemaFile.Options {
		if d.Options[k] != v {
			t.Errorf("option %s = %q, schema file %q", k, d.Options[k], v)
		}
	}
	latest := strings.TrimSpace(string(testenv.ReadFile(t, filepath.Join(wh, "demo.db", "orders", "snapshot", "LATEST"))))
	if d.LatestSnapshot == nil || latest != strconv.FormatInt(d.LatestSnapshot.ID, 10) {
		t.Errorf("latest snapshot %+v, LATEST says %s", d.LatestSnapshot, latest)
	}
	if d.BucketMode == "" || d.FileFormat == "" {
		t.Errorf("bucket mode %q, file format %q", d.BucketMode, d.FileFormat)
	}
	if len(d.Consumers) != 1 || d.Consumers[0].ConsumerID != "to-kafka" || d.Consumers[0].NextSnapshotID != 2 {
		t.Errorf("consumers %+v", d.Consumers)
	}
	text := mustRun(t, "paimon", "describe", "--table", "demo.orders", "--warehouse", wh)
	for _, want := range []string{"demo.orders", "partition keys", "to-kafka: next snapshot 2", "latest snapshot  " + latest, "ID  NAME"} {
		if !strings.Contains(text, want) {
			t.Errorf("describe text lacks %q:\n%s", want, text)
		}
	}
	// A wrong name gets the nearest ones.
	mustFail(t, "did you mean demo.orders?", "paimon", "describe", "demo.order", "--warehouse", wh)
	mustFail(t, "did you mean demo.orders?", "paimon", "describe", "demo.ordres", "--warehouse", wh)
}

// bucketModes of fixture tables of each kind, checked against their
// options and keys.
func TestDiscoveryDescribeBucketModes(t *testing.T) {
	_, tables := fixtureDirs(t)
	seen := map[string]bool{}
	for _, tb := range tables {
		var d describeJSON
		r := run(t, "paimon", "describe", tb, "--warehouse", fixtureWarehouse, "--format", "json")
		if r.err != nil {
			continue // a fixture the reader refuses (named in its error)
		}
		if err := json.Unmarshal([]byte(r.out), &d); err != nil {
			t.Fatal(err)
		}
		var want string
		switch {
		case d.Buckets > 0:
			want = "fixed"
		case d.Buckets == -2:
			want = "postpone"
		case len(d.PrimaryKeys) == 0:
			want = "unaware"
		default:
			want = d.BucketMode // dynamic/cross-partition, checked in schema tests
		}
		if d.BucketMode != want {
			t.Errorf("%s: bucket mode %q with bucket %d and keys %v, want %q", tb, d.BucketMode, d.Buckets, d.PrimaryKeys, want)
		}
		seen[d.BucketMode] = true
	}
	if !seen["fixed"] || !seen["unaware"] {
		t.Errorf("fixtures cover bucket modes %v, want fixed and unaware at least", seen)
	}
}

func TestDiscoveryFiles(t *testing.T) {
	var f filesJSON
	if err := json.Unmarshal([]byte(mustRun(t, "paimon", "files", "demo.orders", "--warehouse", fixtureWarehouse, "--format", "json")), &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Files) == 0 {
		t.Fatal("no files")
	}
	var rows int64
	for _, fi := range f.Files {
		st, err := os.Stat(fi.Path)
		if err != nil {
			t.Fatalf("file %s: %v", fi.Path, err)
		}
		if st.Size() != fi.Size {
			t.Errorf("%s: size %d, on disk %d", fi.Path, fi.Size, st.Size())
		}
		if _, ok := fi.Partition["dt"]; !ok {
			t.Errorf("%s: partition %v lacks dt", fi.Path, fi.Partition)
		}
		rows += fi.RowCount
	}
	// The rows the files hold are the rows a full read returns (an append
	// table without deletion vectors).
	lines := strings.Split(strings.TrimSpace(mustRun(t, "paimon", "tail", "--warehouse", fixtureWarehouse, "--table", "demo.orders", "--end", "latest")), "\n")
	if int64(len(lines)) != rows || rows != f.TotalRows {
		t.Errorf("files count %d rows (total %d), a full read returns %d", rows, f.TotalRows, len(lines))
	}
	// An older snapshot has fewer files.
	var old filesJSON
	if err := json.Unmarshal([]byte(mustRun(t, "paimon", "files", "demo.orders", "--snapshot-id", "1", "--warehouse", fixtureWarehouse, "--format", "json")), &old); err != nil {
		t.Fatal(err)
	}
	if old.SnapshotID != 1 || len(old.Files) >= len(f.Files) {
		t.Errorf("snapshot 1: %d files (snapshot %d), latest %d", len(old.Files), old.SnapshotID, len(f.Files))
	}
	text := mustRun(t, "paimon", "files", "demo.orders", "--warehouse", fixtureWarehouse)
	if !strings.Contains(text, "PARTITION") || !strings.Contains(text, "LEVEL") || strings.Count(text, "\n") != len(f.Files)+2 {
		t.Errorf("files text:\n%s", text)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"demo.orders", "interop.bucket4", "interop.evolution", "javagen.commits"}
	for name, want := range map[string][]string{
		"demo.order":     {"demo.orders"},
		"interop.bucket": {"interop.bucket4"},
		"orders":         {"demo.orders"},
		"zzz.qqq":        nil,
		"javagen.comits": {"javagen.commits"},
	} {
		if got := suggest.Nearest(name, names, 3); !slices.Equal(got, want) {
			t.Errorf("nearest(%q) = %v, want %v", name, got, want)
		}
	}
}

// tail's flags are the input's fields: each new spelling reads what the
// older one read, and both are listed in --help.
func TestTailFlagsAreTheInputFields(t *testing.T) {
	tf := []string{"--warehouse", fixtureWarehouse, "--table", "demo.orders"}
	tail := func(args ...string) []string {
		t.Helper()
		out := strings.Split(strings.TrimSpace(mustRun(t, append(append([]string{"paimon", "tail"}, args...), tf...)...)), "\n")
		slices.Sort(out)
		return out
	}
	for _, pair := range [][2][]string{
		{{"--scan-mode", "from-snapshot", "--snapshot-id", "2", "--end-snapshot-id", "3"}, {"--from", "snapshot:2", "--end", "snapshot:3"}},
		{{"--scan-mode", "from_snapshot_full", "--snapshot-id", "1", "--end-snapshot-id", "1"}, {"--from", "snapshot-full:1", "--end", "snapshot:1"}},
		{{"--scan-mode", "latest-full", "--end-at-latest", "--include-row-kind"}, {"--end", "latest", "--row-kind"}},
		{{"--scan-mode", "from-timestamp", "--timestamp", "1970-01-01T00:00:00Z", "--end-at-latest"}, {"--from", "timestamp:1970-01-01T00:00:00Z", "--end", "latest"}},
	} {
		got, want := tail(pair[0]...), tail(pair[1]...)
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%v: %d lines, %v: %d lines", pair[0], len(got), pair[1], len(want))
		}
	}
	// The new and the old spelling of one thing together are refused.
	mustFail(t, "--from is the older spelling", append([]string{"paimon", "tail", "--from", "latest", "--scan-mode", "latest"}, tf...)...)
	mustFail(t, "--end is the older spelling", append([]string{"paimon", "tail", "--end", "latest", "--end-at-latest"}, tf...)...)
	// The library's rules name the new flags.
	mustFail(t, "--snapshot-id", append([]string{"paimon", "tail", "--scan-mode", "from-snapshot", "--end-at-latest"}, tf...)...)
	mustFail(t, "--on-expired", append([]string{"paimon", "tail", "--on-expired", "never"}, tf...)...)
	help := mustRun(t, "paimon", "tail", "--help")
	for _, f := range []string{"--scan-mode", "--snapshot-id", "--timestamp", "--end-snapshot-id", "--end-at-latest", "--filter", "--columns",
		"--consumer-id", "--include-row-kind", "--on-expired", "--streaming-read-overwrite", "--poll-interval", "--from", "--end",
		"--buckets", "--shard-index", "--shard-count"} {
		if !strings.Contains(help, f+" ") && !strings.Contains(help, f+"\n") && !strings.Contains(help, f+",") {
			t.Errorf("tail --help lacks %s:\n%s", f, help)
		}
	}
	// The input's defaults: the row kind is read unless turned off.
	for _, l := range tail("--end-at-latest") {
		if !strings.HasPrefix(l, `{"_row_kind":"+I",`) {
			t.Fatalf("tail's default line %q has no leading row kind (include_row_kind defaults to true)", l)
		}
	}
	for _, l := range tail("--end-at-latest", "--include-row-kind=false") {
		if strings.Contains(l, "_row_kind") {
			t.Fatalf("--include-row-kind=false line %q has a row kind", l)
		}
	}
	// Java's deprecated scan mode "full" is latest-full, for tail as for the
	// input's lint (TestCLILint).
	if got, want := tail("--scan-mode", "full", "--end-at-latest"), tail("--end-at-latest"); !slices.Equal(got, want) {
		t.Errorf("--scan-mode full: %d lines, latest-full %d", len(got), len(want))
	}
	// The shards of a bucket-unaware table split its data files: each
	// reads some rows, together every row once.
	all := tail("--end-at-latest")
	s0 := tail("--end-at-latest", "--shard-index", "0", "--shard-count", "2")
	s1 := tail("--end-at-latest", "--shard-index", "1", "--shard-count", "2")
	union := append(slices.Clone(s0), s1...)
	slices.Sort(union)
	slices.Sort(all)
	if len(s0) == 0 || len(s1) == 0 || !slices.Equal(union, all) {
		t.Errorf("shards 0 and 1 of 2 read %d and %d lines, the table %d", len(s0), len(s1), len(all))
	}
	mustFail(t, "--shard-count: must be at least 1", append([]string{"paimon", "tail", "--shard-count", "0"}, tf...)...)
}
