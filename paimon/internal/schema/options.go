package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Option keys the reader consults. Values are strings in the schema file;
// the accessors below apply Java's defaults.
const (
	OptBucket                 = "bucket"
	OptBucketKey              = "bucket-key"
	OptFileFormat             = "file.format"
	OptPartitionDefaultName   = "partition.default-name"
	OptPartitionLegacyName    = "partition.legacy-name"
	OptDataFilePathDirectory  = "data-file.path-directory"
	OptDeletionVectorsEnabled = "deletion-vectors.enabled"
	OptChangelogProducer      = "changelog-producer"
	OptMergeEngine            = "merge-engine"
	OptTableType              = "type"
	OptDataEvolutionEnabled   = "data-evolution.enabled"
	OptRowTrackingEnabled     = "row-tracking.enabled"
	OptIndexFileInDataFileDir = "index-file-in-data-file-dir"
	OptScanFallbackBranch     = "scan.fallback-branch"
	OptScanPrimaryBranch      = "scan.primary-branch"
	OptChainTableEnabled      = "chain-table.enabled"
	OptStreamingReadOverwrite = "streaming-read-overwrite"
	// OptStreamingReadAppendOverwrite is an append table's
	// streaming-read-overwrite (Java refuses the latter without a key).
	OptStreamingReadAppendOverwrite = "streaming-read-append-overwrite"
	OptConsumerExpirationTime       = "consumer.expiration-time"

	OptSnapshotNumRetainedMin  = "snapshot.num-retained.min"
	OptSnapshotNumRetainedMax  = "snapshot.num-retained.max"
	OptSnapshotTimeRetained    = "snapshot.time-retained"
	OptChangelogNumRetainedMin = "changelog.num-retained.min"
	OptChangelogNumRetainedMax = "changelog.num-retained.max"
	OptChangelogTimeRetained   = "changelog.time-retained"
)

// DefaultPartitionName is Java's partition.default-name default: the
// directory value used for NULL partition values.
const DefaultPartitionName = "__DEFAULT_PARTITION__"

// Option returns the option value, or def when it is not set.
func (s *TableSchema) Option(key, def string) string {
	if v, ok := s.Options[key]; ok {
		return v
	}
	return def
}

// BoolOption returns a boolean option ("true"/"false", any case), def when
// unset, and an error naming the option for any other value: guessing would
// silently change what the reader returns.
func (s *TableSchema) BoolOption(key string, def bool) (bool, error) {
	v, ok := s.Options[key]
	if !ok {
		return def, nil
	}
	return parseBool(key, v)
}

// IntOption returns an integer option, def when unset.
func (s *TableSchema) IntOption(key string, def int) (int, error) {
	v, ok := s.Options[key]
	if !ok {
		return def, nil
	}
	return parseInt(key, v)
}

// DurationOption returns a duration option in Java's TimeUtils syntax
// ("30 min", "1d", "500" = milliseconds); ok is false when unset.
func (s *TableSchema) DurationOption(key string) (d time.Duration, ok bool, err error) {
	v, set := s.Options[key]
	if !set {
		return 0, false, nil
	}
	d, err = ParseDuration(v)
	if err != nil {
		return 0, false, fmt.Errorf("option %s: %w", key, err)
	}
	return d, true, nil
}

// boolOpt reads a boolean option Parse has already validated.
func (s *TableSchema) boolOpt(key string, def bool) bool {
	b, err := s.BoolOption(key, def)
	if err != nil {
		return def
	}
	return b
}

// PartitionDefaultName is the partition directory value standing for NULL.
func (s *TableSchema) PartitionDefaultName() string {
	return s.Option(OptPartitionDefaultName, DefaultPartitionName)
}

// PartitionLegacyName reports whether partition directory values use the
// legacy formatting (DATE as day number etc.); default true.
func (s *TableSchema) PartitionLegacyName() bool { return s.boolOpt(OptPartitionLegacyName, true) }

// DataFilePathDirectory is the optional sub-directory of the table holding
// data files ("" when unset).
func (s *TableSchema) DataFilePathDirectory() string { return s.Option(OptDataFilePathDirectory, "") }

// FileFormat is the table's write format (lower case). A reader picks the
// format of each file from its extension; this is only the table default.
func (s *TableSchema) FileFormat() string {
	return strings.ToLower(s.Option(OptFileFormat, "parquet"))
}

// DeletionVectorsEnabled reports option deletion-vectors.enabled.
func (s *TableSchema) DeletionVectorsEnabled() bool {
	return s.boolOpt(OptDeletionVectorsEnabled, false)
}

// ChangelogProducer is "none", "input", "full-compaction" or "lookup".
func (s *TableSchema) ChangelogProducer() string {
	return strings.ToLower(s.Option(OptChangelogProducer, "none"))
}

// MergeEngine is "deduplicate" (default), "partial-update", "aggregation"
// or "first-row".
func (s *TableSchema) MergeEngine() string {
	return strings.ToLower(s.Option(OptMergeEngine, "deduplicate"))
}

// TableType is option type: "table" (default), "materialized-table", or a
// non-Paimon type such as "format-table" or "object-table".
func (s *TableSchema) TableType() string { return strings.ToLower(s.Option(OptTableType, "table")) }

// DataEvolutionEnabled reports option data-evolution.enabled.
func (s *TableSchema) DataEvolutionEnabled() bool { return s.boolOpt(OptDataEvolutionEnabled, false) }

// RowTrackingEnabled reports option row-tracking.enabled.
func (s *TableSchema) RowTrackingEnabled() bool { return s.boolOpt(OptRowTrackingEnabled, false) }

// IndexFileInDataFileDir reports whether index files (deletion vectors)
// live beside the data files instead of in <table>/index.
func (s *TableSchema) IndexFileInDataFileDir() bool {
	return s.boolOpt(OptIndexFileInDataFileDir, false)
}

// ScanFallbackBranch is the branch batch reads pull missing partitions
// from ("" when unset).
func (s *TableSchema) ScanFallbackBranch() string { return s.Option(OptScanFallbackBranch, "") }

// ScanPrimaryBranch is option scan.primary-branch ("" when unset).
func (s *TableSchema) ScanPrimaryBranch() string { return s.Option(OptScanPrimaryBranch, "") }

// ChainTableEnabled reports option chain-table.enabled.
func (s *TableSchema) ChainTableEnabled() bool { return s.boolOpt(OptChainTableEnabled, false) }

// StreamingReadOverwrite reports whether a streaming read emits the
// changes of OVERWRITE commits (default false: they are skipped).
func (s *TableSchema) StreamingReadOverwrite() bool {
	return s.boolOpt(OptStreamingReadOverwrite, false)
}

// StreamingReadAppendOverwrite reports whether a streaming read of an
// append table emits the rows an OVERWRITE snapshot added.
func (s *TableSchema) StreamingReadAppendOverwrite() bool {
	return s.boolOpt(OptStreamingReadAppendOverwrite, false)
}

// ConsumerExpirationTime is option consumer.expiration-time; ok is false
// when unset (consumers never expire).
func (s *TableSchema) ConsumerExpirationTime() (d time.Duration, ok bool) {
	d, ok, err := s.DurationOption(OptConsumerExpirationTime)
	if err != nil {
		return 0, false
	}
	return d, ok
}

// Java's defaults of the snapshot retention options; the changelog ones
// default to them.
const (
	defaultSnapshotNumRetainedMin = 10
	defaultSnapshotNumRetainedMax = math.MaxInt32
	defaultSnapshotTimeRetained   = time.Hour
)

// ChangelogLifecycleDecoupled reports whether changelogs outlive their
// snapshots (Java's CoreOptions.changelogLifecycleDecoupled): a changelog
// retention option exceeds the snapshot one. Java then moves an expiring
// snapshot to changelog/changelog-<id>, and streaming reads continue from
// there, so the reader must look in that directory before it calls a
// position expired.
func (s *TableSchema) ChangelogLifecycleDecoupled() (bool, error) {
	snap, err := s.retention(OptSnapshotNumRetainedMin, OptSnapshotNumRetainedMax, OptSnapshotTimeRetained,
		retained{defaultSnapshotNumRetainedMin, defaultSnapshotNumRetainedMax, defaultSnapshotTimeRetained})
	if err != nil {
		return false, err
	}
	cl, err := s.retention(OptChangelogNumRetainedMin, OptChangelogNumRetainedMax, OptChangelogTimeRetained, snap)
	if err != nil {
		return false, err
	}
	return cl.max > snap.max || cl.time > snap.time || cl.min > snap.min, nil
}

// StatsMayRoundUpMax reports whether the manifest's max statistic of
// column name may be a truncated, rounded-up string (metadata.stats-mode
// or fields.<name>.stats-mode truncate(N); Java's default is truncate(16)).
// Java truncates by UTF-16 code unit and increments the last one, so a
// string whose cut falls on U+D7FF or inside a surrogate pair gets a lone
// surrogate as its last character, which UTF-8 encodes as '?': a max
// smaller than the values it bounds.
// A level's own mode (metadata.stats-mode.per.level, "0:truncate(8),1:full")
// replaces the table's for that level's files; the answer covers every
// level, so a truncating level makes the column's maxima unknown in all.
func (s *TableSchema) StatsMayRoundUpMax(name string) bool {
	truncates := func(mode string) bool {
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(mode)), "truncate")
	}
	if mode, ok := s.Options["fields."+name+".stats-mode"]; ok {
		return truncates(mode)
	}
	if truncates(s.Option("metadata.stats-mode", "truncate(16)")) {
		return true
	}
	// Java's map syntax: "k:v,k:v".
	for _, kv := range strings.Split(s.Option("metadata.stats-mode.per.level", ""), ",") {
		if _, mode, ok := strings.Cut(kv, ":"); ok && truncates(mode) {
			return true
		}
	}
	return false
}

// ParseDuration parses Java Paimon's duration syntax (TimeUtils.parseDuration):
// a non-negative integer followed by an optional unit; no unit means
// milliseconds.
func ParseDuration(text string) (time.Duration, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("duration %q does not start with a number", text)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q: number out of range", text)
	}
	var unit time.Duration
	switch strings.TrimSpace(t[i:]) {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		unit = time.Millisecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		unit = time.Nanosecond
	case "µs", "us", "micro", "micros", "microsecond", "microseconds":
		unit = time.Microsecond
	case "s", "sec", "secs", "second", "seconds":
		unit = time.Second
	case "m", "min", "mins", "minute", "minutes":
		unit = time.Minute
	case "h", "hour", "hours":
		unit = time.Hour
	case "d", "day", "days":
		unit = 24 * time.Hour
	default:
		return 0, fmt.Errorf("duration %q: unknown unit %q", text, strings.TrimSpace(t[i:]))
	}
	if n > int64(1<<63-1)/int64(unit) {
		return 0, fmt.Errorf("duration %q overflows", text)
	}
	return time.Duration(n) * unit, nil
}

// retained is how many snapshots (or changelogs) a table keeps, at least
// and at most, and for how long.
type retained struct {
	min, max int
	time     time.Duration
}

// retention reads one retention triple, each option defaulting to def's.
func (s *TableSchema) retention(minKey, maxKey, timeKey string, def retained) (retained, error) {
	r := def
	var err error
	if r.min, err = s.IntOption(minKey, def.min); err != nil {
		return r, err
	}
	if r.max, err = s.IntOption(maxKey, def.max); err != nil {
		return r, err
	}
	t, ok, err := s.DurationOption(timeKey)
	if ok {
		r.time = t
	}
	return r, err
}

// ReadPosition is the read position a table stores in its options
// (ALTER TABLE SET 'scan.snapshot-id' and the like), where Java's reads
// start unless told otherwise.
type ReadPosition struct {
	// Mode is Java's startup mode for these options (CoreOptions.startupMode):
	// a stored scan.mode, or for "default" the mode the other options imply
	// ("latest-full" when none is stored).
	Mode string
	// SnapshotID (scan.snapshot-id), Tag (scan.tag-name) and Millis
	// (scan.timestamp-millis): at most one is set.
	SnapshotID int64
	Tag        string
	Millis     *int64
	// Stored names the first position option found, "key=value"; "" when
	// the table stores none.
	Stored string
	// Other is a position option beyond the three above (scan.watermark,
	// scan.timestamp, scan.version, creation times, incremental reads), its
	// key; "" when none is stored.
	Other string
}

// readPositionKeys are the options Java starts a read from, the three
// this reader resolves first.
var readPositionKeys = []string{"scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp", "scan.watermark", "scan.version",
	"scan.file-creation-time-millis", "scan.creation-time-millis", "incremental-between", "incremental-between-timestamp", "incremental-to-auto-tag"}

// ReadPosition parses the read position the table stores; malformed
// values and more than one of scan.snapshot-id, scan.tag-name and
// scan.timestamp-millis (Java: "Only one of the following parameters may
// be set") are errors naming the option.
func (s *TableSchema) ReadPosition() (ReadPosition, error) {
	var p ReadPosition
	has := func(k string) bool { _, ok := s.Options[k]; return ok }
	for _, k := range readPositionKeys {
		if has(k) {
			if p.Stored == "" {
				p.Stored = k + "=" + s.Options[k]
			}
			if p.Other == "" && k != "scan.snapshot-id" && k != "scan.tag-name" && k != "scan.timestamp-millis" {
				p.Other = k
			}
		}
	}
	var set []string
	if v, ok := s.Options["scan.snapshot-id"]; ok {
		set = append(set, "scan.snapshot-id")
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || id < 1 {
			return p, fmt.Errorf("option scan.snapshot-id=%s: not a snapshot id", v)
		}
		p.SnapshotID = id
	}
	if v, ok := s.Options["scan.tag-name"]; ok {
		set = append(set, "scan.tag-name")
		p.Tag = v
	}
	if v, ok := s.Options["scan.timestamp-millis"]; ok {
		set = append(set, "scan.timestamp-millis")
		ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return p, fmt.Errorf("option scan.timestamp-millis=%s: not epoch milliseconds", v)
		}
		p.Millis = &ms
	}
	if len(set) > 1 {
		return p, fmt.Errorf("options %s: only one read position may be set", strings.Join(set, ", "))
	}
	p.Mode = strings.ToLower(strings.TrimSpace(s.Option("scan.mode", "default")))
	if mode, ok := s.Options["scan.mode"]; ok && p.Stored == "" && p.Mode != "default" {
		p.Stored = "scan.mode=" + mode
	}
	switch p.Mode {
	case "full":
		p.Mode = "latest-full"
	case "default":
		switch {
		case has("scan.timestamp-millis") || has("scan.timestamp"):
			p.Mode = "from-timestamp"
		case has("scan.snapshot-id") || has("scan.tag-name") || has("scan.watermark") || has("scan.version"):
			p.Mode = "from-snapshot"
		case has("scan.file-creation-time-millis"):
			p.Mode = "from-file-creation-time"
		case has("scan.creation-time-millis"):
			p.Mode = "from-creation-timestamp"
		case has("incremental-between") || has("incremental-between-timestamp"):
			p.Mode = "incremental"
		default:
			p.Mode = "latest-full"
		}
	}
	return p, nil
}
