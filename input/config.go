package input

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// UpsertMode selects which changelog rows are dropped before delivery, for
// sinks that apply rows as upserts keyed by the primary key.
type UpsertMode string

// Upsert modes.
const (
	// UpsertOff delivers every row kind.
	UpsertOff UpsertMode = "off"
	// UpsertDropUpdateBefore drops -U rows: an upsert sink only needs the
	// after-image, and the before-image would be applied as a stale write.
	UpsertDropUpdateBefore UpsertMode = "drop-update-before"
	// UpsertDropUpdateBeforeAndDelete also drops -D rows, for sinks that never
	// delete.
	UpsertDropUpdateBeforeAndDelete UpsertMode = "drop-update-before-and-delete"
)

// canonEnum is the one spelling of the input's enum values (scan_mode,
// on_expired, upsert_mode): lower case with hyphens, as Paimon spells its
// options. The other spelling (underscores, upper case) is accepted.
func canonEnum(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

// Config is the parsed paimon input configuration. It is a plain struct so the
// source adapter can be built and tested without Benthos. Every field holds
// the configured value, defaults included: zero means zero (no heartbeat, no
// throttle limit, no retries), never "use the default".
type Config struct {
	// warn receives what the library recovers from but an operator should
	// hear (set by the input from its logger; not configuration).
	warn func(string)

	Warehouse  string
	Database   string
	Table      string // table name without the database
	Branch     string // "main" unless set
	ConsumerID string // empty: no progress is read or written

	ScanMode       paimon.StartMode
	StartSnapshot  int64     // set for from-snapshot(-full)
	StartTimestamp time.Time // set for from-timestamp

	EndSnapshot int64 // 0: unbounded
	EndAtLatest bool  // stop after the snapshot that is latest at connect time

	PollInterval time.Duration
	Filter       string   // SQL-like predicate, empty: none
	Columns      []string // projection, nil: all columns
	Buckets      []int32  // nil: all buckets
	ShardIndex   int
	ShardCount   int

	IncludeRowKind bool
	BatchSize      int
	// RowsPerMessage is how many rows one message holds: 0 or 1, a message
	// per row (0 so that configs built in code keep working); above 1,
	// newline-delimited bodies.
	RowsPerMessage int
	// OmitKey leaves out the paimon_key metadata (key_metadata: false);
	// inverted so that configs built in code keep the key.
	OmitKey bool
	// Batching is the batching policy applied within batch_size (the zero
	// policy, a no-op, when unset).
	Batching               service.BatchPolicy
	CommitPeriod           time.Duration
	HeartbeatInterval      time.Duration // 0: no heartbeat
	OnExpired              paimon.ExpiredPolicy
	StreamingReadOverwrite bool
	UpsertMode             UpsertMode

	ThrottleInterval     time.Duration
	ThrottleMaxRows      int // 0: unlimited
	ThrottleMaxFiles     int
	ThrottleMaxSnapshots int

	CheckpointLimit int // un-acknowledged rows

	// AutoReplayNacks sends batches the pipeline rejects again (true, the
	// default) instead of dropping them.
	AutoReplayNacks bool

	// Catalog is the catalog field: filesystem (the default) or REST.
	Catalog CatalogConfig

	// Storage configures object-store access (the storage field), ready
	// for paimon.WithStorageOptions. The config's 0 retries and 0s timeout
	// (disabled) are already translated to objstore's negative spelling.
	Storage objstore.Options
}

// FullName is the table as "db.table".
func (c Config) FullName() string { return c.Database + "." + c.Table }

// StreamConfig is the library's description of the streaming read this
// configuration asks for.
func (c Config) StreamConfig() paimon.StreamConfig {
	overwrite := c.StreamingReadOverwrite
	return paimon.StreamConfig{
		StartMode:     c.ScanMode,
		StartSnapshot: c.StartSnapshot,
		StartTime:     c.StartTimestamp,
		EndSnapshot:   c.EndSnapshot,
		EndAtLatest:   c.EndAtLatest,
		Filter:        c.Filter,
		Columns:       c.Columns,
		Buckets:       c.Buckets,
		ShardIndex:    c.ShardIndex,
		ShardCount:    c.ShardCount,
		ConsumerID:    c.ConsumerID,
		OnExpired:     c.OnExpired,
		// The input's default (false) overrides the table option too, as
		// it always has: an OVERWRITE is only replayed when asked for here.
		StreamingReadOverwrite: &overwrite,
		PollInterval:           c.PollInterval,
		IncludeRowKind:         c.IncludeRowKind,
		// Message bodies are encoded by internal/rowjson, which renders
		// dictionary arrays (each entry escaped once per dictionary).
		Dictionary: true,
		// Every snapshot the scan passes becomes a plan, even one it skips
		// (COMPACT) or whose rows this shard does not own: the tracker can
		// then move the consumer past it instead of pinning it at the last
		// snapshot with rows until the next one arrives.
		EmitEmptyPlans: true,
	}
}

// ReadsBucket reports whether this replica owns a bucket: it is in the
// explicit bucket list (if any) and falls in this shard (the library's
// rule, paimon.StreamConfig.ReadsBucket).
func (c Config) ReadsBucket(b int32) bool {
	sc := c.StreamConfig()
	return sc.ReadsBucket(b)
}

// streamFields names the configuration field behind each field of
// paimon.StreamConfig, so the library's validation errors name what the
// user wrote.
var streamFields = map[string]string{
	"StartMode":     fieldScanMode,
	"StartSnapshot": fieldSnapshotID,
	"StartTime":     fieldTimestamp,
	"EndSnapshot":   fieldEnd + "." + fieldEndSnapshotID,
	"EndAtLatest":   fieldEnd + "." + fieldEndAtLatest,
	"Filter":        fieldFilter,
	"Columns":       fieldColumns,
	"Buckets":       fieldBuckets,
	"ShardIndex":    fieldShard + "." + fieldShardIndex,
	"ShardCount":    fieldShard + "." + fieldShardCount,
	"ConsumerID":    fieldConsumerID,
	"OnExpired":     fieldOnExpired,
	"PollInterval":  fieldPollInterval,
	"BatchSize":     fieldBatchSize,
}

// namedField rewrites paimon.FieldErrors (one, or joined by the library's
// Validate) to name the configuration field; other errors pass through.
func namedField(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, namedField(e))
		}
		return errors.Join(out...)
	}
	var fe *paimon.FieldError
	if errors.As(err, &fe) {
		if name, ok := streamFields[fe.Field]; ok {
			return configField{name: name, fe: fe}
		}
	}
	return err
}

// configField names the configuration field of a library FieldError and
// keeps the FieldError in the chain: it marks the error permanent.
type configField struct {
	name string
	fe   *paimon.FieldError
}

func (e configField) Error() string { return "field " + e.name + ": " + e.fe.Err.Error() }
func (e configField) Unwrap() error { return e.fe }

// Fields names the configuration field at fault (for lint's line numbers).
func (e configField) Fields() []string { return []string{e.name} }

// inputFieldError is a problem of the input's own rules. fields[0] is the
// field at fault; the others are the fields of the same rule, where lint
// points when the first is not written in the file (a default).
type inputFieldError struct {
	fields []string
	text   string
}

func (e inputFieldError) Error() string { return e.text }

// Fields names the field at fault first, then the others its rule involves.
func (e inputFieldError) Fields() []string { return e.fields }

func fieldError(name, format string, args ...any) error {
	return inputFieldError{fields: []string{name}, text: "field " + name + ": " + fmt.Sprintf(format, args...)}
}

// ruleError is a cross-field rule's error: at fault first, then the others.
func ruleError(fields []string, format string, args ...any) error {
	return inputFieldError{fields: fields, text: "field " + fields[0] + ": " + fmt.Sprintf(format, args...)}
}

// Validate checks the configuration without touching the table. The rules
// of the streaming read (start position, end bound, shard, buckets,
// consumer id, expired policy) are the library's own
// (paimon.StreamConfig.Validate, which applies consumer.ValidateID); the
// rest are the input's. Every problem is reported (errors.Join), each naming
// its configuration field.
func (c Config) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if strings.TrimSpace(c.Warehouse) == "" && !c.Catalog.REST() {
		add(fieldError(fieldWarehouse, "must not be empty"))
	}
	if c.Database == "" || c.Table == "" || strings.Contains(c.Table, ".") {
		add(fieldError(fieldTable, "%q is not database.table", c.FullName()))
	}
	// Zero means zero in this configuration: a zero shard count or poll
	// interval is an error here, where the library reads it as its default.
	if c.ShardCount < 1 {
		add(fieldError(fieldShard+"."+fieldShardCount, "must be at least 1, got %d", c.ShardCount))
	}
	if c.PollInterval <= 0 {
		add(fieldError(fieldPollInterval, "must be positive, got %s", c.PollInterval))
	}
	if c.BatchSize < 1 {
		add(fieldError(fieldBatchSize, "must be at least 1, got %d", c.BatchSize))
	}
	if c.RowsPerMessage < 0 {
		add(fieldError(fieldRowsPerMessage, "must not be negative, got %d", c.RowsPerMessage))
	} else if c.RowsPerMessage > 1 && !c.Batching.IsNoop() {
		// The policy would have to judge messages that are not built until
		// the batch is cut; batch_size already bounds a batch in rows.
		add(ruleError([]string{fieldRowsPerMessage, fieldBatching}, "rows_per_message %d excludes batching: bound batches with batch_size", c.RowsPerMessage))
	}
	sc := c.StreamConfig()
	if err := sc.Validate(); err != nil {
		// One entry per problem, so lint lists each.
		if joined, ok := namedField(err).(interface{ Unwrap() []error }); ok {
			errs = append(errs, joined.Unwrap()...)
		} else {
			add(namedField(err))
		}
	}
	if c.CommitPeriod <= 0 {
		add(fieldError(fieldCommitPeriod, "must be positive, got %s", c.CommitPeriod))
	}
	if c.HeartbeatInterval < 0 {
		add(fieldError(fieldHeartbeatInterval, "must not be negative"))
	}
	switch c.UpsertMode {
	case UpsertOff:
	case UpsertDropUpdateBefore, UpsertDropUpdateBeforeAndDelete:
		if !c.IncludeRowKind {
			add(ruleError([]string{fieldUpsertMode, fieldIncludeRowKind}, "%s needs include_row_kind: true", c.UpsertMode))
		}
	default:
		add(fieldError(fieldUpsertMode, "unknown mode %q", c.UpsertMode))
	}
	if c.ThrottleInterval <= 0 {
		add(fieldError(fieldThrottle+"."+fieldThrottleInterval, "must be positive"))
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{fieldThrottleMaxRows, c.ThrottleMaxRows},
		{fieldThrottleMaxFiles, c.ThrottleMaxFiles},
		{fieldThrottleMaxSnapshots, c.ThrottleMaxSnapshots},
	} {
		if f.v < 0 {
			add(fieldError(fieldThrottle+"."+f.name, "must not be negative, got %d", f.v))
		}
	}
	if c.CheckpointLimit < c.BatchSize {
		add(ruleError([]string{fieldCheckpointLimit, fieldBatchSize}, "%d is smaller than batch_size %d: a batch could never be delivered", c.CheckpointLimit, c.BatchSize))
	}
	add(validateStorage(c.Storage))
	errs = append(errs, validateCatalog(c.Catalog)...)
	return errors.Join(errs...)
}

// validateStorage checks the credential combinations of the storage field.
func validateStorage(o objstore.Options) error {
	const cred = fieldStorage + "." + fieldStorageCredentials + "."
	if (o.AccessKeyID == "") != (o.SecretAccessKey == "") {
		missing, set := cred+fieldCredSecret, cred+fieldCredID
		if o.AccessKeyID == "" {
			missing, set = set, missing
		}
		return inputFieldError{fields: []string{set, missing}, text: "fields storage.credentials.id and storage.credentials.secret must be set together"}
	}
	if o.RoleExternalID != "" && o.RoleARN == "" {
		return ruleError([]string{cred + fieldCredRoleExternalID}, "needs storage.credentials.role")
	}
	if o.Anonymous && (o.AccessKeyID != "" || o.SessionToken != "" || o.Profile != "" || o.RoleARN != "") {
		return ruleError([]string{cred + fieldCredAnonymous}, "excludes id, secret, token, profile and role")
	}
	if o.FromEC2Role && (o.AccessKeyID != "" || o.Anonymous) {
		return ruleError([]string{cred + fieldCredFromEC2Role}, "excludes id, secret and anonymous")
	}
	if o.GCSCredentialsJSON != "" && o.GCSCredentialsFile != "" {
		gcs := fieldStorage + "." + fieldStorageGCS + "."
		return ruleError([]string{gcs + fieldGCSCredentialsFile, gcs + fieldGCSCredentialsJSON}, "excludes storage.gcs.credentials_json")
	}
	return nil
}

// parseConfig reads a parsed spec into a Config and validates it: lint can
// be bypassed (`run --chilled`, programmatic configs), so the constructor
// applies the same Validate that `connect-paimon lint` does.
func parseConfig(pc *service.ParsedConfig) (Config, error) {
	c, err := readConfig(pc)
	if err != nil {
		return c, err
	}
	return c, c.Validate()
}

// readConfig reads the field values, failing only where a value cannot be
// represented (a malformed time, a bucket id beyond int32, a set snapshot
// id of 0, which the library's StreamConfig spells "unset").
func readConfig(pc *service.ParsedConfig) (Config, error) {
	var c Config
	var err error
	if c.Warehouse, err = pc.FieldString(fieldWarehouse); err != nil {
		return c, err
	}
	full, err := pc.FieldString(fieldTable)
	if err != nil {
		return c, err
	}
	db, tbl, ok := strings.Cut(full, ".")
	if !ok || db == "" || tbl == "" || strings.Contains(tbl, ".") {
		return c, fieldError(fieldTable, "%q is not database.table", full)
	}
	c.Database, c.Table = db, tbl
	if c.Branch, err = pc.FieldString(fieldBranch); err != nil {
		return c, err
	}
	if c.Branch == "" {
		c.Branch = "main"
	}
	if pc.Contains(fieldConsumerID) {
		if c.ConsumerID, err = pc.FieldString(fieldConsumerID); err != nil {
			return c, err
		}
		if c.ConsumerID == "" {
			return c, fieldError(fieldConsumerID, "invalid consumer id: empty")
		}
	}
	mode, err := pc.FieldString(fieldScanMode)
	if err != nil {
		return c, err
	}
	if c.ScanMode, err = paimon.ParseStartMode(canonEnum(mode)); err != nil {
		return c, fieldError(fieldScanMode, "%v", err)
	}
	if pc.Contains(fieldSnapshotID) {
		v, err := pc.FieldInt(fieldSnapshotID)
		if err != nil {
			return c, err
		}
		if v < 1 {
			return c, fieldError(fieldSnapshotID, "must be at least 1, got %d", v)
		}
		c.StartSnapshot = int64(v)
	}
	if pc.Contains(fieldTimestamp) {
		s, err := pc.FieldString(fieldTimestamp)
		if err != nil {
			return c, err
		}
		if c.StartTimestamp, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return c, fieldError(fieldTimestamp, "%q is not RFC 3339: %v", s, err)
		}
	}
	if pc.Contains(fieldEnd) {
		end := pc.Namespace(fieldEnd)
		if c.EndAtLatest, err = end.FieldBool(fieldEndAtLatest); err != nil {
			return c, err
		}
		if end.Contains(fieldEndSnapshotID) {
			v, err := end.FieldInt(fieldEndSnapshotID)
			if err != nil {
				return c, err
			}
			if v < 1 {
				return c, fieldError(fieldEnd+"."+fieldEndSnapshotID, "must be at least 1, got %d", v)
			}
			c.EndSnapshot = int64(v)
		}
	}
	if c.PollInterval, err = pc.FieldDuration(fieldPollInterval); err != nil {
		return c, err
	}
	if pc.Contains(fieldFilter) {
		if c.Filter, err = pc.FieldString(fieldFilter); err != nil {
			return c, err
		}
	}
	if pc.Contains(fieldColumns) {
		if c.Columns, err = pc.FieldStringList(fieldColumns); err != nil {
			return c, err
		}
		if len(c.Columns) == 0 {
			c.Columns = nil
		}
	}
	if pc.Contains(fieldBuckets) {
		bs, err := pc.FieldIntList(fieldBuckets)
		if err != nil {
			return c, err
		}
		for _, b := range bs {
			if b < -1<<31 || b > 1<<31-1 {
				return c, fieldError(fieldBuckets, "bucket %d out of range", b)
			}
			c.Buckets = append(c.Buckets, int32(b))
		}
	}
	shard := pc.Namespace(fieldShard)
	if c.ShardIndex, err = shard.FieldInt(fieldShardIndex); err != nil {
		return c, err
	}
	if c.ShardCount, err = shard.FieldInt(fieldShardCount); err != nil {
		return c, err
	}
	if c.IncludeRowKind, err = pc.FieldBool(fieldIncludeRowKind); err != nil {
		return c, err
	}
	if c.BatchSize, err = pc.FieldInt(fieldBatchSize); err != nil {
		return c, err
	}
	if c.RowsPerMessage, err = pc.FieldInt(fieldRowsPerMessage); err != nil {
		return c, err
	}
	keyMeta, err := pc.FieldBool(fieldKeyMetadata)
	if err != nil {
		return c, err
	}
	c.OmitKey = !keyMeta
	if pc.Contains(fieldBatching) {
		// Batch processors would change messages the input rebuilds from
		// row positions on a replay (deliver.go), so they are refused.
		if procs, err := pc.FieldAnyList(fieldBatching, "processors"); err == nil && len(procs) > 0 {
			return c, fieldError(fieldBatching+".processors", "not supported by the paimon input: use pipeline processors")
		}
		if c.Batching, err = pc.FieldBatchPolicy(fieldBatching); err != nil {
			return c, err
		}
	}
	if c.CommitPeriod, err = pc.FieldDuration(fieldCommitPeriod); err != nil {
		return c, err
	}
	if c.HeartbeatInterval, err = pc.FieldDuration(fieldHeartbeatInterval); err != nil {
		return c, err
	}
	exp, err := pc.FieldString(fieldOnExpired)
	if err != nil {
		return c, err
	}
	if c.OnExpired, err = paimon.ParseExpiredPolicy(canonEnum(exp)); err != nil {
		return c, fieldError(fieldOnExpired, "%v", err)
	}
	if c.StreamingReadOverwrite, err = pc.FieldBool(fieldStreamingReadOverwrite); err != nil {
		return c, err
	}
	um, err := pc.FieldString(fieldUpsertMode)
	if err != nil {
		return c, err
	}
	c.UpsertMode = UpsertMode(canonEnum(um))
	th := pc.Namespace(fieldThrottle)
	if c.ThrottleInterval, err = th.FieldDuration(fieldThrottleInterval); err != nil {
		return c, err
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{fieldThrottleMaxRows, &c.ThrottleMaxRows},
		{fieldThrottleMaxFiles, &c.ThrottleMaxFiles},
		{fieldThrottleMaxSnapshots, &c.ThrottleMaxSnapshots},
	} {
		if *f.dst, err = th.FieldInt(f.name); err != nil {
			return c, err
		}
	}
	if c.CheckpointLimit, err = pc.FieldInt(fieldCheckpointLimit); err != nil {
		return c, err
	}
	if c.AutoReplayNacks, err = pc.FieldBool(service.AutoRetryNacksToggleFieldName); err != nil {
		return c, err
	}
	if c.Catalog, err = readCatalog(pc.Namespace(fieldCatalog)); err != nil {
		return c, err
	}
	if c.Storage, err = readStorage(pc.Namespace(fieldStorage)); err != nil {
		return c, err
	}
	return c, nil
}

// readStorage reads the storage object into objstore.Options. The config
// spells "no retries" and "no timeout" as 0, which Options spells as
// negative (its 0 means "default"); negative config values have no
// spelling in Options and are refused here.
func readStorage(pc *service.ParsedConfig) (objstore.Options, error) {
	var o objstore.Options
	var err error
	if o.Region, err = pc.FieldString(fieldStorageRegion); err != nil {
		return o, err
	}
	if o.Endpoint, err = pc.FieldString(fieldStorageEndpoint); err != nil {
		return o, err
	}
	if o.ForcePathStyle, err = pc.FieldBool(fieldStorageForcePathStyle); err != nil {
		return o, err
	}
	if pc.Contains(fieldStorageForcePathOld) {
		old, err := pc.FieldBool(fieldStorageForcePathOld)
		if err != nil {
			return o, err
		}
		o.ForcePathStyle = o.ForcePathStyle || old
	}
	cred := pc.Namespace(fieldStorageCredentials)
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{fieldCredProfile, &o.Profile},
		{fieldCredID, &o.AccessKeyID},
		{fieldCredSecret, &o.SecretAccessKey},
		{fieldCredToken, &o.SessionToken},
		{fieldCredRole, &o.RoleARN},
		{fieldCredRoleExternalID, &o.RoleExternalID},
	} {
		if *f.dst, err = cred.FieldString(f.name); err != nil {
			return o, err
		}
	}
	if o.Anonymous, err = cred.FieldBool(fieldCredAnonymous); err != nil {
		return o, err
	}
	if o.FromEC2Role, err = cred.FieldBool(fieldCredFromEC2Role); err != nil {
		return o, err
	}
	gcs := pc.Namespace(fieldStorageGCS)
	if o.GCSCredentialsJSON, err = gcs.FieldString(fieldGCSCredentialsJSON); err != nil {
		return o, err
	}
	if o.GCSCredentialsFile, err = gcs.FieldString(fieldGCSCredentialsFile); err != nil {
		return o, err
	}
	az := pc.Namespace(fieldStorageAzure)
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{fieldAzureAccount, &o.StorageAccount},
		{fieldAzureAccessKey, &o.StorageAccessKey},
		{fieldAzureSASToken, &o.StorageSASToken},
		{fieldAzureConnectionString, &o.StorageConnectionString},
	} {
		if *f.dst, err = az.FieldString(f.name); err != nil {
			return o, err
		}
	}
	n, err := pc.FieldInt(fieldStorageMaxRetries)
	if err != nil {
		return o, err
	}
	switch {
	case n < 0:
		return o, fieldError(fieldStorage+"."+fieldStorageMaxRetries, "must not be negative, got %d", n)
	case n == 0:
		o.MaxRetries = -1
	default:
		o.MaxRetries = n
	}
	d, err := pc.FieldDuration(fieldStorageRequestTimeout)
	if err != nil {
		return o, err
	}
	switch {
	case d < 0:
		return o, fieldError(fieldStorage+"."+fieldStorageRequestTimeout, "must not be negative, got %s", d)
	case d == 0:
		o.RequestTimeout = -1
	default:
		o.RequestTimeout = d
	}
	return o, nil
}
