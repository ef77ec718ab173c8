package input

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/readspec"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// upsertMode selects which changelog rows are dropped before delivery, for
// sinks that apply rows as upserts keyed by the primary key.
type upsertMode string

// Upsert modes.
const (
	// upsertOff delivers every row kind.
	upsertOff upsertMode = "off"
	// upsertDropUpdateBefore drops -U rows: an upsert sink only needs the
	// after-image, and the before-image would be applied as a stale write.
	upsertDropUpdateBefore upsertMode = "drop-update-before"
	// upsertDropUpdateBeforeAndDelete also drops -D rows, for sinks that never
	// delete.
	upsertDropUpdateBeforeAndDelete upsertMode = "drop-update-before-and-delete"
)

// config is the parsed paimon input configuration. It is a plain struct so the
// source adapter can be built and tested without Benthos. Every field holds
// the configured value, defaults included: zero means zero (no heartbeat, no
// throttle limit, no retries), never "use the default".
type config struct {
	// warn receives what the library recovers from but an operator should
	// hear (set by the input from its logger; not configuration).
	warn func(string)

	Warehouse string
	Database  string
	Table     string // table name without the database
	Branch    string // "main" unless set

	// Read is the streaming read: start, end, filter, columns, buckets,
	// shard, consumer, row kinds, poll interval, expired policy (the
	// fields internal/readspec describes, for this input and for tail).
	Read paimon.StreamConfig

	BatchSize int
	// RowsPerMessage is how many rows one message holds: 0 or 1, a message
	// per row (0 so that configs built in code keep working); above 1,
	// newline-delimited bodies.
	RowsPerMessage int
	// OmitKey leaves out the paimon_key metadata (key_metadata: false);
	// inverted so that configs built in code keep the key.
	OmitKey bool
	// Batching is the batching policy applied within batch_size (the zero
	// policy, a no-op, when unset).
	Batching          service.BatchPolicy
	CommitPeriod      time.Duration
	HeartbeatInterval time.Duration // 0: no heartbeat
	UpsertMode        upsertMode

	ThrottleInterval     time.Duration
	ThrottleMaxRows      int // 0: unlimited
	ThrottleMaxFiles     int
	ThrottleMaxSnapshots int

	CheckpointLimit      int   // un-acknowledged rows
	CheckpointLimitBytes int64 // un-acknowledged body bytes, 0: no limit

	// AutoReplayNacks sends batches the pipeline rejects again (true, the
	// default) instead of dropping them.
	AutoReplayNacks bool

	// Catalog is the catalog field: filesystem (the default) or REST.
	Catalog catalogConfig

	// Group, when set, shares the table among replicas through a Kafka
	// consumer group (group.go).
	Group *groupConfig
	// fence, when set, must accept a consumer position before it is
	// written: a slot's reader checks it still owns the slot (not
	// configuration).
	fence func(ctx context.Context, next int64) error
	// mirrorConsumer, set under exactly once (not configuration): the
	// consumer file only mirrors the position committed in Kafka, whose
	// transactional fencing decides which pipeline owns the consumer, so
	// the file is written without the check that it still holds this
	// reader's last position. A fenced pipeline's late write only moves it
	// back, which keeps more snapshots from expiring, never fewer.
	mirrorConsumer bool
	// alloc, when set, is the Arrow allocator of the reads: the slot
	// readers of one replica share one pool, so that a slot's first file
	// reuses what the others freed (not configuration).
	alloc memory.Allocator
	// window, when set, is the delivery window the reader takes its share
	// of: the slot readers of one replica share one, so checkpoint_limit
	// bounds the replica (not configuration).
	window *window
	// splitReaders, when set, is the semaphore a split's reader holds
	// while the split is open: the slot readers of one replica read as
	// many splits at a time as it has cores, not one each (not
	// configuration).
	splitReaders chan struct{}
	// meta, when set, is the metadata cache of the table's reads: the slot
	// readers of one replica plan the same snapshots, each for its share
	// of the files, and decode each manifest once between them (not
	// configuration).
	meta *paimon.MetadataCache

	// Storage configures object-store access (the storage field), ready
	// for paimon.WithStorageOptions. The config's 0 retries and 0s timeout
	// (disabled) are already translated to objstore's negative spelling.
	Storage objstore.Options
}

// FullName is the table as "db.table".
func (c config) FullName() string { return c.Database + "." + c.Table }

// streamConfig is the read the input opens: Read, with what the input's
// delivery needs of it.
func (c config) streamConfig() paimon.StreamConfig {
	sc := c.Read
	// Message bodies are encoded by internal/rowjson, which renders
	// dictionary arrays (each entry escaped once per dictionary).
	sc.Dictionary = true
	// JSON has no range limit: TIMESTAMP(7..9) values of years 0001..9999
	// are rendered exactly instead of failing the read beyond 1677..2262.
	sc.WideTimestamps = true
	// Every snapshot the scan passes becomes a plan, even one it skips
	// (COMPACT) or whose rows this shard does not own: the tracker can
	// then move the consumer past it instead of pinning it at the last
	// snapshot with rows until the next one arrives.
	sc.EmitEmptyPlans = true
	return sc
}

// yamlField spells a field path as the input's errors name it.
func yamlField(path string) string { return "field " + path }

// fieldError is an error of the input's own rules about one field.
func fieldError(name, format string, args ...any) error {
	return readspec.Errorf(yamlField, name, format, args...)
}

// ruleError is a cross-field rule's error: at fault first, then the others.
func ruleError(fields []string, format string, args ...any) error {
	return readspec.Rule(yamlField, fields, format, args...)
}

// Validate checks the configuration without touching the table. The rules
// of the streaming read (start position, end bound, shard, buckets,
// consumer id, expired policy) are readspec.Validate's, the same for tail;
// the rest are the input's. Every problem is reported (errors.Join), each naming
// its configuration field.
func (c config) Validate() error {
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
	errs = append(errs, c.validateGroup()...)
	if err := readspec.Validate(c.Read, yamlField); err != nil {
		// One entry per problem, so lint lists each.
		errs = append(errs, err.(interface{ Unwrap() []error }).Unwrap()...)
	}
	if c.CommitPeriod <= 0 {
		add(fieldError(fieldCommitPeriod, "must be positive, got %s", c.CommitPeriod))
	}
	if c.HeartbeatInterval < 0 {
		add(fieldError(fieldHeartbeatInterval, "must not be negative"))
	}
	switch c.UpsertMode {
	case upsertOff:
	case upsertDropUpdateBefore, upsertDropUpdateBeforeAndDelete:
		if !c.Read.IncludeRowKind {
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
	if c.CheckpointLimitBytes < 0 {
		add(fieldError(fieldCheckpointLimitBytes, "must be 0 (no limit) or positive, got %d", c.CheckpointLimitBytes))
	}
	if c.CheckpointLimit < c.BatchSize {
		add(ruleError([]string{fieldCheckpointLimit, fieldBatchSize}, "%d is smaller than batch_size %d: the window must hold a whole batch", c.CheckpointLimit, c.BatchSize))
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
		return readspec.Text([]string{set, missing}, "fields storage.credentials.id and storage.credentials.secret must be set together")
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
func parseConfig(pc *service.ParsedConfig) (config, error) {
	c, err := readConfig(pc)
	if err != nil {
		return c, err
	}
	return c, c.Validate()
}

// readConfig reads the field values, failing only where a value cannot be
// represented (a malformed time, a bucket id beyond int32, a set snapshot
// id of 0, which the library's StreamConfig spells "unset").

// parsedValues are the streaming read's fields (readspec.Fields) as the
// parsed Benthos config holds them.
type parsedValues struct{ pc *service.ParsedConfig }

func (p parsedValues) Value(f readspec.Field) (any, bool, error) {
	path := strings.Split(f.Path, ".")
	if !p.pc.Contains(path...) {
		return nil, false, nil
	}
	var v any
	var err error
	switch f.Kind {
	case readspec.String, readspec.Enum:
		v, err = p.pc.FieldString(path...)
	case readspec.Int:
		v, err = p.pc.FieldInt(path...)
	case readspec.Bool:
		v, err = p.pc.FieldBool(path...)
	case readspec.Duration:
		v, err = p.pc.FieldDuration(path...)
	case readspec.StringList:
		v, err = p.pc.FieldStringList(path...)
	case readspec.IntList:
		v, err = p.pc.FieldIntList(path...)
	}
	return v, err == nil, err
}

func readConfig(pc *service.ParsedConfig) (config, error) {
	var c config
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
	if c.Read, err = readspec.Read(parsedValues{pc}, yamlField); err != nil {
		return c, err
	}
	if err = readTyped(pc.FieldInt, into(fieldBatchSize, &c.BatchSize), into(fieldRowsPerMessage, &c.RowsPerMessage),
		into(fieldCheckpointLimit, &c.CheckpointLimit)); err != nil {
		return c, err
	}
	limitBytes, err := pc.FieldInt(fieldCheckpointLimitBytes)
	if err != nil {
		return c, err
	}
	c.CheckpointLimitBytes = int64(limitBytes)
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
	if err = readTyped(pc.FieldDuration, into(fieldCommitPeriod, &c.CommitPeriod), into(fieldHeartbeatInterval, &c.HeartbeatInterval)); err != nil {
		return c, err
	}
	um, err := pc.FieldString(fieldUpsertMode)
	if err != nil {
		return c, err
	}
	c.UpsertMode = upsertMode(readspec.Canon(um))
	th := pc.Namespace(fieldThrottle)
	if c.ThrottleInterval, err = th.FieldDuration(fieldThrottleInterval); err != nil {
		return c, err
	}
	if err := readTyped(th.FieldInt, into(fieldThrottleMaxRows, &c.ThrottleMaxRows),
		into(fieldThrottleMaxFiles, &c.ThrottleMaxFiles), into(fieldThrottleMaxSnapshots, &c.ThrottleMaxSnapshots)); err != nil {
		return c, err
	}
	if c.AutoReplayNacks, err = pc.FieldBool(service.AutoRetryNacksToggleFieldName); err != nil {
		return c, err
	}
	if c.Catalog, err = readCatalog(pc.Namespace(fieldCatalog)); err != nil {
		return c, err
	}
	if c.Group, err = readGroup(pc); err != nil {
		return c, err
	}
	if c.Storage, err = readStorage(pc.Namespace(fieldStorage)); err != nil {
		return c, err
	}
	return c, nil
}

// field is a configuration field and where its value goes.
type field[T any] struct {
	name string
	dst  *T
}

func into[T any](name string, dst *T) field[T] { return field[T]{name, dst} }

// readTyped reads fields of one type with read (a ParsedConfig's
// FieldString, FieldInt...), stopping at the first error.
func readTyped[T any](read func(path ...string) (T, error), fs ...field[T]) error {
	for _, f := range fs {
		v, err := read(f.name)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	return nil
}

// offAsNegative turns a storage field's "0 disables" into objstore's
// negative spelling (its 0 means "default"); a negative value has no
// spelling there and is refused.
func offAsNegative[T int | time.Duration](v T, name string) (T, error) {
	switch {
	case v < 0:
		return 0, fieldError(fieldStorage+"."+name, "must not be negative, got %v", v)
	case v == 0:
		return -1, nil
	}
	return v, nil
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
	gcs := pc.Namespace(fieldStorageGCS)
	az := pc.Namespace(fieldStorageAzure)
	for _, err := range []error{
		readTyped(cred.FieldString, into(fieldCredProfile, &o.Profile), into(fieldCredID, &o.AccessKeyID),
			into(fieldCredSecret, &o.SecretAccessKey), into(fieldCredToken, &o.SessionToken),
			into(fieldCredRole, &o.RoleARN), into(fieldCredRoleExternalID, &o.RoleExternalID)),
		readTyped(cred.FieldBool, into(fieldCredAnonymous, &o.Anonymous), into(fieldCredFromEC2Role, &o.FromEC2Role)),
		readTyped(gcs.FieldString, into(fieldGCSCredentialsJSON, &o.GCSCredentialsJSON), into(fieldGCSCredentialsFile, &o.GCSCredentialsFile)),
		readTyped(az.FieldString, into(fieldAzureAccount, &o.StorageAccount), into(fieldAzureAccessKey, &o.StorageAccessKey),
			into(fieldAzureSASToken, &o.StorageSASToken), into(fieldAzureConnectionString, &o.StorageConnectionString)),
	} {
		if err != nil {
			return o, err
		}
	}
	n, err := pc.FieldInt(fieldStorageMaxRetries)
	if err != nil {
		return o, err
	}
	if o.MaxRetries, err = offAsNegative(n, fieldStorageMaxRetries); err != nil {
		return o, err
	}
	d, err := pc.FieldDuration(fieldStorageRequestTimeout)
	if err != nil {
		return o, err
	}
	if o.RequestTimeout, err = offAsNegative(d, fieldStorageRequestTimeout); err != nil {
		return o, err
	}
	return o, nil
}
