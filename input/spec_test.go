package input

import (
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

func lintEnv(t *testing.T) *service.Environment {
	t.Helper()
	env := service.NewEnvironment()
	err := env.RegisterBatchInput("paimon", inputSpec(), func(*service.ParsedConfig, *service.Resources) (service.BatchInput, error) {
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// lintInput lints an input body as `connect-paimon lint` does: Benthos'
// linter (field names, types, enums), then LintYAML (Config.Validate), which
// only runs on a config Benthos accepts.
func lintInput(t *testing.T, env *service.Environment, body string) []string {
	t.Helper()
	lints, err := env.NewComponentConfigLinter().LintInputYAML([]byte("paimon:\n" + body))
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	var out []string
	for _, l := range lints {
		out = append(out, l.What)
	}
	if len(out) > 0 {
		return out
	}
	ours, err := LintYAML([]byte("input:\n  paimon:\n" + indent(body)))
	if err != nil {
		t.Fatalf("LintYAML: %v", err)
	}
	for _, l := range ours {
		out = append(out, l.What)
	}
	return out
}

func indent(body string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(body, "\n") {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

const baseYAML = "  warehouse: /wh\n  table: db.t\n"

func TestLintRules(t *testing.T) {
	env := lintEnv(t)
	cases := []struct {
		name string
		yaml string
		want string // substring of the single expected lint; "" = clean
	}{
		{"minimal", "", ""},
		{"bad table", "  table2: x\n", "field table2 not recognised"},
		{"snapshot without mode", "  snapshot_id: 3\n", "field snapshot_id: only used with scan mode from-snapshot"},
		{"mode without snapshot", "  scan_mode: from-snapshot\n", "field snapshot_id: required by scan mode from-snapshot"},
		{"full mode without snapshot", "  scan_mode: from-snapshot-full\n", "field snapshot_id: required by scan mode from-snapshot-full"},
		{"snapshot ok", "  scan_mode: from-snapshot-full\n  snapshot_id: 3\n", ""},
		{"snapshot zero", "  scan_mode: from-snapshot\n  snapshot_id: 0\n", "field snapshot_id: must be at least 1"},
		{"timestamp without mode", "  timestamp: 2024-01-01T00:00:00Z\n", "field timestamp: only used with scan mode from-timestamp"},
		{"mode without timestamp", "  scan_mode: from-timestamp\n", "field timestamp: required by scan mode from-timestamp"},
		{"timestamp ok", "  scan_mode: from-timestamp\n  timestamp: 2024-01-01T00:00:00.5+02:00\n", ""},
		{"timestamp bad", "  scan_mode: from-timestamp\n  timestamp: yesterday\n", "is not a time: want RFC 3339"},
		{"end both", "  end:\n    snapshot_id: 5\n    at_latest: true\n", "mutually exclusive"},
		{"end before start", "  scan_mode: from-snapshot\n  snapshot_id: 9\n  end:\n    snapshot_id: 5\n", "field end.snapshot_id: 5 is before the start snapshot 9"},
		{"end ok", "  end:\n    snapshot_id: 5\n", ""},
		{"shard index too big", "  shard:\n    index: 2\n    count: 2\n", "field shard.index: must be in [0, 2)"},
		{"shard negative", "  shard:\n    index: -1\n    count: 2\n", "field shard.index: must be in [0, 2)"},
		{"shard count zero", "  shard:\n    count: 0\n", "field shard.count: must be at least 1"},
		{"shard ok", "  shard:\n    index: 1\n    count: 3\n", ""},
		{"batch size zero", "  batch_size: 0\n", "field batch_size: must be at least 1"},
		{"rows per message negative", "  rows_per_message: -2\n", "field rows_per_message: must not be negative"},
		{"rows per message with batching", "  rows_per_message: 4\n  batching:\n    count: 10\n", "field rows_per_message: rows_per_message 4 excludes batching"},
		{"rows per message ok", "  rows_per_message: 64\n  batch_size: 1000\n", ""},
		{"one row per message with batching", "  rows_per_message: 1\n  batching:\n    count: 10\n", ""},
		{"upsert without row kind", "  upsert_mode: drop_update_before\n  include_row_kind: false\n", "needs include_row_kind: true"},
		{"upsert ok", "  upsert_mode: drop_update_before_and_delete\n", ""},
		{"bad upsert", "  upsert_mode: sometimes\n", "sometimes"},
		{"bad scan mode", "  scan_mode: earliest\n", "earliest"},
		{"checkpoint below batch", "  batch_size: 100\n  checkpoint_limit: 10\n", "field checkpoint_limit: 10 is smaller than batch_size 100"},
		{"zero poll", "  poll_interval: 0s\n", "field poll_interval: must be positive"},
		{"filter syntax", "  filter: \"id >\"\n", "field filter: parse filter: at position 5"},
		{"filter unbalanced", "  filter: \"(a = 1\"\n", "field filter: parse filter"},
		{"filter ok without the table", "  filter: \"nope = 1 AND s LIKE 'x%'\"\n", ""},
		{"bad poll", "  poll_interval: soon\n", "failed to parse 'poll_interval' as a duration"},
		{"zero commit", "  commit_period: 0s\n", "field commit_period: must be positive"},
		{"heartbeat off ok", "  heartbeat_interval: 0s\n", ""},
		{"negative heartbeat", "  heartbeat_interval: -1s\n", "field heartbeat_interval: must not be negative"},
		{"negative throttle", "  throttle:\n    max_rows: -1\n", "field throttle.max_rows: must not be negative"},
		{"negative bucket", "  buckets: [1, -2]\n", "field buckets: bucket -2 is negative"},
		{"consumer slash", "  consumer_id: a/b\n", "field consumer_id: invalid consumer id \"a/b\": contains the path separator"},
		{"consumer dotdot", "  consumer_id: ..\n", "field consumer_id: invalid consumer id \"..\": a relative path component"},
		{"consumer control character", "  consumer_id: \"a\\u0007b\"\n", "field consumer_id: invalid consumer id \"a\\ab\": contains the control character U+0007"},
		{"consumer too long", "  consumer_id: " + strings.Repeat("c", consumer.MaxIDLength+1) + "\n", "field consumer_id: invalid consumer id"},
		{"consumer max length ok", "  consumer_id: " + strings.Repeat("c", consumer.MaxIDLength) + "\n", ""},
		{"storage ok", "  storage:\n    region: eu-west-1\n    endpoint: http://minio:9000\n    force_path_style: true\n    credentials:\n      id: AK\n      secret: SK\n      role: arn:aws:iam::1:role/r\n      role_external_id: x\n    max_retries: 0\n    request_timeout: 0s\n", ""},
		{"storage id without secret", "  storage:\n    credentials:\n      id: AK\n", "storage.credentials.id and storage.credentials.secret must be set together"},
		{"storage secret without id", "  storage:\n    credentials:\n      secret: SK\n", "storage.credentials.id and storage.credentials.secret must be set together"},
		{"storage external id without role", "  storage:\n    credentials:\n      role_external_id: x\n", "field storage.credentials.role_external_id: needs storage.credentials.role"},
		{"storage anonymous with profile", "  storage:\n    credentials:\n      anonymous: true\n      profile: p\n", "field storage.credentials.anonymous: excludes"},
		{"storage anonymous ok", "  storage:\n    credentials:\n      anonymous: true\n", ""},
		{"storage negative retries", "  storage:\n    max_retries: -1\n", "field storage.max_retries: must not be negative"},
		{"storage negative timeout", "  storage:\n    request_timeout: -1s\n", "field storage.request_timeout: must not be negative"},
		{"storage unknown field", "  storage:\n    bucket: b\n", "field bucket not recognised"},
		{"storage from_ec2_role ok", "  storage:\n    credentials:\n      from_ec2_role: true\n", ""},
		{"storage from_ec2_role with keys", "  storage:\n    credentials:\n      from_ec2_role: true\n      id: AK\n      secret: SK\n", "field storage.credentials.from_ec2_role: excludes id, secret and anonymous"},
		{"storage force_path_style_urls ok", "  storage:\n    force_path_style_urls: true\n", ""},
		{"storage gcs json ok", "  storage:\n    gcs:\n      credentials_json: '{}'\n", ""},
		{"storage gcs json and file", "  storage:\n    gcs:\n      credentials_json: '{}'\n      credentials_file: /sa.json\n", "field storage.gcs.credentials_file: excludes storage.gcs.credentials_json"},
		{"scan mode underscores ok", "  scan_mode: latest_full\n", ""},
		{"scan mode upper case ok", "  scan_mode: FROM_SNAPSHOT\n  snapshot_id: 3\n", ""},
		{"on_expired underscores ok", "  on_expired: latest_full\n", ""},
		{"upsert hyphens ok", "  upsert_mode: drop-update-before-and-delete\n", ""},
		{"bad upsert either spelling", "  upsert_mode: drop-update-after\n", "drop-update-after"},
		{"batching ok", "  batching:\n    count: 10\n    byte_size: 1000\n    check: 'this.id > 3'\n", ""},
		{"batching processors refused", "  batching:\n    count: 10\n    processors:\n      - mapping: root = this\n", "field batching.processors: not supported"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := lintInput(t, env, baseYAML+tc.yaml)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("want no lints, got %q", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("want one lint containing %q, got %q", tc.want, got)
			}
		})
	}
}

// Lint reports every problem of an input, each naming its field.
func TestLintReportsEveryProblem(t *testing.T) {
	got := lintInput(t, lintEnv(t), baseYAML+"  consumer_id: \"a\\u0001\"\n  batch_size: 0\n  commit_period: 0s\n  shard:\n    index: 4\n    count: 2\n")
	want := []string{"field batch_size:", "field shard.index:", "field consumer_id:", "field commit_period:"}
	if len(got) != len(want) {
		t.Fatalf("got %d lints %q, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("lint %d: %q, want it to start with %q", i, got[i], w)
		}
	}
}

func TestLintTableName(t *testing.T) {
	env := lintEnv(t)
	for _, tbl := range []string{"orders", "a.b.c", ".t", "db."} {
		got := lintInput(t, env, "  warehouse: /wh\n  table: \""+tbl+"\"\n")
		if len(got) != 1 || !strings.Contains(got[0], "field table: \""+tbl+"\" is not database.table") {
			t.Errorf("table %q: got lints %q", tbl, got)
		}
	}
	got := lintInput(t, env, "  table: db.t\n")
	if len(got) != 1 || !strings.Contains(got[0], "warehouse") {
		t.Errorf("missing warehouse: got %q", got)
	}
}

func TestSpecExamplesLint(t *testing.T) {
	env := lintEnv(t)
	n := 0
	env.WalkInputs(func(name string, view *service.ConfigView) {
		if name != "paimon" {
			return
		}
		data, err := view.TemplateData()
		if err != nil {
			t.Fatal(err)
		}
		linter := env.FullConfigSchema("", "").NewStreamConfigLinter()
		linter.SetSkipEnvVarCheck(true)
		for _, ex := range data.Examples {
			n++
			lints, err := linter.LintYAML([]byte(ex.Config))
			if err != nil {
				t.Errorf("example %q: %v", ex.Title, err)
			}
			for _, l := range lints {
				t.Errorf("example %q: %s", ex.Title, l.Error())
			}
		}
	})
	if n < 3 {
		t.Fatalf("want at least 3 examples, found %d", n)
	}
}

func TestParseConfigFull(t *testing.T) {
	env := lintEnv(t)
	yaml := `
warehouse: s3://b/wh
table: sales.orders
branch: dev
consumer_id: c1
scan_mode: from-snapshot
snapshot_id: 7
end:
  snapshot_id: 20
poll_interval: 250ms
filter: "id > 3"
columns: [ id, amount ]
buckets: [ 0, 2, 5 ]
shard:
  index: 1
  count: 2
include_row_kind: true
batch_size: 10
rows_per_message: 3
commit_period: 2s
heartbeat_interval: 0s
on_expired: earliest
streaming_read_overwrite: true
upsert_mode: drop_update_before
throttle:
  interval: 3s
  max_rows: 100
  max_files: 4
  max_snapshots: 1
checkpoint_limit: 50
auto_replay_nacks: false
storage:
  region: eu-west-1
  endpoint: http://minio:9000
  force_path_style: true
  credentials:
    profile: prof
    id: AK
    secret: SK
    token: TOK
    role: arn:aws:iam::1:role/r
    role_external_id: ext
  max_retries: 2
  request_timeout: 3s
`
	pc, err := inputSpec().ParseYAML(yaml, env)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	want := config{
		Warehouse: "s3://b/wh", Database: "sales", Table: "orders", Branch: "dev",
		Read: paimon.StreamConfig{
			ConsumerID: "c1", StartMode: paimon.StartFromSnapshot, StartSnapshot: 7, EndSnapshot: 20,
			PollInterval: 250 * time.Millisecond, Filter: "id > 3", Columns: []string{"id", "amount"},
			Buckets: []int32{0, 2, 5}, ShardIndex: 1, ShardCount: 2, IncludeRowKind: true,
			OnExpired: paimon.ExpiredEarliest, StreamingReadOverwrite: &yes,
		},
		BatchSize: 10, RowsPerMessage: 3, CommitPeriod: 2 * time.Second, HeartbeatInterval: 0,
		UpsertMode:       upsertDropUpdateBefore,
		ThrottleInterval: 3 * time.Second, ThrottleMaxRows: 100, ThrottleMaxFiles: 4, ThrottleMaxSnapshots: 1,
		CheckpointLimit: 50, CheckpointLimitBytes: 64 << 20,
		Catalog: catalogConfig{Type: "filesystem", Options: map[string]string{}},
		Storage: objstore.Options{
			Region: "eu-west-1", Endpoint: "http://minio:9000", ForcePathStyle: true,
			Profile: "prof", AccessKeyID: "AK", SecretAccessKey: "SK", SessionToken: "TOK",
			RoleARN: "arn:aws:iam::1:role/r", RoleExternalID: "ext", MaxRetries: 2, RequestTimeout: 3 * time.Second,
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", got, want)
	}
	if got.FullName() != "sales.orders" {
		t.Errorf("FullName = %q", got.FullName())
	}
}

func TestParseConfigDefaults(t *testing.T) {
	env := lintEnv(t)
	pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\n", env)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	no := false
	want := config{
		Warehouse: "/wh", Database: "db", Table: "t", Branch: "main",
		Read: paimon.StreamConfig{
			StartMode: paimon.StartDefault, PollInterval: 5 * time.Second, ShardIndex: 0, ShardCount: 1,
			IncludeRowKind: true, OnExpired: paimon.ExpiredFail, StreamingReadOverwrite: &no,
		},
		BatchSize: 1024, RowsPerMessage: 1, CommitPeriod: 5 * time.Second, HeartbeatInterval: time.Minute,
		UpsertMode: upsertOff, ThrottleInterval: time.Second, CheckpointLimit: 65536, CheckpointLimitBytes: 64 << 20, AutoReplayNacks: true,
		// The spec's defaults, spelled explicitly (fileio's own defaults are
		// the same values).
		Catalog: catalogConfig{Type: "filesystem", Options: map[string]string{}},
		Storage: objstore.Options{MaxRetries: 5, RequestTimeout: time.Minute},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", got, want)
	}
}

// parseConfig must reject what lint rejects, because `run --chilled` and
// programmatic configs skip lint.
func TestParseConfigErrorsNameField(t *testing.T) {
	env := lintEnv(t)
	cases := map[string]string{
		"table: nodot\n":                                                             "field table",
		"table: db.t\nsnapshot_id: 3\n":                                              "field snapshot_id",
		"table: db.t\nscan_mode: from-snapshot\n":                                    "field snapshot_id",
		"table: db.t\nscan_mode: from-timestamp\n":                                   "field timestamp",
		"table: db.t\nscan_mode: from-timestamp\ntimestamp: x\n":                     "field timestamp",
		"table: db.t\ntimestamp: 2024-01-01T00:00:00Z\n":                             "field timestamp",
		"table: db.t\nshard: {index: 3, count: 2}\n":                                 "field shard.index",
		"table: db.t\nshard: {count: 0}\n":                                           "field shard.count",
		"table: db.t\nbatch_size: 0\n":                                               "field batch_size",
		"table: db.t\nrows_per_message: 8\nbatching: {count: 4}\n":                   "field rows_per_message",
		"table: db.t\nupsert_mode: drop_update_before\ninclude_row_kind: false\n":    "field upsert_mode",
		"table: db.t\nend: {snapshot_id: 2, at_latest: true}\n":                      "field end.snapshot_id: an end snapshot and an end at the latest snapshot are mutually exclusive",
		"table: db.t\ncolumns: [a, a]\n":                                             "field columns",
		"table: db.t\nbatch_size: 10\ncheckpoint_limit: 5\n":                         "field checkpoint_limit",
		"table: db.t\npoll_interval: 0s\n":                                           "field poll_interval",
		"table: db.t\nconsumer_id: a/b\n":                                            "field consumer_id",
		"table: db.t\nthrottle: {max_files: -1}\n":                                   "field throttle.max_files",
		"table: db.t\nstorage: {credentials: {id: AK}}\n":                            "storage.credentials.id and storage.credentials.secret",
		"table: db.t\nstorage: {credentials: {role_external_id: x}}\n":               "field storage.credentials.role_external_id",
		"table: db.t\nstorage: {credentials: {anonymous: true, id: a, secret: b}}\n": "field storage.credentials.anonymous",
		"table: db.t\nstorage: {max_retries: -2}\n":                                  "field storage.max_retries",
		"table: db.t\nstorage: {request_timeout: -1s}\n":                             "field storage.request_timeout",
	}
	for y, want := range cases {
		pc, err := inputSpec().ParseYAML("warehouse: /wh\n"+y, env)
		if err != nil {
			t.Fatalf("%q: %v", y, err)
		}
		if _, err := parseConfig(pc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want error naming %q, got %v", y, want, err)
		}
	}
}

// The consumer id rule is the library's (consumer.ValidateID): control
// characters and over-long ids, which the input's own rule used to let
// through, fail config parsing with the field named.
func TestParseConfigConsumerIDLibraryRule(t *testing.T) {
	env := lintEnv(t)
	for _, id := range []string{`"a\u0001b"`, `"tab\there"`, strings.Repeat("x", consumer.MaxIDLength+1), `"a/b"`, `".."`, `""`} {
		pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\nconsumer_id: "+id+"\n", env)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		_, err = parseConfig(pc)
		if err == nil || !strings.Contains(err.Error(), "field consumer_id: invalid consumer id") {
			t.Errorf("consumer_id %.20s: want an error naming the field, got %v", id, err)
		}
	}
	pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\nconsumer_id: "+strings.Repeat("x", consumer.MaxIDLength)+"\n", env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseConfig(pc); err != nil {
		t.Errorf("an id of the maximum length: %v", err)
	}
}

func TestReadsBucket(t *testing.T) {
	c := paimon.StreamConfig{ShardIndex: 1, ShardCount: 3}
	var got []int32
	for b := int32(0); b < 9; b++ {
		if c.ReadsBucket(b) {
			got = append(got, b)
		}
	}
	if !reflect.DeepEqual(got, []int32{1, 4, 7}) {
		t.Fatalf("shard 1/3 reads %v", got)
	}
	c.Buckets = []int32{4, 5}
	if !c.ReadsBucket(4) || c.ReadsBucket(5) || c.ReadsBucket(1) {
		t.Fatal("bucket list must intersect with the shard")
	}
	if !(&paimon.StreamConfig{ShardCount: 1}).ReadsBucket(-2) {
		t.Fatal("unsharded reader must read the postpone bucket -2")
	}
}

// The config spells "off" as 0 for retries and the request timeout;
// objstore.Options spells it as negative, because its 0 means "default".
func TestParseStorageZeroDisables(t *testing.T) {
	env := lintEnv(t)
	pc, err := inputSpec().ParseYAML("warehouse: s3://b/wh\ntable: db.t\nstorage:\n  max_retries: 0\n  request_timeout: 0s\n  credentials:\n    anonymous: true\n", env)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	want := objstore.Options{Anonymous: true, MaxRetries: -1, RequestTimeout: -1}
	if !reflect.DeepEqual(got.Storage, want) {
		t.Fatalf("storage = %+v, want %+v", got.Storage, want)
	}
}

// The storage.azure fields reach objstore.Options' Azure credentials.
func TestParseStorageAzure(t *testing.T) {
	env := lintEnv(t)
	pc, err := inputSpec().ParseYAML("warehouse: abfs://c@acct.dfs.core.windows.net/wh\ntable: db.t\nstorage:\n  azure:\n    storage_account: acct\n    storage_access_key: a2V5\n    storage_sas_token: sv=1\n    storage_connection_string: DefaultEndpointsProtocol=http\n", env)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Storage
	if s.StorageAccount != "acct" || s.StorageAccessKey != "a2V5" || s.StorageSASToken != "sv=1" || s.StorageConnectionString != "DefaultEndpointsProtocol=http" {
		t.Fatalf("azure storage fields not parsed: %+v", s)
	}
}

// The catalog field: type rest takes uri, token_provider, token and further
// options to paimon.WithREST; its rules are checked at lint, naming the field.
func TestParseConfigRESTCatalog(t *testing.T) {
	env := service.NewEnvironment()
	parse := func(yaml string) (config, error) {
		pc, err := inputSpec().ParseYAML(yaml, env)
		if err != nil {
			t.Fatal(err)
		}
		return parseConfig(pc)
	}
	c, err := parse(`
warehouse: wh1
table: db.t
catalog:
  type: rest
  uri: http://h:1
  token: tk
  options: {header.X-A: b}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := catalogConfig{Type: "rest", URI: "http://h:1", Token: "tk", Options: map[string]string{"header.X-A": "b"}}
	if !reflect.DeepEqual(c.Catalog, want) || !c.Catalog.REST() || len(c.Catalog.CatalogOptions()) != 1 {
		t.Fatalf("catalog %+v", c.Catalog)
	}
	if _, err := parse("warehouse: ''\ntable: db.t\ncatalog: {type: rest, uri: 'http://h', token: t}\n"); err != nil {
		t.Fatalf("REST catalog with the server's default warehouse: %v", err)
	}
	for yaml, wantErr := range map[string]string{
		"warehouse: w\ntable: db.t\ncatalog: {type: rest, token: t}\n":                             "field catalog.uri",
		"warehouse: w\ntable: db.t\ncatalog: {type: rest, uri: 'http://h'}\n":                      "field catalog.token",
		"warehouse: w\ntable: db.t\ncatalog: {type: rest, uri: 'http://h', token_provider: dlf}\n": "token.provider=dlf",
		"warehouse: w\ntable: db.t\ncatalog: {uri: 'http://h'}\n":                                  "only applies to type: rest",
		"warehouse: ''\ntable: db.t\n":                                                             "field warehouse",
	} {
		_, err := parse(yaml)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: %v, want an error containing %q", yaml, err, wantErr)
		}
	}
}

// The Connect spellings and the older ones parse to the same options, and
// either spelling of an enum value gives the same mode.
func TestConfigAliases(t *testing.T) {
	env := lintEnv(t)
	parse := func(y string) config {
		t.Helper()
		pc, err := inputSpec().ParseYAML("warehouse: /wh\ntable: db.t\n"+y, env)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseConfig(pc)
		if err != nil {
			t.Fatalf("%q: %v", y, err)
		}
		return c
	}
	for _, y := range []string{"storage: {force_path_style_urls: true}\n", "storage: {force_path_style: true}\n"} {
		if !parse(y).Storage.ForcePathStyle {
			t.Errorf("%q: path style not set", y)
		}
	}
	if parse("storage: {}\n").Storage.ForcePathStyle {
		t.Error("path style set by default")
	}
	if c := parse("storage: {credentials: {from_ec2_role: true}}\n"); !c.Storage.FromEC2Role {
		t.Error("from_ec2_role not read")
	}
	if c := parse("storage: {gcs: {credentials_json: '{\"type\": \"service_account\"}'}}\n"); c.Storage.GCSCredentialsJSON != `{"type": "service_account"}` {
		t.Errorf("credentials_json: %q", c.Storage.GCSCredentialsJSON)
	}
	if c := parse("storage: {gcs: {credentials_file: /etc/sa.json}}\n"); c.Storage.GCSCredentialsFile != "/etc/sa.json" {
		t.Errorf("credentials_file: %q", c.Storage.GCSCredentialsFile)
	}
	for _, pair := range [][2]string{
		{"scan_mode: latest-full\n", "scan_mode: latest_full\n"},
		{"scan_mode: from-snapshot-full\nsnapshot_id: 2\n", "scan_mode: from_snapshot_full\nsnapshot_id: 2\n"},
		{"scan_mode: compacted-full\n", "scan_mode: Compacted_Full\n"},
		{"on_expired: latest-full\n", "on_expired: latest_full\n"},
		{"upsert_mode: drop-update-before\n", "upsert_mode: drop_update_before\n"},
		{"upsert_mode: drop-update-before-and-delete\n", "upsert_mode: drop_update_before_and_delete\n"},
	} {
		a, b := parse(pair[0]), parse(pair[1])
		if a.Read.StartMode != b.Read.StartMode || a.Read.OnExpired != b.Read.OnExpired || a.UpsertMode != b.UpsertMode {
			t.Errorf("%q and %q differ: %v/%v/%v vs %v/%v/%v", pair[0], pair[1], a.Read.StartMode, a.Read.OnExpired, a.UpsertMode, b.Read.StartMode, b.Read.OnExpired, b.UpsertMode)
		}
	}
	if c := parse("upsert_mode: drop_update_before\n"); c.UpsertMode != upsertDropUpdateBefore {
		t.Errorf("upsert_mode: %q", c.UpsertMode)
	}
	if c := parse("batching: {count: 7, byte_size: 100}\n"); c.Batching.Count != 7 || c.Batching.ByteSize != 100 {
		t.Errorf("batching: %+v", c.Batching)
	}
}

// A cross-field rule's lint points at the line of the field at fault, and
// at the other field of the rule when the first is left at its default.
func TestLintPointsAtTheField(t *testing.T) {
	conf := `input:
  paimon:
    warehouse: /wh
    table: db.t
    include_row_kind: false
    upsert_mode: drop-update-before
    batch_size: 100
    checkpoint_limit: 10
    storage:
      credentials:
        secret: SK
`
	lints, err := LintYAML([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"field upsert_mode": 6, "field checkpoint_limit": 8, "fields storage.credentials.id and storage.credentials.secret": 11}
	if len(lints) != len(want) {
		t.Fatalf("lints %v, want %d", lints, len(want))
	}
	for _, l := range lints {
		found := false
		for prefix, line := range want {
			if strings.HasPrefix(l.What, prefix) {
				found = true
				if l.Line != line {
					t.Errorf("%q at line %d, want %d", l.What, l.Line, line)
				}
			}
		}
		if !found {
			t.Errorf("unexpected lint %v", l)
		}
	}
	// The field at fault is not written: the rule's other field is.
	lints, err = LintYAML([]byte("input:\n  paimon:\n    warehouse: /wh\n    table: db.t\n    batch_size: 100000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lints) != 1 || lints[0].Line != 5 || !strings.Contains(lints[0].What, "checkpoint_limit") {
		t.Errorf("default checkpoint_limit below batch_size: %v, want line 5 (batch_size)", lints)
	}
	// A field-less error stays at the input's line.
	lints, err = LintYAML([]byte("input:\n  paimon:\n    warehouse: /wh\n    table: nodot\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lints) != 1 || lints[0].Line != 4 {
		t.Errorf("table: %v, want line 4", lints)
	}
}
