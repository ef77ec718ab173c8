package input

import (
	"strconv"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/readspec"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
)

// Field names of the paimon input. Kept as constants so the spec, the parser
// and the tests cannot drift apart.
const (
	fieldWarehouse              = "warehouse"
	fieldTable                  = "table"
	fieldBranch                 = "branch"
	fieldConsumerID             = "consumer_id"
	fieldScanMode               = "scan_mode"
	fieldSnapshotID             = "snapshot_id"
	fieldTimestamp              = "timestamp"
	fieldEnd                    = "end"
	fieldEndSnapshotID          = "snapshot_id"
	fieldEndAtLatest            = "at_latest"
	fieldPollInterval           = "poll_interval"
	fieldFilter                 = "filter"
	fieldColumns                = "columns"
	fieldBuckets                = "buckets"
	fieldShard                  = "shard"
	fieldShardIndex             = "index"
	fieldShardCount             = "count"
	fieldIncludeRowKind         = "include_row_kind"
	fieldBatchSize              = "batch_size"
	fieldRowsPerMessage         = "rows_per_message"
	fieldKeyMetadata            = "key_metadata"
	fieldCommitPeriod           = "commit_period"
	fieldHeartbeatInterval      = "heartbeat_interval"
	fieldOnExpired              = "on_expired"
	fieldStreamingReadOverwrite = "streaming_read_overwrite"
	fieldUpsertMode             = "upsert_mode"
	fieldThrottle               = "throttle"
	fieldThrottleInterval       = "interval"
	fieldThrottleMaxRows        = "max_rows"
	fieldThrottleMaxFiles       = "max_files"
	fieldThrottleMaxSnapshots   = "max_snapshots"
	fieldCheckpointLimit        = "checkpoint_limit"
	fieldCheckpointLimitBytes   = "checkpoint_limit_bytes"
	fieldStorage                = "storage"
	fieldStorageRegion          = "region"
	fieldStorageEndpoint        = "endpoint"
	fieldStorageForcePathStyle  = "force_path_style_urls"
	fieldStorageForcePathOld    = "force_path_style" // deprecated alias
	fieldStorageCredentials     = "credentials"
	fieldCredProfile            = "profile"
	fieldCredID                 = "id"
	fieldCredSecret             = "secret"
	fieldCredToken              = "token"
	fieldCredRole               = "role"
	fieldCredRoleExternalID     = "role_external_id"
	fieldCredAnonymous          = "anonymous"
	fieldCredFromEC2Role        = "from_ec2_role"
	fieldStorageGCS             = "gcs"
	fieldGCSCredentialsJSON     = "credentials_json"
	fieldGCSCredentialsFile     = "credentials_file"
	fieldBatching               = "batching"
	fieldStorageAzure           = "azure"
	fieldAzureAccount           = "storage_account"
	fieldAzureAccessKey         = "storage_access_key"
	fieldAzureSASToken          = "storage_sas_token"
	fieldAzureConnectionString  = "storage_connection_string"
	fieldStorageMaxRetries      = "max_retries"
	fieldStorageRequestTimeout  = "request_timeout"
)

var specDescription = `
Reads an https://paimon.apache.org[Apache Paimon^] table from a filesystem warehouse (local paths,
` + "`file://`" + `, ` + "`s3://`" + `, ` + "`gs://`" + `, ` + "`azblob://`" + `), first as a full scan and then by following new
snapshots as they are committed, like Paimon's streaming source.

Each message is one row (or up to ` + "`rows_per_message`" + ` rows, newline-delimited, when that is set); a
batch holds up to ` + "`batch_size`" + ` rows of one split (one partition and bucket of one snapshot).
Batches never span snapshots.

== Message body

The row as a JSON object keyed by column name, with every Paimon type mapped without loss:

- BOOLEAN: ` + "`true`/`false`" + `. TINYINT..BIGINT: JSON numbers, exact (64-bit values are not rounded
  through a float).
- FLOAT/DOUBLE: JSON numbers in the shortest form that round-trips; NaN and infinities, which JSON
  cannot express, become the strings ` + "`\"NaN\"`, `\"Infinity\"`, `\"-Infinity\"`" + `.
- DECIMAL(p,s): a string in plain notation with exactly s fraction digits (` + "`\"12.30\"`" + `), so no
  digit is lost to float parsing.
- CHAR/VARCHAR: a string; invalid UTF-8 bytes are replaced by U+FFFD.
- BINARY/VARBINARY: standard base64 string.
- DATE: ` + "`\"YYYY-MM-DD\"`" + `. TIME: ` + "`\"HH:MM:SS.mmm\"`" + `.
- TIMESTAMP(p): a local date-time without offset, with 3 fraction digits for p 0..3, 6 for p 4..6
  and 9 for p 7..9 (the stored unit), e.g. ` + "`\"2024-01-02T03:04:05.123456\"`" + `.
  It has no time zone in Paimon, so none is invented.
- TIMESTAMP(p) WITH LOCAL TIME ZONE: the same in UTC with a ` + "`Z`" + ` suffix (RFC 3339).
- ARRAY/VECTOR: JSON arrays. ROW: JSON objects. MAP with string keys: a JSON object; MAP with any
  other key type and MULTISET: an array of ` + "`{\"key\": ..., \"value\": ...}`" + ` objects, in stored order.
- NULL: ` + "`null`" + ` at any depth.

== Metadata

- ` + "`paimon_row_kind`" + `: ` + "`+I`, `-U`, `+U` or `-D`" + ` (only with ` + "`include_row_kind`" + `)
- ` + "`paimon_snapshot_id`" + `: int, the snapshot the row was read from
- ` + "`paimon_commit_kind`" + `: ` + "`APPEND`, `COMPACT`, `OVERWRITE` or `ANALYZE`" + `
- ` + "`paimon_commit_time`" + `: timestamp of the snapshot commit
- ` + "`paimon_schema_id`" + `: int, the table schema of the snapshot
- ` + "`paimon_partition`" + `: object of partition column values (empty for unpartitioned tables); decimals, dates and timestamps as the strings the body holds (a TIMESTAMP without zone has no ` + "`Z`" + `)
- ` + "`paimon_bucket`" + `: int
- ` + "`paimon_table`" + `: ` + "`db.table`" + `
- ` + "`paimon_file`" + `: the data file the split was read from (the first one when a split merges several)
- ` + "`paimon_key`" + `: primary-key tables: the row's key columns as a JSON object in key order
  (` + "`{\"id\":7}`" + `), for ` + "`kafka_franz`" + `'s ` + "`key`" + ` (a compacted topic keeps the latest row per key); absent
  when ` + "`columns`" + ` leaves out a key column, with ` + "`key_metadata: false`" + `, or above ` + "`rows_per_message`" + ` 1
- ` + "`operation`" + `: Redpanda Connect's CDC convention: ` + "`read`" + ` for the rows of a full plan (the table as it
  was), then ` + "`insert`, `update_before`, `update`, `delete`" + ` by row kind (append tables: ` + "`insert`" + `); absent
  on a primary-key table's follow-up rows read without ` + "`include_row_kind`" + `
- ` + "`paimon_schema`" + `: the typed schema of the body in Benthos' common schema format (the ` + "`public/schema`" + ` package's
  ` + "`ToAny`" + ` form), for schema-aware processors and outputs pointed at this key (e.g. ` + "`schema_metadata: paimon_schema`" + `):
  the table's types — DECIMAL with precision and scale, TIMESTAMP with its unit and, for WITH LOCAL TIME
  ZONE, as a UTC instant, DATE, TIME — while the body spells decimals, dates, times and timestamps as
  strings and bytes as base64 (above). Maps with non-string keys are arrays of ` + "`key`/`value`" + ` objects.
- ` + "`paimon_consumer`" + `: with an ` + "`exactly_once`" + ` output, the consumer id whose transaction the row belongs to (a
  group's slot: ` + "`<consumer_id>-slot-<n>`" + `)
- ` + "`paimon_position`" + `: with ` + "`aws_s3`" + `'s ` + "`exactly_once`" + `, the position of the message's first row: snapshot, plan
  (` + "`f`" + ` a full read, ` + "`c`" + ` changes), split and row, zero-padded so that keys sort in read order

Typed values are set, so ` + "`@paimon_snapshot_id + 1`" + ` works in Bloblang; ` + "`meta(\"...\")`" + ` returns strings.

== Delivery guarantees and consumers

With ` + "`consumer_id`" + ` set, progress is stored in the table's own consumer file
(` + "`<table>/consumer/consumer-<id>`" + `, ` + "`{\"nextSnapshot\": N}`" + `) exactly as Flink and pypaimon do, so Paimon
will not expire snapshots the consumer still needs. ` + "`nextSnapshot`" + ` advances to N+1 only after every
row of snapshot N and of all earlier snapshots has been acknowledged; acknowledgements may arrive in
any order. The file is written every ` + "`commit_period`" + ` when the position moved, rewritten every
` + "`heartbeat_interval`" + ` while idle (so consumer expiry does not delete an idle reader's progress), and once
more on shutdown. After a crash the input resumes at the first snapshot that was not completely
acknowledged: delivery is at-least-once, and rows of that snapshot may be seen twice.

Without ` + "`consumer_id`" + ` nothing is written and every start applies ` + "`scan_mode`" + ` afresh.

Rejected messages are retried while ` + "`auto_replay_nacks`" + ` is true (the default): a rejected batch is
sent again whole the first time (rows of it the output did accept may arrive twice), then only the
messages the output rejected, with a back-off growing to one second between attempts. With it false
a rejected message counts as handled, and progress moves past it: use that only with a ` + "`fallback`" + `
output that captures failures.

A ` + "`buffer`" + ` other than ` + "`none`" + ` acknowledges rows when they enter the buffer, so progress would be stored
before the output has them. An output batching policy whose ` + "`count`" + ` (or ` + "`byte_size`" + `) exceeds what the window holds
(` + "`checkpoint_limit`" + ` rows, ` + "`checkpoint_limit_bytes`" + ` of bodies) fills only on its ` + "`period`" + `: give such a
policy a ` + "`period`" + `, or it stalls the pipeline.

== Row kinds and ordering

Primary-key tables with a changelog producer deliver ` + "`-U`/`+U`" + ` pairs and ` + "`-D`" + ` rows; append tables and
full scans deliver ` + "`+I`" + ` only. ` + "`upsert_mode`" + ` drops the rows an upsert sink does not need. Rows of one
bucket arrive in commit order, but the pipeline may reorder them unless ` + "`threads: 1`" + ` and the output's
` + "`max_in_flight: 1`" + ` are used.

== Sharding

Several replicas with the same table can split the work: replica ` + "`shard.index`" + ` of
` + "`shard.count`" + ` reads the buckets with ` + "`bucket % count == index`" + `. A bucket-unaware table
(` + "`bucket = -1`" + `, Paimon's default for append tables) keeps every file in bucket 0, so it is split
by data file instead: each file belongs to the shard given by a fixed hash of its partition and file
name, modulo ` + "`shard.count`" + `. Either way every row is read by exactly one shard. Give each replica its
own ` + "`consumer_id`" + `; the table keeps its snapshots until the slowest replica has passed them. A shard
can only be as fine as the table: a table with 4 buckets, or 4 files in a snapshot, keeps at most 4
shards busy.

== Validation

The rules below are checked by ` + "`connect-paimon lint`" + ` and again when the input starts (so
` + "`run --chilled`" + ` and configs built in code get the same errors, each naming the field). Binaries
that bundle this input and run Benthos' own ` + "`lint`" + ` check field names, types and enums there, and
the rules at startup.

- ` + "`table`" + ` must be ` + "`database.table`" + `.
- ` + "`consumer_id`" + ` follows Paimon's consumer id rule: non-empty, valid UTF-8, at most ` + maxConsumerIDLength + ` bytes,
  no ` + "`/`, `\\`" + `, NUL or control characters, and not ` + "`.` or `..`" + `.
- ` + "`snapshot_id`" + ` (at least 1) is required by, and only used with, ` + "`from-snapshot`" + ` and
  ` + "`from-snapshot-full`" + `; ` + "`timestamp`" + ` (RFC 3339) likewise with ` + "`from-timestamp`" + `.
- ` + "`end.snapshot_id`" + ` is at least 1, not before ` + "`snapshot_id`" + `, and excludes ` + "`end.at_latest`" + `.
- ` + "`shard.count`" + ` is at least 1 and ` + "`shard.index`" + ` in ` + "`[0, shard.count)`" + `; ` + "`buckets`" + ` are not negative;
  ` + "`columns`" + ` are non-empty and listed once.
- ` + "`batch_size`" + ` is at least 1, ` + "`rows_per_message`" + ` not negative and above 1 excludes
  ` + "`batching`" + `, and ` + "`checkpoint_limit`" + ` is at least ` + "`batch_size`" + `; ` + "`poll_interval`" + `,
  ` + "`commit_period`" + ` and ` + "`throttle.interval`" + ` are positive; ` + "`heartbeat_interval`" + `,
  ` + "`storage.request_timeout`" + `, ` + "`storage.max_retries`" + ` and the throttle limits are not negative (0 disables).
- ` + "`upsert_mode`" + ` other than ` + "`off`" + ` needs ` + "`include_row_kind: true`" + `.
- ` + "`filter`" + ` follows the filter grammar (checked without the table; its columns and literal types are
  checked against the schema when the input starts).
- storage.credentials.id and storage.credentials.secret must be set together; ` + "`role_external_id`" + ` needs
  ` + "`role`" + `; ` + "`anonymous`" + ` excludes ` + "`id`, `secret`, `token`, `profile` and `role`" + `.

== Errors

A permanent error — an invalid field, a missing warehouse, table, branch or file, a refused
feature, corrupt metadata, an expired position with ` + "`on_expired: fail`" + ` — is logged once at ERROR and
ends the input; ` + "`connect-paimon run`" + ` then exits 1. Transient errors (I/O, timeouts, 5xx) are
retried with back-off.

== Metrics

Every metric has the label ` + "`table`" + ` (` + "`database.table`" + `), beside Benthos' ` + "`label`" + ` and ` + "`path`" + `;
counters are reported at 0 from start. With ` + "`metrics: prometheus`" + ` they are served on the HTTP
server's ` + "`/metrics`" + `.

- ` + "`paimon_snapshot_lag`" + ` (gauge): latest snapshot id minus the snapshot being read
- ` + "`paimon_rows_read`" + `, ` + "`paimon_files_read`" + `, ` + "`paimon_bytes_read`" + ` (counters)
- ` + "`paimon_plan_latency_ns`" + ` (timer, ns): time to plan one snapshot
- ` + "`paimon_plan_progress_percent`" + `, ` + "`paimon_plan_eta_seconds`" + ` (gauges): how far the current plan is read, by the
  bytes of its data files, and the time left at the rate so far; ` + "`paimon_plan_files`" + `, ` + "`paimon_plan_files_done`" + `,
  ` + "`paimon_plan_bytes`" + `, ` + "`paimon_plan_bytes_done`" + ` and ` + "`paimon_plan_rows`" + ` (the row count its manifests record) are
  the plan's totals and progress. A plan that runs longer than 5 s also logs them at INFO every 5 s
  (percent, files, bytes, rows so far, rows/s, ETA): a first full read of a big table is seen moving.
- ` + "`paimon_committed_snapshot`" + ` (gauge): the ` + "`nextSnapshot`" + ` last written to the consumer file
- ` + "`paimon_transaction_commit_ns`" + ` (timer, ns), ` + "`paimon_transaction_rewinds`" + ` (counter): with an ` + "`exactly_once`" + `
  output, the time of each commit, and the transactions aborted and read again
- ` + "`paimon_storage_requests`" + `, ` + "`paimon_storage_request_errors`" + ` (counters, also labelled ` + "`operation`" + `; present once an operation ran): storage calls, retries included
- ` + "`paimon_replayed_rows`" + ` (counter): rows sent again after the pipeline rejected them
- ` + "`paimon_rejected_batches`" + ` (counter): rejected batches dropped because ` + "`auto_replay_nacks`" + ` is false
- ` + "`paimon_lag_snapshots`" + ` (gauge): latest snapshot id minus the last snapshot whose rows are all acknowledged;
  0 when caught up
- ` + "`paimon_lag_seconds`" + ` (gauge): now minus the commit time of the oldest snapshot not yet fully acknowledged;
  it grows while the pipeline is blocked, 0 when caught up
- ` + "`paimon_rows_pending`" + ` (gauge): the rows the snapshots not yet acknowledged record (` + "`changelogRecordCount`" + `
  when the stream reads a changelog, else ` + "`deltaRecordCount`" + ` of the APPEND commits), summed over at most 1000
  snapshots
- ` + "`paimon_expiry_headroom_snapshots`" + ` (gauge): the next snapshot to deliver minus the earliest retained snapshot:
  how many snapshots may still expire before the position does (0: the next expiry removes it; below 0:
  expired). Alert on it before ` + "`on_expired`" + ` has to act.

  The four are computed once per ` + "`poll_interval`" + ` apart from the read, from the acknowledged position, and
  set from the first plan on. While the table is idle a round costs one storage request; each snapshot
  file is read once (cached by id until the position passes it).
- ` + "`paimon_group_slots_owned`" + ` (gauge), ` + "`paimon_group_rebalances`" + ` (counter: slot assignments, revocations
  and losses), with ` + "`group`" + ` only. In a group each slot has its own position and the lag gauges report the
  replica's worst slot (the largest lag and pending rows, the smallest headroom); the gauges of one
  position (` + "`paimon_snapshot_lag`" + `, ` + "`paimon_committed_snapshot`" + `, the ` + "`paimon_plan_*`" + ` progress) are not set, the
  counters add up over the slots.
`

// maxConsumerIDLength is the library's limit, spelled for the description.
var maxConsumerIDLength = strconv.Itoa(consumer.MaxIDLength)

// readFields are the streaming read's fields, generated from the table
// tail's flags come from too (internal/readspec).
func readFields() []*service.ConfigField {
	var out []*service.ConfigField
	nested := map[string][]*service.ConfigField{}
	at := map[string]int{} // where an object's field goes in out
	for _, f := range readspec.Fields() {
		obj, leaf, ok := strings.Cut(f.Path, ".")
		if !ok {
			out = append(out, readSpecField(f, f.Path))
			continue
		}
		if _, seen := at[obj]; !seen {
			at[obj] = len(out)
			out = append(out, nil)
		}
		nested[obj] = append(nested[obj], readSpecField(f, leaf))
	}
	for _, o := range readspec.Objects() {
		of := service.NewObjectField(o.Name, nested[o.Name]...).Description(o.Doc)
		if o.Optional {
			of = of.Optional()
		}
		if o.Advanced {
			of = of.Advanced()
		}
		out[at[o.Name]] = of
	}
	return out
}

// specField is the Benthos field of one readspec field.
func readSpecField(f readspec.Field, name string) *service.ConfigField {
	var cf *service.ConfigField
	switch f.Kind {
	case readspec.Enum:
		opts := map[string]string{}
		for _, o := range f.Options {
			opts[o[0]] = o[1]
		}
		// The value is checked once, by the input's own lint (readspec's
		// parse names the field and the accepted values): Benthos' own
		// check of the options is switched off.
		cf = service.NewStringAnnotatedEnumField(name, opts).LintRule("")
	case readspec.Int:
		cf = service.NewIntField(name)
	case readspec.Bool:
		cf = service.NewBoolField(name)
	case readspec.Duration:
		cf = service.NewDurationField(name)
	case readspec.StringList:
		cf = service.NewStringListField(name)
	case readspec.IntList:
		cf = service.NewIntListField(name)
	default:
		cf = service.NewStringField(name)
	}
	cf = cf.Description(f.Doc)
	if f.Default != nil {
		cf = cf.Default(f.Default)
	} else {
		cf = cf.Optional()
	}
	if len(f.Examples) > 0 {
		cf = cf.Examples(f.Examples...)
	}
	if f.Advanced {
		cf = cf.Advanced()
	}
	return cf
}

// inputSpec returns the configuration spec of the paimon input.
func inputSpec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Beta().
		Categories("Services").
		Version("0.1.0").
		Summary("Reads rows from an Apache Paimon table: a full scan, then every new snapshot, with progress stored in a Paimon consumer.").
		Description(specDescription).
		Fields(append(append([]*service.ConfigField{
			service.NewStringField(fieldWarehouse).
				Description("The warehouse root: a local path or a URL whose scheme selects the storage (`file://`, `s3://`, `gs://`, `azblob://`). Tables live at `<warehouse>/<db>.db/<table>`. With `catalog.type: rest` it is the warehouse name the REST server knows (may be empty: the server's default).").
				Examples("/data/paimon", "s3://my-bucket/warehouse"),
			service.NewStringField(fieldTable).
				Description("The table to read, as `database.table`.").
				Example("sales.orders"),
			service.NewStringField(fieldBranch).
				Description("The table branch to read.").
				Default("main").
				Advanced(),
		}, readFields()...),
			service.NewIntField(fieldBatchSize).
				Description("The most rows per message batch. A batch never spans splits.").
				Default(1024),
			service.NewBoolField(fieldKeyMetadata).
				Description("Set `paimon_key` on each row of a primary-key table. A value of its own per message makes Benthos copy the message's whole metadata map, which costs more CPU than reading and encoding the row (1–2 µs per row, see docs/benchmarks.md); set false when nothing downstream reads `paimon_key` (files, object stores, a Kafka key taken from the body). Above `rows_per_message` 1 the key is never set.").
				Default(true).
				Advanced(),
			service.NewIntField(fieldRowsPerMessage).
				Description("Rows per message. 1 (the default; 0 means the same) makes each row a message. Above 1, a message holds up to this many consecutive rows of one batch as newline-delimited JSON (one row per line, no newline after the last), for sinks that write rows to files or streams: a `stdout` or `file` output then writes once per message instead of twice per row, and the pipeline's per-message cost (tracing context, message copy, ack bookkeeping) is paid once per message. A message never spans a batch, a split or a change of row kind, so its metadata is exactly that of each of its rows — all of it except `paimon_key`, which is per row and is left out. Acknowledgement is per message: an output that rejects a message gets all of its rows again, and a full batch is at least ⌈`batch_size` / `rows_per_message`⌉ messages. What reaches the consumer file does not change: a snapshot is committed once all of its rows are acknowledged. Processors see a message of several rows as one document; to work on single rows, keep 1. Excludes `batching`.").
				Default(1).
				Advanced(),
			service.NewBatchPolicyField(fieldBatching).
				Description("A standard batching policy, as kafka_franz and the CDC inputs have, applied on top of `batch_size`: a batch ends at `batch_size` rows, when the policy's `count` or `byte_size` is reached or its `check` is true, or at the end of a split, whichever comes first. Batches never wait for rows (a split's rows are all there), so `period` never delays one; `processors` are refused, use the pipeline's. Unset (the default), `batch_size` alone cuts batches.").
				Advanced(),
			service.NewDurationField(fieldCommitPeriod).
				Description("How often acknowledged progress is written to the consumer file; with an `exactly_once` output, the longest a transaction stays open (one also ends with every snapshot).").
				Default("5s").
				Advanced(),
			service.NewDurationField(fieldHeartbeatInterval).
				Description("While idle, rewrite the consumer file this often so Paimon's `consumer.expiration-time` does not expire it. `0s` disables.").
				Default("1m").
				Advanced(),
			service.NewStringAnnotatedEnumField(fieldUpsertMode, map[string]string{
				string(upsertOff):                       "Deliver every row kind.",
				string(upsertDropUpdateBefore):          "Drop `-U` rows, for sinks that upsert by primary key.",
				string(upsertDropUpdateBeforeAndDelete): "Drop `-U` and `-D` rows, for upsert sinks that never delete.",
			}).
				Description("Drop changelog rows an upsert sink does not need. Needs `include_row_kind`; the table must have a primary key (checked on connect). The older underscore spellings (`drop_update_before`) are accepted too.").
				Default(string(upsertOff)).
				LintRule(enumLint([]string{string(upsertOff), string(upsertDropUpdateBefore), string(upsertDropUpdateBeforeAndDelete)})),
			service.NewObjectField(fieldThrottle,
				service.NewDurationField(fieldThrottleInterval).Description("The window the limits apply to.").Default("1s"),
				service.NewIntField(fieldThrottleMaxRows).Description("The most rows per window, 0 for no limit.").Default(0),
				service.NewIntField(fieldThrottleMaxFiles).Description("The most data files opened per window, 0 for no limit.").Default(0),
				service.NewIntField(fieldThrottleMaxSnapshots).Description("The most snapshots started per window, 0 for no limit.").Default(0),
			).
				Description("Rate limits that protect the storage and downstream systems when catching up.").
				Advanced(),
			service.NewIntField(fieldCheckpointLimit).
				Description("The most rows delivered but not yet acknowledged; reading pauses at the limit (or at `checkpoint_limit_bytes`, whichever comes first). The window must cover the output's round trip: an output waiting for its broker's acknowledgement (`kafka_franz` at-least-once) delivers about `checkpoint_limit` rows per round trip. With `group`, the limit is the replica's, shared by the slots it owns. Must be at least `batch_size`.").
				Default(65536).
				Advanced(),
			service.NewIntField(fieldCheckpointLimitBytes).
				Description("The most bytes of message bodies delivered but not yet acknowledged (64 MiB by default), 0 for no byte limit: bounds memory when rows are wide, whatever `checkpoint_limit` allows. With `group`, shared by the replica's slots like `checkpoint_limit`.").
				Default(64<<20).
				Advanced(),
			storageField(),
			groupField(),
			catalogSpec(),
			service.NewAutoRetryNacksToggleField(),
		)...).
		Example("Bounded read of a table", "Reads what the table holds now and exits when done.", `
input:
  paimon:
    warehouse: /data/paimon
    table: sales.orders
    scan_mode: latest-full
    end:
      at_latest: true
output:
  stdout: {}
`).
		Example("Follow a table from a snapshot", "Streams the changes of every snapshot from 42 on, keeping progress in consumer `orders-sync`.", `
input:
  paimon:
    warehouse: s3://my-bucket/warehouse
    table: sales.orders
    consumer_id: orders-sync
    scan_mode: from-snapshot
    snapshot_id: 42
    columns: [ id, amount, dt ]
    filter: "dt >= '2024-06-01'"
output:
  stdout: {}
`).
		Example("Upserts from a primary-key table, sharded", "Replica 0 of 2 forwards the after-image of changed rows; deletes are kept and marked in metadata.", `
input:
  paimon:
    warehouse: s3://my-bucket/warehouse
    table: crm.customers
    consumer_id: customers-replica-0
    upsert_mode: drop-update-before
    shard:
      index: 0
      count: 2
pipeline:
  processors:
    - mapping: |
        meta op = if @paimon_row_kind == "-D" { "delete" } else { "upsert" }
output:
  stdout: {}
`).
		Example("Replicas sharing a table through a Kafka group", "Every replica runs this config; the group's coordinator hands each its slots, and each slot keeps its progress in consumer `orders-to-kafka-slot-<n>`.", `
input:
  paimon:
    warehouse: s3://my-bucket/warehouse
    table: sales.orders
    consumer_id: orders-to-kafka
    group:
      seed_brokers: [ "${KAFKA_BROKERS:localhost:9092}" ]
      slots: 8
output:
  stdout: {}
`)
}

// storageField is the object-store configuration, shaped like Connect's AWS
// fields (region, endpoint, credentials{...}) so a Connect user's S3 config
// carries over.
func storageField() *service.ConfigField {
	return service.NewObjectField(fieldStorage,
		service.NewStringField(fieldStorageRegion).
			Description("The region of the bucket (S3). Empty uses the AWS SDK's chain (`AWS_REGION`, shared config), then `us-east-1`, which S3-compatible stores accept.").
			Default("").
			Example("eu-west-1"),
		service.NewStringField(fieldStorageEndpoint).
			Description("A custom endpoint for S3-compatible stores (MinIO, Ceph, versitygw, OSS's S3 API) or Azure (the blob service URL). A bare `host:port` gets `https://`.").
			Default("").
			Example("http://localhost:9000"),
		service.NewBoolField(fieldStorageForcePathStyle).
			Description("Address buckets as `endpoint/bucket/key` instead of `bucket.endpoint/key`. Most self-hosted S3-compatible stores need it. Named like Connect's `aws_s3` field.").
			Default(false),
		service.NewBoolField(fieldStorageForcePathOld).
			Description("Deprecated spelling of `force_path_style_urls`; either set to true addresses buckets by path.").
			Optional().
			Deprecated(),
		service.NewObjectField(fieldStorageCredentials,
			service.NewStringField(fieldCredProfile).
				Description("A profile from `~/.aws/credentials` / `~/.aws/config` for the default credential chain.").
				Default(""),
			service.NewStringField(fieldCredID).
				Description("The access key id of static credentials. Empty uses the default chain (environment, shared config, SSO, web identity, ECS, EC2 instance role).").
				Default(""),
			service.NewStringField(fieldCredSecret).
				Description("The secret access key of static credentials.").
				Default("").
				Secret(),
			service.NewStringField(fieldCredToken).
				Description("The session token of temporary static credentials.").
				Default("").
				Secret(),
			service.NewStringField(fieldCredRole).
				Description("A role ARN to assume (STS) with the credentials above.").
				Default("").
				Example("arn:aws:iam::123456789012:role/paimon-reader"),
			service.NewStringField(fieldCredRoleExternalID).
				Description("The external id to present when assuming `role`.").
				Default(""),
			service.NewBoolField(fieldCredAnonymous).
				Description("Send unsigned requests, for public buckets (S3 and GCS).").
				Default(false),
			service.NewBoolField(fieldCredFromEC2Role).
				Description("Use the IAM role of the EC2 instance the input runs on (instance metadata only), as Connect's `credentials.from_ec2_role`. Excludes `id`, `secret` and `anonymous`.").
				Default(false),
		).
			Description("How to authenticate to S3, named like Connect's AWS `credentials` fields. Without any of these the AWS SDK's default chain applies. GCS uses the `gcs` fields below, else Application Default Credentials (and honours `anonymous`); Azure uses the `azure` fields below, else the `AZURE_STORAGE_*` environment variables, else its default credential chain."),
		service.NewObjectField(fieldStorageGCS,
			service.NewStringField(fieldGCSCredentialsJSON).
				Description("A Google credentials JSON document (a service-account key, as Connect's `gcp_cloud_storage` `credentials_json`). Empty uses `credentials_file`, else Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud, workload identity).").
				Secret().
				Default(""),
			service.NewStringField(fieldGCSCredentialsFile).
				Description("A file holding a Google credentials JSON document. Excludes `credentials_json`.").
				Default("").
				Example("/etc/paimon/reader-sa.json"),
		).
			Description("Credentials of Google Cloud Storage (`gs://` warehouses).").
			Advanced(),
		service.NewObjectField(fieldStorageAzure,
			service.NewStringField(fieldAzureAccount).
				Description("The storage account (also taken from an `abfs://container@account.dfs.core.windows.net/...` URI).").
				Default(""),
			service.NewStringField(fieldAzureAccessKey).
				Description("The account's shared key.").
				Secret().
				Default(""),
			service.NewStringField(fieldAzureSASToken).
				Description("A SAS token for the container.").
				Secret().
				Default(""),
			service.NewStringField(fieldAzureConnectionString).
				Description("A full connection string; it takes precedence over the other Azure fields.").
				Secret().
				Default(""),
		).
			Description("Credentials of Azure Blob Storage (`azblob://`, `abfs://`, `abfss://` warehouses), named like Connect's `azure_blob_storage` fields.").
			Advanced(),
		service.NewIntField(fieldStorageMaxRetries).
			Description("Retries of one storage operation after a transient failure (5xx, throttling, timeouts, resets, truncated bodies), with exponential backoff and jitter. 0 disables retries.").
			Default(5),
		service.NewDurationField(fieldStorageRequestTimeout).
			Description("The bound of one request attempt, body read included, so a stalled connection is retried instead of hanging the poll loop. 0s disables it.").
			Default("60s"),
	).
		Description("Object-store access for `s3://`, `gs://` and `azblob://` warehouses; ignored for local paths. One flat block whatever the store (the warehouse URL's scheme picks it): the S3 fields at its top as Connect's `aws_s3` names them, `gcs` and `azure` for the others — not Connect iceberg's `storage.aws_s3` / `storage.gcp_cloud_storage` / `storage.azure_blob_storage` nesting, whose bucket the warehouse URL already names. Connect's `tcp` block has no counterpart: Benthos (v4.76) offers no public field for it; `request_timeout` bounds a stalled connection.").
		Advanced()
}

// enumLint is the lint rule of an enum field whose values are spelled with
// hyphens and accepted with underscores (readspec.Canon): Benthos' own
// option lint would flag the other spelling. aliases are accepted too but
// not suggested.
func enumLint(options []string, aliases ...string) string {
	var quoted []string
	for _, o := range append(append([]string(nil), options...), aliases...) {
		quoted = append(quoted, strconv.Quote(o))
	}
	return `root = if ![` + strings.Join(quoted, ", ") + `].contains(this.string().lowercase().replace_all("_", "-")) { [ "value %s is not a valid option (want %s)".format(this.string(), "` + strings.Join(options, ", ") + `") ] }`
}
