package stream

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// StartMode is where a streaming read starts (Java's scan.mode).
type StartMode int

// Start modes.
const (
	// StartLatestFull reads the latest snapshot in full, then every later
	// snapshot's changes. The default.
	StartLatestFull StartMode = iota
	// StartLatest reads only snapshots committed after the start.
	StartLatest
	// StartFromSnapshot reads the changes of the start snapshot and later
	// ones (the start is clamped up to the earliest snapshot, as in Java).
	StartFromSnapshot
	// StartFromSnapshotFull reads the start snapshot in full, then changes.
	StartFromSnapshotFull
	// StartFromTimestamp reads the changes of snapshots committed at or
	// after the start time: it starts after the last snapshot strictly
	// earlier than the time.
	StartFromTimestamp
	// StartCompactedFull reads the newest COMPACT snapshot in full (the
	// latest snapshot when there is none), then changes.
	StartCompactedFull
	// StartFromTag reads the snapshot a tag holds in full, in the schema
	// it was written under, and ends: Java reads scan.tag-name as a batch
	// read of the tag and refuses to stream from it.
	StartFromTag
	// StartDefault is Java's scan.mode=default: the read position the
	// table stores in its options decides, latest-full when it stores
	// none. The table resolves it to one of the modes above.
	StartDefault
)

// startModes spells every mode as Java does, in declaration order;
// "full" (Java's alias) and "" are latest-full.
var startModes = enum[StartMode]{what: "scan mode", names: []string{"latest-full", "latest", "from-snapshot", "from-snapshot-full", "from-timestamp", "compacted-full", "from-tag", "default"}, aliases: []string{"full", ""}}

// String returns Java's spelling of the mode.
func (m StartMode) String() string { return startModes.String(m) }

// Valid reports whether m is one of the declared modes.
func (m StartMode) Valid() bool { return startModes.Valid(m) }

// NeedsSnapshot reports whether the mode starts at a given snapshot.
func (m StartMode) NeedsSnapshot() bool { return m == StartFromSnapshot || m == StartFromSnapshotFull }

// UnmarshalText reads Java's spelling ("full" and "" are aliases of
// latest-full), so a StartMode is read from configuration text as it is
// printed.
func (m *StartMode) UnmarshalText(b []byte) error { return startModes.Unmarshal(m, b) }

// MarshalText prints String's spelling.
func (m StartMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// ExpiredPolicy says what a streaming scan does when the next snapshot it
// needs was expired away.
type ExpiredPolicy int

// Expired policies.
const (
	// ExpiredFail stops with an error naming the consumer, the missing
	// snapshot and the earliest available one. The default: rows were lost.
	ExpiredFail ExpiredPolicy = iota
	// ExpiredEarliest continues from the earliest snapshot's changes.
	ExpiredEarliest
	// ExpiredLatestFull reads the latest snapshot in full, then continues.
	ExpiredLatestFull
)

// expiredPolicies spells the policies; "" is fail, the default.
var expiredPolicies = enum[ExpiredPolicy]{what: "expired policy", names: []string{"fail", "earliest", "latest-full"}, aliases: []string{""}}

// String returns the policy's configuration spelling.
func (p ExpiredPolicy) String() string { return expiredPolicies.String(p) }

// Valid reports whether p is one of the declared policies.
func (p ExpiredPolicy) Valid() bool { return expiredPolicies.Valid(p) }

// UnmarshalText reads "fail" (also ""), "earliest" or "latest-full".
func (p *ExpiredPolicy) UnmarshalText(b []byte) error { return expiredPolicies.Unmarshal(p, b) }

// MarshalText prints String's spelling.
func (p ExpiredPolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// enum spells the values of an int enum whose first value is the default:
// names by value, aliases of the first value.
type enum[T ~int] struct {
	what           string
	names, aliases []string
}

func (e enum[T]) Valid(v T) bool { return v >= 0 && int(v) < len(e.names) }

func (e enum[T]) String(v T) string {
	if e.Valid(v) {
		return e.names[v]
	}
	return fmt.Sprintf("%s(%d)", e.what, int(v))
}

func (e enum[T]) Parse(s string) (T, error) {
	if slices.Contains(e.aliases, s) {
		return 0, nil
	}
	if i := slices.Index(e.names, s); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", e.what, s, strings.Join(e.names, ", "))
}

func (e enum[T]) Unmarshal(dst *T, b []byte) error {
	v, err := e.Parse(string(b))
	if err == nil {
		*dst = v
	}
	return err
}

// ExpiredSkip describes a position that had expired and where the scan
// went instead.
type ExpiredSkip struct {
	// Needed is the snapshot the scan needed next; Earliest and Latest are
	// the table's snapshots when it found out.
	Needed, Earliest, Latest int64
	// Policy is what the scan did: continue from Earliest's changes, or
	// read Latest in full.
	Policy ExpiredPolicy
}

// Skipped is the number of snapshots whose changes were not read.
func (e *ExpiredSkip) Skipped() int64 {
	if e.Policy == ExpiredLatestFull {
		return e.Latest - e.Needed + 1
	}
	return e.Earliest - e.Needed
}

// StartError is a start position of the scan mode (from-snapshot,
// from-snapshot-full) past the table's latest snapshot: from-snapshot may
// start at most at the next snapshot (latest + 1), from-snapshot-full
// needs a snapshot that exists. A permanent error.
type StartError struct {
	Table                   string
	Mode                    StartMode
	Start, Earliest, Latest int64
}

func (e *StartError) Error() string {
	most := fmt.Sprintf("%s starts at most at snapshot %d, the next one", e.Mode, e.Latest+1)
	if e.Mode == StartFromSnapshotFull {
		most = fmt.Sprintf("%s reads a snapshot that exists", e.Mode)
	}
	return fmt.Sprintf("table %s: scan mode %s starts at snapshot %d, but the latest snapshot is %d (the table holds snapshots %d..%d; %s)",
		e.Table, e.Mode, e.Start, e.Latest, e.Earliest, e.Latest, most)
}

// EndPassed ends a scan whose start position is already past its end
// bound: nothing is read. It is io.EOF (errors.Is), the normal end of a
// bounded read, with a message saying why the read was empty; callers log
// it at INFO.
type EndPassed struct {
	Table string
	// Who names where the start came from: the consumer (and its file) or
	// the scan mode.
	Who       string
	Next, End int64
}

func (e *EndPassed) Error() string {
	return fmt.Sprintf("table %s: %s starts at snapshot %d, past the end snapshot %d: nothing to read", e.Table, e.Who, e.Next, e.End)
}

// Is makes an EndPassed io.EOF.
func (e *EndPassed) Is(target error) bool { return target == io.EOF }

// The sentinel errors of a streaming read; the facade re-exports them.
var (
	// ErrExpired: the next snapshot was expired and the policy is
	// ExpiredFail.
	ErrExpired = errors.New("next snapshot has expired")
	// ErrRecreated: the position is beyond latest+1, the table was most
	// likely dropped and recreated.
	ErrRecreated = errors.New("next snapshot is beyond the latest one")
	// ErrConsumerConflict: the consumer file holds a position this scan
	// neither wrote nor resumed from, another writer uses the id.
	ErrConsumerConflict = errors.New("another writer uses this consumer id")
)
