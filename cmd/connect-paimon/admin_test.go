package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/urfave/cli/v2"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// fixtureWarehouse is the committed warehouse written by pypaimon and Java
// (resources/fixtures). Tests that write consumers work on a copy.
const fixtureWarehouse = "../../resources/fixtures/warehouse"

// copyTable copies one table directory of the fixture warehouse into a
// fresh warehouse and returns the warehouse root.
func copyTable(t *testing.T, db, table string) string {
	t.Helper()
	dst := t.TempDir()
	testenv.CopyTree(t, filepath.Join(fixtureWarehouse, db+".db", table), filepath.Join(dst, db+".db", table))
	return dst
}

type result struct {
	out, stderr string
	code        int
	err         error
}

// run executes the binary's CLI in process, exactly as main does, with
// stdout captured.
func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errw bytes.Buffer
	full := append([]string{"connect-paimon"}, args...)
	code, err := service.RunCLIToCode(context.Background(), cliOptions(full, stdio{out: &out, err: &errw})...)
	return result{out: out.String(), stderr: errw.String(), code: code, err: err}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := run(t, args...)
	if r.code != 0 || r.err != nil {
		t.Fatalf("%q: exit %d: %v\noutput:\n%s", args, r.code, r.err, r.out)
	}
	return r.out
}

func mustFail(t *testing.T, wantErr string, args ...string) {
	t.Helper()
	r := run(t, args...)
	if r.code == 0 || r.err == nil {
		t.Fatalf("%q: exit %d, err %v, want failure with %q\noutput:\n%s", args, r.code, r.err, wantErr, r.out)
	}
	if !strings.Contains(r.err.Error(), wantErr) {
		t.Fatalf("%q: error %q, want it to contain %q", args, r.err, wantErr)
	}
}

// tableLines splits aligned table output into rows of whitespace-separated
// cells.
func tableLines(s string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		rows = append(rows, strings.Fields(l))
	}
	return rows
}

// consumerFile reads a consumer file the way Java and pypaimon do: a JSON
// object with nextSnapshot.
func consumerFile(t *testing.T, path string) (int64, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		NextSnapshot *int64 `json:"nextSnapshot"`
	}
	if err := json.Unmarshal(data, &v); err != nil || v.NextSnapshot == nil {
		t.Fatalf("consumer file %s: %q is not {\"nextSnapshot\": N} (%v)", path, data, err)
	}
	return *v.NextSnapshot, true
}

func TestSnapshots(t *testing.T) {
	base := []string{"paimon", "snapshots", "--warehouse", fixtureWarehouse, "--table", "demo.orders"}
	got := tableLines(mustRun(t, base...))
	// Values from the snapshot files pypaimon wrote (demo.orders:
	// three appends of 120, 100 and 80 rows).
	want := [][]string{
		{"ID", "KIND", "TIME", "TOTAL_RECORDS", "DELTA_RECORDS", "SCHEMA_ID"},
		{"1", "APPEND", "2026-11-29T19:48:30.151Z", "120", "120", "0"},
		{"2", "APPEND", "2026-11-29T19:48:30.290Z", "220", "100", "0"},
		{"3", "APPEND", "2026-11-29T19:48:30.393Z", "300", "80", "0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshots:\n got %q\nwant %q", got, want)
	}

	var js []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, append(base, "--json", "--limit", "2")...)), &js); err != nil {
		t.Fatal(err)
	}
	if len(js) != 2 || js[0]["snapshot_id"] != 2.0 || js[1]["snapshot_id"] != 3.0 ||
		js[1]["total_record_count"] != 300.0 || js[1]["delta_record_count"] != 80.0 ||
		js[1]["commit_kind"] != "APPEND" || js[1]["commit_time"] != "2026-11-29T19:48:30.393Z" {
		t.Fatalf("snapshots --json --limit 2: %v", js)
	}

	// A branch has its own snapshot directory.
	got = tableLines(mustRun(t, "paimon", "snapshots", "-w", fixtureWarehouse, "-t", "javagen.branchy", "--branch", "b1"))
	var ids []string
	for _, r := range got[1:] {
		ids = append(ids, r[0])
	}
	if !reflect.DeepEqual(ids, []string{"1", "2"}) {
		t.Fatalf("branch b1 snapshot ids %q, want [1 2]", ids)
	}

	mustFail(t, "--limit must not be negative", append(base, "--limit", "-1")...)
	mustFail(t, "warehouse "+fixtureWarehouse+": table demo.missing does not exist; the existing tables of database demo are orders", "paimon", "snapshots", "-w", fixtureWarehouse, "-t", "demo.missing")
	mustFail(t, "--warehouse is required", "paimon", "snapshots", "-t", "demo.orders")
	mustFail(t, `table "extra" and --table "demo.orders" disagree`, append(base, "extra")...)
	mustFail(t, "takes one argument, the table DATABASE.TABLE (or --table)", "paimon", "snapshots", "-w", fixtureWarehouse, "demo.orders", "extra")
}

func TestConsumers(t *testing.T) {
	wh := copyTable(t, "demo", "orders")
	dir := filepath.Join(wh, "demo.db", "orders", "consumer")
	tf := []string{"--warehouse", wh, "--table", "demo.orders"}
	cmd := func(args ...string) []string { return append(append([]string{"paimon", "consumers"}, args...), tf...) }

	// Empty table directory: no consumer dir yet.
	if got := tableLines(mustRun(t, cmd("list")...)); len(got) != 1 {
		t.Fatalf("list on a table without consumers: %q", got)
	}

	// reset writes the file Java and pypaimon read; flags may follow the id.
	mustRun(t, cmd("reset", "c1", "--next", "2")...)
	if n, ok := consumerFile(t, filepath.Join(dir, "consumer-c1")); !ok || n != 2 {
		t.Fatalf("consumer-c1 = %d, %v; want 2", n, ok)
	}
	// Snapshot 9 does not exist: refused like Flink's reset_consumer,
	// and nothing is written.
	mustFail(t, "snapshot 9 does not exist (the table holds snapshots 1..3)", cmd("reset", "c2", "--next", "9")...)
	if _, ok := consumerFile(t, filepath.Join(dir, "consumer-c2")); ok {
		t.Fatal("refused reset wrote consumer-c2")
	}
	mustRun(t, cmd("reset", "--force", "--next", "9", "c2")...)
	if n, ok := consumerFile(t, filepath.Join(dir, "consumer-c2")); !ok || n != 9 {
		t.Fatalf("consumer-c2 = %d, %v; want 9", n, ok)
	}
	mustFail(t, "needs --next N", cmd("reset", "c3")...)
	mustFail(t, "--next must be at least 1", cmd("reset", "c3", "--next", "0", "--force")...)

	// A consumer written by another engine, in Java's layout.
	if err := os.WriteFile(filepath.Join(dir, "consumer-flink-job"), []byte(`{"nextSnapshot":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := tableLines(mustRun(t, cmd("list")...))
	want := [][]string{{"CONSUMER", "NEXT_SNAPSHOT"}, {"c1", "2"}, {"c2", "9"}, {"flink-job", "3"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("list:\n got %q\nwant %q", got, want)
	}
	var list []consumerJSON
	if err := json.Unmarshal([]byte(mustRun(t, cmd("list", "--json")...)), &list); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(list, []consumerJSON{{"c1", 2}, {"c2", 9}, {"flink-job", 3}}) {
		t.Fatalf("list --json: %+v", list)
	}
	var one consumerJSON
	if err := json.Unmarshal([]byte(mustRun(t, cmd("get", "flink-job", "--json")...)), &one); err != nil {
		t.Fatal(err)
	}
	if one != (consumerJSON{"flink-job", 3}) {
		t.Fatalf("get --json: %+v", one)
	}
	mustFail(t, `consumer "nope" does not exist`, cmd("get", "nope")...)
	mustFail(t, "needs a consumer id", cmd("get")...)

	// delete removes the file; deleting a missing consumer is an error.
	mustRun(t, cmd("delete", "c2")...)
	if _, ok := consumerFile(t, filepath.Join(dir, "consumer-c2")); ok {
		t.Fatal("delete left consumer-c2")
	}
	mustFail(t, `consumer "c2" does not exist`, cmd("delete", "c2")...)

	// expire deletes by modification time only.
	old := time.Now().Add(-3 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "consumer-flink-job"), old, old); err != nil {
		t.Fatal(err)
	}
	mustFail(t, "needs --before TIME or --older-than DURATION", cmd("expire")...)
	mustFail(t, "mutually exclusive", cmd("expire", "--older-than", "1h", "--before", "2024-01-01T00:00:00Z")...)
	mustFail(t, "--before: \"yesterday\" is not a time: want RFC 3339", cmd("expire", "--before", "yesterday")...)
	got = tableLines(mustRun(t, cmd("expire", "--before", "2000-01-01T00:00:00Z")...))
	if len(got) != 1 {
		t.Fatalf("expire before 2000 deleted %q", got[1:])
	}
	got = tableLines(mustRun(t, cmd("expire", "--older-than", "1h")...))
	if !reflect.DeepEqual(got, [][]string{{"DELETED_CONSUMER"}, {"flink-job"}}) {
		t.Fatalf("expire --older-than 1h: %q", got)
	}
	if _, ok := consumerFile(t, filepath.Join(dir, "consumer-c1")); !ok {
		t.Fatal("expire deleted the fresh consumer c1")
	}

	// clear: full-match patterns, refused without --including unless --all.
	for _, id := range []string{"job-1", "job-2", "job-keep", "jobless"} {
		mustRun(t, cmd("reset", id, "--next", "1")...)
	}
	mustFail(t, "needs --including REGEX, or --all", cmd("clear")...)
	mustFail(t, "mutually exclusive", cmd("clear", "--all", "--including", "x")...)
	mustFail(t, "--including", cmd("clear", "--including", "(")...)
	var del map[string][]string
	if err := json.Unmarshal([]byte(mustRun(t, cmd("clear", "--including", "job-.*", "--excluding", "job-keep", "--json")...)), &del); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(del["deleted"], []string{"job-1", "job-2"}) {
		t.Fatalf("clear deleted %q", del["deleted"])
	}
	// "job" is a full match: it does not delete "jobless" or "job-keep".
	got = tableLines(mustRun(t, cmd("clear", "--including", "job")...))
	if len(got) != 1 {
		t.Fatalf("clear --including job deleted %q", got[1:])
	}
	got = tableLines(mustRun(t, cmd("clear", "--all", "--excluding", "c1")...))
	if !reflect.DeepEqual(got, [][]string{{"DELETED_CONSUMER"}, {"job-keep"}, {"jobless"}}) {
		t.Fatalf("clear --all --excluding c1: %q", got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "consumer-c1" {
		t.Fatalf("consumer dir after clear: %v", entries)
	}
}

// Ids that would name a path outside the consumer directory, or a file no
// other engine could address, are refused before any storage call.
func TestConsumersHostileIDs(t *testing.T) {
	wh := copyTable(t, "demo", "orders")
	tf := []string{"--warehouse", wh, "--table", "demo.orders"}
	for _, id := range []string{"../../../escape", "a/b", `a\b`, "..", ".", "", "x\x00y", "tab\tid", strings.Repeat("x", 201)} {
		for _, sub := range [][]string{{"reset", id, "--next", "1", "--force"}, {"get", id}, {"delete", id}} {
			args := append(append([]string{"paimon", "consumers"}, sub...), tf...)
			mustFail(t, "invalid consumer id", args...)
		}
		mustFail(t, "invalid consumer id", append([]string{"paimon", "tail", "--consumer-id", id, "--end", "latest"}, tf...)...)
	}
	// Nothing was created anywhere in the warehouse besides the table.
	err := filepath.WalkDir(wh, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(p, "consumer") || strings.Contains(p, "escape") {
			t.Errorf("hostile id created %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestConsumersBranch(t *testing.T) {
	wh := copyTable(t, "javagen", "branchy")
	tf := []string{"--warehouse", wh, "--table", "javagen.branchy", "--branch", "b1"}
	mustRun(t, append([]string{"paimon", "consumers", "reset", "on-b1", "--next", "2"}, tf...)...)
	root := filepath.Join(wh, "javagen.db", "branchy")
	if n, ok := consumerFile(t, filepath.Join(root, "branch", "branch-b1", "consumer", "consumer-on-b1")); !ok || n != 2 {
		t.Fatalf("branch consumer = %d, %v", n, ok)
	}
	if _, err := os.Stat(filepath.Join(root, "consumer")); !os.IsNotExist(err) {
		t.Fatalf("a branch reset touched the main consumer dir: %v", err)
	}
	got := tableLines(mustRun(t, append([]string{"paimon", "consumers", "list"}, tf...)...))
	if !reflect.DeepEqual(got, [][]string{{"CONSUMER", "NEXT_SNAPSHOT"}, {"on-b1", "2"}}) {
		t.Fatalf("branch list: %q", got)
	}
	mustFail(t, "table javagen.branchy", "paimon", "consumers", "list", "--warehouse", wh, "--table", "javagen.branchy", "--branch", "nope")
}

// expectedIDs returns the sorted ids of an expected-output file (pypaimon's
// read of the fixture).
func expectedIDs(t *testing.T, name string) []int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../resources/fixtures/expected/demo.orders", name))
	if err != nil {
		t.Fatal(err)
	}
	return idsOf(t, string(data))
}

func idsOf(t *testing.T, jsonl string) []int64 {
	t.Helper()
	var ids []int64
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row struct {
			ID *int64 `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil || row.ID == nil {
			t.Fatalf("line %q: not a row with an id (%v)", sc.Text(), err)
		}
		ids = append(ids, *row.ID)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func minus(a, b []int64) []int64 {
	drop := map[int64]bool{}
	for _, x := range b {
		drop[x] = true
	}
	var out []int64
	for _, x := range a {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

func TestTail(t *testing.T) {
	tf := []string{"--warehouse", fixtureWarehouse, "--table", "demo.orders"}
	tail := func(args ...string) string {
		return mustRun(t, append(append([]string{"paimon", "tail"}, args...), tf...)...)
	}
	full := expectedIDs(t, "full.jsonl")
	if len(full) != 300 {
		t.Fatalf("fixture full.jsonl has %d rows", len(full))
	}

	// Default latest-full with an end: the latest snapshot in full, then stop.
	if got := idsOf(t, tail("--end", "latest")); !reflect.DeepEqual(got, full) {
		t.Fatalf("tail --end latest: %d rows, want the 300 of full.jsonl", len(got))
	}
	// earliest: snapshot 1 in full, then the changes of 2 and 3.
	if got := idsOf(t, tail("--from", "earliest", "--end", "latest")); !reflect.DeepEqual(got, full) {
		t.Fatalf("tail --from earliest: %d rows", len(got))
	}
	// snapshot:2 reads the changes of 2 and 3: everything not in snapshot 1.
	want := minus(full, expectedIDs(t, "snap1_full.jsonl"))
	if got := idsOf(t, tail("--from", "snapshot:2", "--end", "snapshot:3")); !reflect.DeepEqual(got, want) {
		t.Fatalf("tail --from snapshot:2: %d rows, want %d", len(got), len(want))
	}
	if got := idsOf(t, tail("--from", "snapshot-full:1", "--end", "snapshot:1")); !reflect.DeepEqual(got, expectedIDs(t, "snap1_full.jsonl")) {
		t.Fatalf("tail --from snapshot-full:1 --end snapshot:1: %d rows", len(got))
	}
	// The filter pypaimon applied for filter_region.jsonl.
	if got := idsOf(t, tail("--end", "latest", "--filter", "region = 'eu' OR region IS NULL")); !reflect.DeepEqual(got, expectedIDs(t, "filter_region.jsonl")) {
		t.Fatalf("tail --filter: %d rows, want 143", len(got))
	}
	// Projection: the lines equal pypaimon's, keys in projection order.
	gotLines := strings.Split(strings.TrimSpace(tail("--end", "latest", "--columns", "id, region", "--include-row-kind=false")), "\n")
	wantData, err := os.ReadFile("../../resources/fixtures/expected/demo.orders/proj_id_region.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimSpace(string(wantData)), "\n")
	sort.Strings(gotLines)
	sort.Strings(wantLines)
	if !reflect.DeepEqual(gotLines, wantLines) {
		t.Fatalf("tail --columns id,region differs from proj_id_region.jsonl; first got %q want %q", gotLines[0], wantLines[0])
	}
	// Row kinds: append tables only insert.
	for _, l := range strings.Split(strings.TrimSpace(tail("--end", "latest", "--row-kind", "--columns", "id")), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil || row["_row_kind"] != "+I" || len(row) != 2 {
			t.Fatalf("row with kind %q (%v)", l, err)
		}
	}

	mustFail(t, "--from \"snapshot:x\"", append([]string{"paimon", "tail", "--from", "snapshot:x"}, tf...)...)
	mustFail(t, "--from \"oldest\"", append([]string{"paimon", "tail", "--from", "oldest"}, tf...)...)
	mustFail(t, `--from: "noon" is not a time`, append([]string{"paimon", "tail", "--from", "timestamp:noon"}, tf...)...)
	mustFail(t, "want snapshot:N or latest", append([]string{"paimon", "tail", "--end", "3"}, tf...)...)
	mustFail(t, "column \"id\" listed twice", append([]string{"paimon", "tail", "--columns", "id,id"}, tf...)...)
	mustFail(t, "nope", append([]string{"paimon", "tail", "--columns", "nope", "--end", "latest"}, tf...)...)
	mustFail(t, "--filter", append([]string{"paimon", "tail", "--filter", "nope = 1", "--end", "latest"}, tf...)...)
}

// A consumer makes tail resumable: after a bounded run the consumer points
// after the end, and a second run resumes there instead of re-reading.
func TestTailConsumer(t *testing.T) {
	wh := copyTable(t, "demo", "orders")
	tf := []string{"--warehouse", wh, "--table", "demo.orders"}
	cfile := filepath.Join(wh, "demo.db", "orders", "consumer", "consumer-tailer")

	out := mustRun(t, append([]string{"paimon", "tail", "--from", "snapshot-full:1", "--end", "snapshot:2", "--consumer-id", "tailer"}, tf...)...)
	// snapshot 1 in full (120 rows) and snapshot 2's 100 new rows.
	if n := len(idsOf(t, out)); n != 220 {
		t.Fatalf("first run printed %d rows, want 220", n)
	}
	if n, ok := consumerFile(t, cfile); !ok || n != 3 {
		t.Fatalf("consumer after first run = %d, %v; want 3", n, ok)
	}
	// The second run ignores --from (the consumer has a position) and reads
	// only snapshot 3.
	out = mustRun(t, append([]string{"paimon", "tail", "--from", "snapshot-full:1", "--end", "latest", "--consumer-id", "tailer"}, tf...)...)
	want := minus(expectedIDs(t, "full.jsonl"), idsOf(t, mustRun(t, "paimon", "tail", "-w", fixtureWarehouse, "-t", "demo.orders", "--from", "snapshot-full:2", "--end", "snapshot:2")))
	if got := idsOf(t, out); !reflect.DeepEqual(got, want) || len(got) != 80 {
		t.Fatalf("resumed run printed %d rows, want snapshot 3's 80", len(got))
	}
	if n, ok := consumerFile(t, cfile); !ok || n != 4 {
		t.Fatalf("consumer after second run = %d, %v; want 4", n, ok)
	}
	// The consumer is visible to the consumers command.
	got := tableLines(mustRun(t, append([]string{"paimon", "consumers", "get", "tailer"}, tf...)...))
	if !reflect.DeepEqual(got, [][]string{{"CONSUMER", "NEXT_SNAPSHOT"}, {"tailer", "4"}}) {
		t.Fatalf("consumers get tailer: %q", got)
	}
}

// Storage flags reach objstore.Options with the CLI's "0 disables" spelling.
func TestStorageFlags(t *testing.T) {
	wh := copyTable(t, "demo", "orders")
	tf := []string{"--warehouse", wh, "--table", "demo.orders"}
	mustFail(t, "--access-key-id and --secret-access-key must be given together", append([]string{"paimon", "snapshots", "--access-key-id", "AK"}, tf...)...)
	mustFail(t, "--role-external-id needs --role-arn", append([]string{"paimon", "snapshots", "--role-external-id", "x"}, tf...)...)
	mustFail(t, "--anonymous excludes --profile and --role-arn", append([]string{"paimon", "snapshots", "--anonymous", "--profile", "p"}, tf...)...)
	mustFail(t, "--max-retries must not be negative", append([]string{"paimon", "snapshots", "--max-retries", "-1"}, tf...)...)
	// Local warehouses ignore the options but accept them.
	mustRun(t, append([]string{"paimon", "snapshots", "--region", "eu-west-1", "--s3-endpoint", "http://127.0.0.1:1", "--s3-force-path-style",
		"--access-key-id", "AK", "--secret-access-key", "SK", "--max-retries", "0", "--request-timeout", "0s"}, tf...)...)

	t.Setenv("AWS_ACCESS_KEY_ID", "ENV-AK")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "ENV-SK")
	t.Setenv("AWS_SESSION_TOKEN", "")
	parse := func(args ...string) objstore.Options {
		t.Helper()
		var got objstore.Options
		app := &cli.App{Name: "x", Commands: []*cli.Command{{
			Name:  "c",
			Flags: tableFlags(),
			Action: func(c *cli.Context) error {
				o, err := storageOptions(c)
				got = o
				return err
			},
		}}}
		if err := app.Run(append([]string{"x", "c"}, args...)); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return got
	}
	o := parse("--region", "eu-west-1", "--endpoint", "http://minio:9000", "--s3-force-path-style", "--profile", "p",
		"--role-arn", "arn:aws:iam::1:role/r", "--role-external-id", "ext", "--max-retries", "0", "--request-timeout", "0s")
	want := objstore.Options{Region: "eu-west-1", Endpoint: "http://minio:9000", ForcePathStyle: true, Profile: "p",
		RoleARN: "arn:aws:iam::1:role/r", RoleExternalID: "ext", AccessKeyID: "ENV-AK", SecretAccessKey: "ENV-SK",
		MaxRetries: -1, RequestTimeout: -1}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("options:\n got %+v\nwant %+v", o, want)
	}
	// Defaults: 5 retries, 60 s; flags override the environment's keys.
	o = parse("--access-key-id", "AK", "--secret-access-key", "SK")
	if o.AccessKeyID != "AK" || o.SecretAccessKey != "SK" || o.MaxRetries != 5 || o.RequestTimeout != time.Minute {
		t.Fatalf("defaults: %+v", o)
	}
	// --anonymous drops keys the environment supplied.
	o = parse("--anonymous")
	if !o.Anonymous || o.AccessKeyID != "" || o.SecretAccessKey != "" {
		t.Fatalf("anonymous: %+v", o)
	}
	// So does --from-ec2-role; the GCS credentials file is passed on.
	o = parse("--from-ec2-role", "--gcs-credentials-file", "/etc/sa.json")
	if !o.FromEC2Role || o.AccessKeyID != "" || o.SecretAccessKey != "" || o.GCSCredentialsFile != "/etc/sa.json" {
		t.Fatalf("from-ec2-role: %+v", o)
	}
}

// The admin tree is registered in the binary's CLI.
func TestAdminHelp(t *testing.T) {
	out := mustRun(t, "paimon", "consumers", "--help")
	for _, sub := range []string{"list", "get", "reset", "delete", "expire", "clear"} {
		if !strings.Contains(out, sub) {
			t.Errorf("consumers help lacks %q:\n%s", sub, out)
		}
	}
	// -h after the id still shows help (and does nothing else).
	out = mustRun(t, "paimon", "consumers", "reset", "c1", "-h", "--next", "1", "-w", "/nonexistent", "-t", "a.b")
	if !strings.Contains(out, "--next") || !strings.Contains(out, "--force") {
		t.Errorf("reset help:\n%s", out)
	}
}

// A long-lived changelog is a position a consumer can be reset to: its snapshot expired, but a
// stream reads the changelog (javapk.pk_ll_input keeps snapshots 8..9, changelogs 1..7).
func TestConsumersResetToLongLivedChangelog(t *testing.T) {
	wh := t.TempDir()
	testenv.CopyTree(t, filepath.Join("../../resources/fixtures/pk/warehouse", "javapk.db", "pk_ll_input"), filepath.Join(wh, "javapk.db", "pk_ll_input"))
	tf := []string{"--warehouse", wh, "--table", "javapk.pk_ll_input"}
	cmd := func(args ...string) []string { return append(append([]string{"paimon", "consumers"}, args...), tf...) }
	mustRun(t, cmd("reset", "c1", "--next", "3")...)
	if n, ok := consumerFile(t, filepath.Join(wh, "javapk.db", "pk_ll_input", "consumer", "consumer-c1")); !ok || n != 3 {
		t.Fatalf("consumer-c1 = %d, %v; want 3", n, ok)
	}
	mustFail(t, "(the table holds long-lived changelogs from 1 and snapshots 8..9)", cmd("reset", "c2", "--next", "12")...)
}

// tail --from snapshot-full:N --end snapshot:N is a read of snapshot N, in snapshot N's schema
// (Java's time travel): interop.evolution's snapshot 1 has "flag", which later schemas dropped.
func TestTailSnapshotNUsesItsSchema(t *testing.T) {
	tf := []string{"--warehouse", fixtureWarehouse, "--table", "interop.evolution"}
	out := mustRun(t, append([]string{"paimon", "tail", "--from", "snapshot-full:1", "--end", "snapshot:1"}, tf...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || !strings.Contains(lines[0], `"flag":`) || strings.Contains(lines[0], `"extra":`) {
		t.Fatalf("snapshot 1 not read in schema 0:\n%s", out)
	}
	out = mustRun(t, append([]string{"paimon", "tail", "--from", "snapshot-full:1", "--end", "snapshot:2"}, tf...)...)
	if !strings.Contains(out, `"extra":`) {
		t.Fatalf("a stream past snapshot 1 should be in the latest schema:\n%s", out)
	}
}
