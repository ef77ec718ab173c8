// Package exactlyonce is the contract between the paimon input and an output
// that commits transactionally (kafka_franz with exactly_once): the input
// decides where a transaction ends and what read position it completes, the
// output commits the rows and that position atomically, and after a restart
// the input resumes from the position the output last committed.
//
// The two components find each other through the stream's resources: the
// output registers its Committer when it is built, and the input looks it
// up when it connects — Benthos builds every component of a stream before it
// connects any, so the lookup never races the registration.
package exactlyonce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// Metadata keys the input sets on every message of an exactly-once read, so
// the output knows whose transaction a message belongs to.
const (
	MetaTable    = "paimon_table"
	MetaConsumer = "paimon_consumer"
	// MetaPosition is the position of a message's first row, set when
	// the committer keys its writes by position (Keyed): snapshot, plan
	// kind, split and row, zero-padded so that keys sort in read order.
	MetaPosition = "paimon_position"
)

// SplitKey is the start of a MetaPosition: the plan of snapshot (its full
// read or its changes) and the split.
func SplitKey(snapshot int64, full bool, split int) string {
	kind := "c"
	if full {
		kind = "f"
	}
	return fmt.Sprintf("%010d-%s-%06d-", snapshot, kind, split)
}

// RowKey ends a MetaPosition: the row's index in its split.
func RowKey(row int64) string { return fmt.Sprintf("%012d", row) }

// Keyed is implemented by a Committer whose writes are not transactional
// but idempotent: each write's key derives from the position of its first
// row (MetaPosition), so rows read again after a crash overwrite what the
// first attempt wrote instead of adding to it.
type Keyed interface {
	KeysByPosition() bool
}

// Key names one unit of progress: a consumer of a table (a group's slot is a
// consumer of its own). One transactional producer serves one key.
type Key struct {
	Table    string // db.table
	Consumer string // the consumer id (a slot's: <id>-slot-<n>)
}

func (k Key) String() string { return k.Table + "/" + k.Consumer }

// Position is how far the committed rows of a key reach in the sequence the
// input reads: the plan of Snapshot (its full read when Full, else its
// changes), its splits in plan order and their rows in read order — the
// order a re-read of the same plan repeats.
type Position struct {
	Snapshot int64 `json:"snapshot"`
	Full     bool  `json:"full,omitempty"`
	// Done: every row of the plan is committed; Split and Rows are unused.
	Done bool `json:"done,omitempty"`
	// Split is the index of the first split not wholly committed, Rows how
	// many of its rows are, and File its first data file (checked when the
	// plan is read again, so a plan that changed fails instead of skipping
	// the wrong rows).
	Split int    `json:"split"`
	Rows  int64  `json:"rows"`
	File  string `json:"file,omitempty"`
}

// NextSnapshot is the Paimon consumer position the committed rows justify:
// the consumer file may lag the transactional position but never lead it.
// ok is false while a full read is incomplete — a consumer position cannot
// say "part of a full read", and writing one would skip its rest.
func (p Position) NextSnapshot() (next int64, ok bool) {
	switch {
	case p.Done:
		return p.Snapshot + 1, true
	case p.Full:
		return 0, false
	default:
		return p.Snapshot, true
	}
}

func (p Position) String() string {
	kind := "changes"
	if p.Full {
		kind = "full read"
	}
	if p.Done {
		return fmt.Sprintf("snapshot %d (%s) complete", p.Snapshot, kind)
	}
	return fmt.Sprintf("snapshot %d (%s), split %d, %d rows", p.Snapshot, kind, p.Split, p.Rows)
}

// Record is a committed position as a committer stores it (JSON): the key
// spelled out, so a stored record is checked against the key it is read
// for, and the time of the commit, for people reading it.
type Record struct {
	Table    string `json:"table"`
	Consumer string `json:"consumer"`
	Position
	Time int64 `json:"time"` // Unix milliseconds
}

// EncodeRecord is the stored record of pos committed for k now.
func EncodeRecord(k Key, pos Position) ([]byte, error) {
	return json.Marshal(Record{Table: k.Table, Consumer: k.Consumer, Position: pos, Time: time.Now().UnixMilli()})
}

// ParseRecord decodes a stored record of k; a record that does not decode,
// names another key or holds an impossible position wraps ErrConfig.
func ParseRecord(k Key, b []byte) (Position, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Position{}, fmt.Errorf("%w: corrupt position %q of %s: %w", ErrConfig, b, k, err)
	}
	if r.Table != k.Table || r.Consumer != k.Consumer || r.Snapshot < 1 || r.Split < 0 || r.Rows < 0 {
		return Position{}, fmt.Errorf("%w: position %q is not one of %s or is out of range", ErrConfig, b, k)
	}
	return r.Position, nil
}

// Committer is the transactional side. Calls for one key never overlap each
// other, and no message of the key is being written while Commit, Abort or
// Release runs for it (the input waits for every acknowledgement first).
// An acknowledged message of the key is in its open transaction, not yet
// committed.
type Committer interface {
	// Resume takes ownership of key — fencing any earlier owner, whose open
	// transaction is aborted — and returns its last committed position
	// (ok false: none).
	Resume(ctx context.Context, key Key) (pos Position, ok bool, err error)
	// Commit commits the key's open transaction with pos as its position.
	// On error the transaction may or may not be committed: the caller
	// aborts and resumes from what Resume returns.
	Commit(ctx context.Context, key Key, pos Position) error
	// Abort discards the key's open transaction.
	Abort(ctx context.Context, key Key) error
	// Release gives up the key (a group slot revoked), after a Commit.
	Release(ctx context.Context, key Key) error
}

// ErrFenced is returned (wrapped) when another owner took the key over: this
// one must stop reading it.
var ErrFenced = errors.New("another owner took over the transactional producer")

// ErrConfig is wrapped by errors no retry mends: a progress topic the
// output cannot use, say. The input stops on them.
var ErrConfig = errors.New("exactly_once cannot work with this configuration")

// Enabled returns the namespace of an output's exactly_once object field
// when it is present with enabled: true (nil otherwise).
func Enabled(conf *service.ParsedConfig, field string) (*service.ParsedConfig, error) {
	if !conf.Contains(field) {
		return nil, nil
	}
	ns := conf.Namespace(field)
	if on, err := ns.FieldBool("enabled"); err != nil || !on {
		return nil, err
	}
	return ns, nil
}

type registryKey struct{}

// Register makes c the stream's committer; a second one is refused (one
// transactional output per stream).
func Register(res *service.Resources, c Committer) error {
	if _, loaded := res.GetOrSetGeneric(registryKey{}, c); loaded {
		return errors.New("exactly_once: a stream may have one transactional output")
	}
	return nil
}

// Lookup returns the stream's committer, nil when its output is not
// transactional.
func Lookup(res *service.Resources) Committer {
	if res == nil {
		return nil
	}
	v, ok := res.GetGeneric(registryKey{})
	if !ok {
		return nil
	}
	c, _ := v.(Committer)
	return c
}
