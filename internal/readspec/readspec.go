// Package readspec is the one description of a streaming read's
// configuration as users write it: the paimon input's YAML fields and
// `connect-paimon paimon tail`'s flags are both generated from Fields, read
// by Parse into a paimon.StreamConfig, and validated there once. A field's
// flag is its YAML path with hyphens (end.snapshot_id is --end-snapshot-id),
// so one table serves both and an error names what the user wrote.
package readspec

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// Kind is the type of a field's value.
type Kind int

// Kinds of field values; Values returns them as the Go type named.
const (
	String     Kind = iota // string
	Enum                   // string, one of Options (spelled with hyphens; underscores and upper case accepted)
	Int                    // int
	Bool                   // bool
	Duration               // time.Duration
	StringList             // []string
	IntList                // []int
)

// Field is one configuration field of a streaming read.
type Field struct {
	// Path is the YAML path, dotted for nested objects (end.snapshot_id).
	Path string
	Kind Kind
	// Default is the value when the field is not written; nil: optional
	// (absent means unset).
	Default any
	// Options are an Enum's values with their descriptions, in order;
	// Aliases are other spellings it accepts (Java's deprecated ones).
	Options [][2]string
	Aliases []string
	// Doc is the field's description; Usage the one line of a flag's help.
	Doc, Usage string
	Examples   []any
	Advanced   bool
	// lib is the paimon.StreamConfig field it sets: FieldErrors about it
	// are named by Path.
	lib string
}

// Object is a nested object of fields (end, shard).
type Object struct {
	Name, Doc string
	Advanced  bool
	Optional  bool
}

// Objects describes the objects the dotted paths of Fields nest in.
func Objects() []Object {
	return []Object{
		{Name: "end", Doc: "An optional end bound. When reached the input ends, the pipeline drains and (for `run`) the process exits.", Optional: true},
		{Name: "shard", Doc: "Split the table among replicas: this one reads the buckets with `bucket % count == index`, or, on a bucket-unaware table, the data files whose hash of partition and file name modulo `count` is `index`.", Advanced: true},
	}
}

// Flag is the command-line flag of a field path, without dashes.
func Flag(path string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(path)
}

// Canon is the one spelling of enum values: lower case with hyphens, as
// Paimon spells its options; underscores and upper case are accepted.
func Canon(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

func modeOptions() [][2]string {
	return [][2]string{
		{paimon.StartDefault.String(), "Start where the table's own options say, as Java's streams do: `scan.snapshot-id` (from that snapshot), `scan.timestamp-millis` (from that time) or a stored `scan.mode`; `latest-full` when the table stores no read position. A stored tag or watermark, which Java's streams refuse, is refused."},
		{paimon.StartLatestFull.String(), "Read the whole table at the latest snapshot, then follow new snapshots."},
		{paimon.StartLatest.String(), "Follow snapshots committed after the latest one, without reading existing rows."},
		{paimon.StartFromSnapshot.String(), "Follow snapshots starting at `snapshot_id` (its changes, not its full content)."},
		{paimon.StartFromSnapshotFull.String(), "Read the whole table at `snapshot_id`, then follow later snapshots."},
		{paimon.StartFromTimestamp.String(), "Follow snapshots committed at or after `timestamp`."},
		{paimon.StartCompactedFull.String(), "Read the whole table at the latest compacted snapshot, then follow later snapshots."},
		{paimon.StartFromTag.String(), "Read the whole table at the snapshot of `tag`, in the schema it was written under, then end (as Java reads `scan.tag-name`)."},
	}
}

func expiredOptions() [][2]string {
	return [][2]string{
		{paimon.ExpiredFail.String(), "Fail to connect with an error naming the expired snapshot."},
		{paimon.ExpiredEarliest.String(), "Resume at the earliest snapshot (or long-lived changelog) still present (rows of expired snapshots are lost)."},
		{paimon.ExpiredLatestFull.String(), "Start over with a full scan of the latest snapshot (rows may repeat)."},
	}
}

// Fields lists the streaming read's fields in the order the input's spec
// shows them.
func Fields() []Field {
	return []Field{
		{Path: "consumer_id", Kind: String, lib: "ConsumerID",
			Doc:      "The Paimon consumer whose progress is resumed from and committed to. Without it the input keeps no progress.",
			Usage:    "resume from and commit to this consumer: <table>/consumer/consumer-<id>",
			Examples: []any{"connect-orders"}},
		{Path: "scan_mode", Kind: Enum, Default: paimon.StartDefault.String(), Options: modeOptions(), Aliases: []string{"full"}, lib: "StartMode",
			Doc:   "Where reading starts when the consumer has no stored progress. Stored progress always wins. Spelled with hyphens as Paimon's `scan.mode`; underscores (`latest_full`) are accepted too.",
			Usage: "where reading starts without a consumer position: default (the table's stored position, else latest-full), latest-full, latest, from-snapshot, from-snapshot-full, from-timestamp, compacted-full or from-tag"},
		{Path: "snapshot_id", Kind: Int, lib: "StartSnapshot",
			Doc:   "The first snapshot for `from-snapshot` and `from-snapshot-full`.",
			Usage: "first snapshot of from-snapshot and from-snapshot-full"},
		{Path: "timestamp", Kind: String, lib: "StartTime",
			Doc:      "The start time for `from-timestamp`: RFC 3339 (`2024-06-01T00:00:00Z`), or a date (`2024-06-01`), which is midnight UTC.",
			Usage:    "start time of from-timestamp: RFC 3339, or a date (midnight UTC)",
			Examples: []any{"2024-06-01T00:00:00Z"}},
		{Path: "tag", Kind: String, lib: "StartTag",
			Doc:      "The tag for `from-tag`: the snapshot it holds is read in full, in the schema it was written under (also when the snapshot itself has expired), and the read ends, as Java reads `scan.tag-name` (Java refuses to stream from a tag). To follow the table after a tag, use `from-snapshot-full` with the tag's snapshot; `connect-paimon paimon describe` lists the tags and their snapshots.",
			Usage:    "tag of from-tag: read the snapshot it holds in full, then end",
			Examples: []any{"2024-06-01"}},
		{Path: "end.snapshot_id", Kind: Int, lib: "EndSnapshot",
			Doc:   "Stop after this snapshot has been read.",
			Usage: "stop after this snapshot"},
		{Path: "end.at_latest", Kind: Bool, Default: false, lib: "EndAtLatest",
			Doc:   "Stop after the snapshot that is the latest when the input connects: a bounded read of what exists now.",
			Usage: "stop after the snapshot that is the latest at start"},
		{Path: "poll_interval", Kind: Duration, Default: "5s", lib: "PollInterval",
			Doc:   "How often to look for a new snapshot while caught up.",
			Usage: "wait between looks for a new snapshot"},
		{Path: "filter", Kind: String, lib: "Filter",
			Doc:      "A SQL-like boolean expression over columns, pushed down to skip partitions, files and row groups, then applied to rows. Supports `=`, `!=`, `<`, `<=`, `>`, `>=`, `IN`, `NOT IN`, `IS [NOT] NULL`, `LIKE 'prefix%'`, `BETWEEN`, `AND`, `OR`, `NOT` and parentheses.",
			Usage:    "row filter, e.g. \"region = 'eu' AND amount >= 0\"",
			Examples: []any{"dt = '2024-06-01' AND amount > 100", "region IN ('eu', 'us') OR id IS NULL"}},
		{Path: "columns", Kind: StringList, lib: "Columns",
			Doc:      "Columns to read, in this order. All columns when unset.",
			Usage:    "columns to read, in this order (comma-separated), default all",
			Examples: []any{[]string{"id", "amount", "dt"}}},
		{Path: "buckets", Kind: IntList, lib: "Buckets", Advanced: true,
			Doc:   "Read only these buckets. Combined with `shard`, a bucket is read when it is listed and in this shard.",
			Usage: "read only these buckets (comma-separated)"},
		{Path: "shard.index", Kind: Int, Default: 0, lib: "ShardIndex",
			Doc:   "This replica's index, from 0 to `count - 1`.",
			Usage: "this replica's index, from 0 to shard count - 1"},
		{Path: "shard.count", Kind: Int, Default: 1, lib: "ShardCount",
			Doc:   "How many replicas share the table.",
			Usage: "how many replicas share the table's buckets"},
		{Path: "include_row_kind", Kind: Bool, Default: true, lib: "IncludeRowKind",
			Doc:   "Read each row's change kind into the `paimon_row_kind` metadata. Required by `upsert_mode`.",
			Usage: "read each row's change kind (+I, -U, +U, -D): metadata paimon_row_kind, and tail's \"_row_kind\" key"},
		{Path: "on_expired", Kind: Enum, Default: paimon.ExpiredFail.String(), Options: expiredOptions(), lib: "OnExpired", Advanced: true,
			Doc:   "What to do when the snapshot to resume from no longer exists. Underscores (`latest_full`) are accepted for the hyphens.",
			Usage: "fail, earliest or latest-full when the consumer's next snapshot has expired"},
		{Path: "streaming_read_overwrite", Kind: Bool, Default: false, lib: "StreamingReadOverwrite", Advanced: true,
			Doc:   "Deliver the rows of OVERWRITE snapshots: on a primary-key table the rows an overwrite replaced as `-D` and the rows it wrote as `+I` (Paimon's `streaming-read-overwrite`), on an append table the rows it wrote (Paimon's `streaming-read-append-overwrite`). This field decides, whatever the table's option says; off by default, as in Paimon, because an overwrite rewrites a partition wholesale.",
			Usage: "deliver the rows of OVERWRITE snapshots"},
	}
}

// Values gives the configured value of a field, of the Go type its Kind
// names; set is false for an optional field that is not written (a field
// with a default is always set).
type Values interface {
	Value(f Field) (v any, set bool, err error)
}

// Error is a configuration error about one field or rule; Fields names the
// field at fault first (its Path), then the others the rule involves.
type Error struct {
	fields []string
	text   string
	err    error // the library's FieldError, kept in the chain
}

func (e *Error) Error() string { return e.text }

// Fields names the field at fault first, then the others of its rule.
func (e *Error) Fields() []string { return e.fields }

func (e *Error) Unwrap() error { return e.err }

// Errorf is an error about the field at path; name spells the path as the
// user wrote it (the YAML path, or the flag).
func Errorf(name func(string) string, path, format string, args ...any) error {
	return &Error{fields: []string{path}, text: name(path) + ": " + fmt.Sprintf(format, args...)}
}

// Read reads the fields from v into a StreamConfig. Every problem is
// reported (errors.Join of *Error), each naming its field through name;
// Validate checks the result.
func Read(v Values, name func(path string) string) (paimon.StreamConfig, error) {
	var c paimon.StreamConfig
	var errs []error
	for _, f := range Fields() {
		val, ok, err := v.Value(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			continue
		}
		if err := set(&c, f, val); err != nil {
			errs = append(errs, Errorf(name, f.Path, "%v", err))
		}
	}
	return c, errors.Join(errs...)
}

// Validate checks a configured read with paimon.StreamConfig.Validate, the
// one copy of the library's rules, and returns every problem (errors.Join
// of *Error), each naming its field through name. A configuration states
// every value, so zero means zero: a zero poll interval or shard count is
// an error here, where the library reads it as its default.
func Validate(c paimon.StreamConfig, name func(path string) string) error {
	var errs []error
	if c.PollInterval == 0 {
		errs = append(errs, Errorf(name, "poll_interval", "must be positive, got %s", c.PollInterval))
	}
	if c.ShardCount == 0 {
		errs = append(errs, Errorf(name, "shard.count", "must be at least 1, got %d", c.ShardCount))
	}
	if err := c.Validate(); err != nil {
		errs = append(errs, flatten([]error{Named(err, name)})...)
	}
	return errors.Join(errs...)
}

// Named rewrites the library's FieldErrors in err (one, or joined) to name
// the field as the user wrote it; other errors pass through.
func Named(err error, name func(path string) string) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, Named(e, name))
		}
		return errors.Join(out...)
	}
	var fe *paimon.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	for _, f := range Fields() {
		if f.lib == fe.Field {
			return &Error{fields: []string{f.Path}, text: name(f.Path) + ": " + fe.Err.Error(), err: fe}
		}
	}
	return err
}

func flatten(errs []error) []error {
	var out []error
	for _, e := range errs {
		if joined, ok := e.(interface{ Unwrap() []error }); ok {
			out = append(out, flatten(joined.Unwrap())...)
		} else if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// set stores one field's value; the errors are about the value alone.
func set(c *paimon.StreamConfig, f Field, v any) error {
	var err error
	switch f.lib {
	case "ConsumerID":
		c.ConsumerID = v.(string)
		if c.ConsumerID == "" {
			// Unset is "no consumer"; written empty is a mistake.
			return errors.New("invalid consumer id: empty")
		}
	case "StartMode":
		err = c.StartMode.UnmarshalText([]byte(Canon(v.(string))))
	case "StartSnapshot":
		c.StartSnapshot, err = positive(v.(int))
	case "StartTime":
		c.StartTime, err = ParseTime(v.(string))
	case "StartTag":
		if c.StartTag = v.(string); c.StartTag == "" {
			return errors.New("empty tag name")
		}
	case "EndSnapshot":
		c.EndSnapshot, err = positive(v.(int))
	case "EndAtLatest":
		c.EndAtLatest = v.(bool)
	case "PollInterval":
		c.PollInterval = v.(time.Duration)
	case "Filter":
		c.Filter = v.(string)
	case "Columns":
		if cols := v.([]string); len(cols) > 0 {
			c.Columns = cols
		}
	case "Buckets":
		for _, b := range v.([]int) {
			if b < -1<<31 || b > 1<<31-1 {
				return fmt.Errorf("bucket %d out of range", b)
			}
			c.Buckets = append(c.Buckets, int32(b))
		}
	case "ShardIndex":
		c.ShardIndex = v.(int)
	case "ShardCount":
		c.ShardCount = v.(int)
	case "IncludeRowKind":
		c.IncludeRowKind = v.(bool)
	case "OnExpired":
		err = c.OnExpired.UnmarshalText([]byte(Canon(v.(string))))
	case "StreamingReadOverwrite":
		// Always set: the configured default (false) overrides the table
		// option too, so an OVERWRITE is only replayed when asked for here.
		b := v.(bool)
		c.StreamingReadOverwrite = &b
	default:
		return fmt.Errorf("no StreamConfig field %s", f.lib)
	}
	return err
}

// ParseTime reads a start time as configured: RFC 3339
// (2024-06-01T00:00:00Z, 2024-06-01T02:00:00+02:00) or a plain date
// (2024-06-01), which is midnight UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: want RFC 3339 (2024-06-01T00:00:00Z, 2024-06-01T02:00:00+02:00) or a date (2024-06-01, midnight UTC)", s)
}

// positive is a snapshot id as configured: a set id of 0 would read as
// "unset" in StreamConfig, so it is refused here.
func positive(n int) (int64, error) {
	if n < 1 {
		return 0, fmt.Errorf("must be at least 1, got %d", n)
	}
	return int64(n), nil
}

// Rule is an error of a rule over several fields: fields[0] is at fault,
// the others are where a linter points when it is not written (a default).
func Rule(name func(string) string, fields []string, format string, args ...any) error {
	return &Error{fields: fields, text: name(fields[0]) + ": " + fmt.Sprintf(format, args...)}
}

// Text is an error with the given text about fields (at fault first).
func Text(fields []string, text string) error { return &Error{fields: fields, text: text} }
