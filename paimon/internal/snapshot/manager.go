package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/fileutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Hint file names in snapshot/. They hold a decimal id and may lag behind
// the snapshot files (written after them, best effort).
const (
	LatestHint   = "LATEST"
	EarliestHint = "EARLIEST"
)

// hintReadAttempts mirrors Java's HintFileUtils retry count for transient
// read errors before it falls back to listing.
const hintReadAttempts = 3

// earliestRetries bounds how far Earliest walks upward when expiration
// deletes snapshots while it reads (Java's EARLIEST_SNAPSHOT_DEFAULT_RETRY_NUM).
const earliestRetries = 300

// File name prefixes of the two directories a Manager can read.
const (
	snapshotPrefix  = "snapshot-"
	changelogPrefix = "changelog-"
)

// branchRoot returns the metadata root of a branch: the table root for the
// main branch (blank or "main"), else <root>/branch/branch-<name>. A
// non-blank name is not trimmed, as in Java.
func branchRoot(tableRoot, branch string) string {
	if strings.TrimSpace(branch) == "" || branch == "main" {
		return tableRoot
	}
	return fileio.Join(tableRoot, "branch", "branch-"+branch)
}

// Manager reads the snapshots of one branch of a table, or, made by
// NewChangelogManager, its long-lived changelogs. It keeps no state:
// snapshot files can be expired or, after a rollback, replaced, so every
// call looks at storage. It is safe for concurrent use.
type Manager struct {
	fio    fileio.FileIO
	dir    string
	prefix string // snapshotPrefix or changelogPrefix
	// warn, when set, is told about a hint file that exists but cannot be
	// used (the snapshot is then found by listing).
	warn func(msg string)
	// latest, when set, is asked for the newest snapshot instead of the
	// directory (WithLatestLoader).
	latest LatestLoader
}

// LatestLoader returns the newest snapshot of a branch from somewhere other
// than its directory — a REST catalog that manages snapshots (Java's
// SnapshotLoader); ok is false when the branch has none.
type LatestLoader func(ctx context.Context) (s *Snapshot, ok bool, err error)

// WithLatestLoader makes Latest and LatestID ask load, as Java's
// SnapshotManager asks its catalog's SnapshotLoader: where a catalog
// commits snapshots, the catalog (not a LATEST hint or a listing) is the
// authority on which one is newest. Snapshots by id, the earliest one and
// time travel still read the directory, as in Java. It returns m.
func (m *Manager) WithLatestLoader(load LatestLoader) *Manager {
	m.latest = load
	return m
}

// WithWarnings makes the manager report hint files it has to ignore to
// warn, so a corrupt LATEST or EARLIEST hint is fallen back from loudly.
// It returns m.
func (m *Manager) WithWarnings(warn func(msg string)) *Manager {
	m.warn = warn
	return m
}

// NewManager returns a Manager for branch ("" or "main" for the main
// branch) of the table at tableRoot.
func NewManager(fio fileio.FileIO, tableRoot, branch string) *Manager {
	return &Manager{fio: fio, dir: fileio.Join(branchRoot(tableRoot, branch), "snapshot"),
		prefix: snapshotPrefix}
}

// NewChangelogManager returns a Manager for the long-lived changelogs of
// branch: <branch root>/changelog/changelog-<id>, which Java writes when a
// snapshot expires while its changelog is retained longer (options
// changelog.num-retained.* / changelog.time-retained beyond the snapshot
// ones). A changelog file is the expired snapshot's JSON, so every method
// of Manager applies; its base manifest list is gone, only the delta and
// changelog lists remain readable. Its hints live in the changelog
// directory under the same names as snapshot hints.
func NewChangelogManager(fio fileio.FileIO, tableRoot, branch string) *Manager {
	return &Manager{fio: fio, dir: fileio.Join(branchRoot(tableRoot, branch), "changelog"),
		prefix: changelogPrefix}
}

// Dir is the snapshot (or changelog) directory this Manager reads.
func (m *Manager) Dir() string { return m.dir }

// what names the files in errors.
func (m *Manager) what() string {
	if m.prefix == changelogPrefix {
		return "changelog"
	}
	return "snapshot"
}

// SnapshotPath returns the path of snapshot-<id> (changelog-<id>).
func (m *Manager) SnapshotPath(id int64) string {
	return fileio.Join(m.dir, m.prefix+strconv.FormatInt(id, 10))
}

// Snapshot reads snapshot-<id> (changelog-<id>). A missing file is an error
// wrapping fileio.ErrNotExist that names the path.
func (m *Manager) Snapshot(ctx context.Context, id int64) (*Snapshot, error) {
	path := m.SnapshotPath(id)
	data, err := m.fio.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", m.what(), path, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", m.what(), path, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("read %s %s: file holds snapshot id %d: %w", m.what(), path, s.ID, types.ErrCorrupt)
	}
	return s, nil
}

// Exists reports whether snapshot-<id> (changelog-<id>) exists, with one
// Exists call.
func (m *Manager) Exists(ctx context.Context, id int64) (bool, error) {
	path := m.SnapshotPath(id)
	ok, err := m.fio.Exists(ctx, path)
	if err != nil {
		return false, fmt.Errorf("check %s %s: %w", m.what(), path, err)
	}
	return ok, nil
}

// ListIDs returns the ids of all snapshot (changelog) files in ascending
// order, ignoring temp files and any name that is not exactly
// snapshot-<n> (changelog-<n>).
func (m *Manager) ListIDs(ctx context.Context) ([]int64, error) {
	return fileutil.ListVersioned(ctx, m.fio, m.dir, m.prefix, m.what()+"s")
}

// readHint returns the id in snapshot/<name>, ok false when the hint is
// missing, unreadable after retries or not a positive number: a hint is
// never trusted enough to fail a read.
func (m *Manager) readHint(ctx context.Context, name string) (int64, bool) {
	path := fileio.Join(m.dir, name)
	var last error
	for attempt := 0; attempt < hintReadAttempts; attempt++ {
		if ctx.Err() != nil {
			return 0, false
		}
		data, err := m.fio.ReadFile(ctx, path)
		if err != nil {
			if fileio.IsNotExist(err) {
				return 0, false
			}
			last = err
			continue
		}
		text := strings.TrimSpace(string(data))
		if text == "" {
			// A writer that overwrites the hint in place (pypaimon, Java on
			// file systems without atomic rename) leaves it empty for a
			// moment: listing is the normal answer, not a warning.
			return 0, false
		}
		id, err := strconv.ParseInt(text, 10, 64)
		if err != nil || id <= 0 {
			m.warnf("%s hint %s holds %q, not a snapshot id; finding the %s by listing %s", m.what(), path, truncate(data), m.what(), m.dir)
			return 0, false
		}
		return id, true
	}
	m.warnf("%s hint %s unreadable after %d attempts (%v); finding the %s by listing %s", m.what(), path, hintReadAttempts, last, m.what(), m.dir)
	return 0, false
}

func (m *Manager) warnf(format string, args ...any) {
	if m.warn != nil {
		m.warn(fmt.Sprintf(format, args...))
	}
}

// truncate keeps a hint's content short enough for a log line.
func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// LatestID returns the id of the newest snapshot; ok is false when the
// branch has none. The LATEST hint is used when snapshot-<hint> exists and
// snapshot-<hint+1> does not (the hint is written after the snapshot and can
// lag); otherwise the directory is listed.
func (m *Manager) LatestID(ctx context.Context) (int64, bool, error) {
	if m.latest != nil {
		s, ok, err := m.latest(ctx)
		if err != nil || !ok {
			return 0, false, err
		}
		return s.ID, true, nil
	}
	return m.hintedID(ctx, LatestHint, true, func(h int64) (bool, error) {
		next, err := m.Exists(ctx, h+1)
		if err != nil || next {
			return false, err
		}
		return m.Exists(ctx, h)
	})
}

// EarliestID returns the id of the oldest snapshot; ok is false when the
// branch has none. The EARLIEST hint is used when that snapshot exists
// (expiration deletes snapshots before rewriting it); otherwise the
// directory is listed.
func (m *Manager) EarliestID(ctx context.Context) (int64, bool, error) {
	return m.hintedID(ctx, EarliestHint, false, func(h int64) (bool, error) { return m.Exists(ctx, h) })
}

// hintedID returns the snapshot id in the hint file when trust says it can
// be used, and otherwise lists the directory and returns its last id (last)
// or its first: hints are written after the snapshots and can be stale.
func (m *Manager) hintedID(ctx context.Context, hint string, last bool, trust func(h int64) (bool, error)) (int64, bool, error) {
	if h, ok := m.readHint(ctx, hint); ok {
		trusted, err := trust(h)
		if err != nil {
			return 0, false, err
		}
		if trusted {
			return h, true, nil
		}
	}
	ids, err := m.ListIDs(ctx)
	if err != nil {
		return 0, false, err
	}
	if len(ids) == 0 {
		return 0, false, ctx.Err()
	}
	if last {
		return ids[len(ids)-1], true, nil
	}
	return ids[0], true, nil
}

// Latest reads the newest snapshot; ok is false when the branch has none.
// A snapshot that vanishes between finding and reading it (a concurrent
// rollback) makes it look again, a few times.
func (m *Manager) Latest(ctx context.Context) (*Snapshot, bool, error) {
	if m.latest != nil {
		return m.latest(ctx)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		id, ok, err := m.LatestID(ctx)
		if err != nil || !ok {
			return nil, false, err
		}
		s, vanished, err := m.snapshotOrVanished(ctx, id)
		if !vanished {
			return s, err == nil, err
		}
		lastErr = err
	}
	return nil, false, lastErr
}

// snapshotOrVanished reads snapshot id for Latest and Earliest, which look
// again when it was deleted after they found it: vanished says so, and err
// is then the not-found error to report if they give up.
func (m *Manager) snapshotOrVanished(ctx context.Context, id int64) (s *Snapshot, vanished bool, err error) {
	s, err = m.Snapshot(ctx, id)
	return s, fileio.IsNotExist(err), err
}

// Earliest reads the oldest snapshot; ok is false when the branch has none.
// Expiration deletes snapshots from the low end while this runs, so a
// vanished snapshot makes it try the next ids, like Java.
func (m *Manager) Earliest(ctx context.Context) (*Snapshot, bool, error) {
	id, ok, err := m.EarliestID(ctx)
	if err != nil || !ok {
		return nil, false, err
	}
	var lastErr error
	for i := 0; i < earliestRetries; i++ {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		cur := id + int64(i)
		s, vanished, err := m.snapshotOrVanished(ctx, cur)
		if !vanished {
			return s, err == nil, err
		}
		lastErr = err
		latest, ok, err := m.LatestID(ctx)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, nil // every snapshot was expired meanwhile
		}
		if cur >= latest {
			break
		}
	}
	return nil, false, lastErr
}

// errMissing marks a listed snapshot that was deleted before it could be
// read; time searches treat it as older than every existing snapshot,
// because expiration deletes from the low end.
var errMissing = errors.New("snapshot vanished")

// timeSearch lists the snapshots once and binary-searches them by commit
// time. Listing makes gaps (expired or rolled-back ids) harmless.
type timeSearch struct {
	src   idSource
	ids   []int64
	cache map[int]*Snapshot
}

// idSource is what a time search reads: a Manager, or a History that
// also holds the long-lived changelogs.
type idSource interface {
	ListIDs(ctx context.Context) ([]int64, error)
	Snapshot(ctx context.Context, id int64) (*Snapshot, error)
}

func newTimeSearch(ctx context.Context, src idSource) (*timeSearch, error) {
	ids, err := src.ListIDs(ctx)
	if err != nil {
		return nil, err
	}
	return &timeSearch{src: src, ids: ids, cache: map[int]*Snapshot{}}, nil
}

func (ts *timeSearch) at(ctx context.Context, i int) (*Snapshot, error) {
	if s, ok := ts.cache[i]; ok {
		if s == nil {
			return nil, errMissing
		}
		return s, nil
	}
	s, err := ts.src.Snapshot(ctx, ts.ids[i])
	if err != nil {
		if fileio.IsNotExist(err) {
			ts.cache[i] = nil
			return nil, errMissing
		}
		return nil, err
	}
	ts.cache[i] = s
	return s, nil
}

// firstIndex returns the smallest index whose snapshot satisfies pred
// (which must be monotonic: false...false true...true), len(ids) if none.
// Vanished snapshots count as not satisfying pred.
func (ts *timeSearch) firstIndex(ctx context.Context, pred func(*Snapshot) bool) (int, error) {
	lo, hi := 0, len(ts.ids)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s, err := ts.at(ctx, mid)
		switch {
		case errors.Is(err, errMissing):
			lo = mid + 1
		case err != nil:
			return 0, err
		case pred(s):
			hi = mid
		default:
			lo = mid + 1
		}
	}
	return lo, nil
}

// lastBefore returns the snapshot just before the first one satisfying
// pred, if it still exists.
func lastBefore(ctx context.Context, src idSource, pred func(*Snapshot) bool) (*Snapshot, bool, error) {
	ts, err := newTimeSearch(ctx, src)
	if err != nil {
		return nil, false, err
	}
	i, err := ts.firstIndex(ctx, pred)
	if err != nil || i == 0 {
		return nil, false, err
	}
	s, err := ts.at(ctx, i-1)
	if errors.Is(err, errMissing) {
		// Everything before index i has been expired.
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return s, true, nil
}

// EarlierOrEqualTime returns the newest snapshot committed at or before
// millis (epoch milliseconds); ok is false when every snapshot is newer.
func (m *Manager) EarlierOrEqualTime(ctx context.Context, millis int64) (*Snapshot, bool, error) {
	return lastBefore(ctx, m, func(s *Snapshot) bool { return s.TimeMillis > millis })
}

// EarlierThanTime returns the newest snapshot committed strictly before
// millis; ok is false when none is. Java's from-timestamp streaming start
// reads the snapshots after this one.
func (m *Manager) EarlierThanTime(ctx context.Context, millis int64) (*Snapshot, bool, error) {
	return lastBefore(ctx, m, func(s *Snapshot) bool { return s.TimeMillis >= millis })
}

// LaterOrEqualTime returns the oldest snapshot committed at or after
// millis; ok is false when every snapshot is older.
func (m *Manager) LaterOrEqualTime(ctx context.Context, millis int64) (*Snapshot, bool, error) {
	ts, err := newTimeSearch(ctx, m)
	if err != nil {
		return nil, false, err
	}
	i, err := ts.firstIndex(ctx, func(s *Snapshot) bool { return s.TimeMillis >= millis })
	if err != nil || i == len(ts.ids) {
		return nil, false, err
	}
	s, err := ts.at(ctx, i)
	if err != nil {
		return nil, false, err
	}
	return s, true, nil
}
