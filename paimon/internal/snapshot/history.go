package snapshot

import (
	"context"
	"fmt"
	"sort"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// History is what a streaming read can follow: a branch's snapshots and,
// when the table's changelog lifecycle is decoupled from its snapshots',
// the long-lived changelogs Java keeps for snapshots that already expired
// (changelog/changelog-<id>). It reads them the way Java's
// NextSnapshotFetcher and starting scanners do: snapshot-<id> first, then
// changelog-<id>; the earliest position is the earliest changelog when
// there is one. Without decoupling it is the snapshots alone, as in Java,
// which ignores the changelog directory then.
type History struct {
	snapshots  *Manager
	changelogs *Manager // nil: not decoupled
}

// NewHistory follows snapshots, and changelogs when not nil.
func NewHistory(snapshots, changelogs *Manager) *History {
	return &History{snapshots: snapshots, changelogs: changelogs}
}

// Snapshots is the snapshot manager underneath.
func (h *History) Snapshots() *Manager { return h.snapshots }

// Changelogs is the long-lived changelog manager, nil when the table's
// changelog lifecycle is not decoupled.
func (h *History) Changelogs() *Manager { return h.changelogs }

// Snapshot reads snapshot-<id>, or, once it expired, changelog-<id>. A
// position that is in neither is an error wrapping fileio.ErrNotExist.
func (h *History) Snapshot(ctx context.Context, id int64) (*Snapshot, error) {
	s, err := h.snapshots.Snapshot(ctx, id)
	if err == nil || h.changelogs == nil || !fileio.IsNotExist(err) {
		return s, err
	}
	c, cerr := h.changelogs.Snapshot(ctx, id)
	if cerr != nil {
		if fileio.IsNotExist(cerr) {
			return nil, err // name the snapshot: the usual case is "not written yet"
		}
		return nil, cerr
	}
	return c, nil
}

// Exists reports whether snapshot-<id> or changelog-<id> exists.
func (h *History) Exists(ctx context.Context, id int64) (bool, error) {
	ok, err := h.snapshots.Exists(ctx, id)
	if err != nil || ok || h.changelogs == nil {
		return ok, err
	}
	return h.changelogs.Exists(ctx, id)
}

// EarliestID returns the earliest position a stream can start from: the
// earliest long-lived changelog, else the earliest snapshot (Java's
// ContinuousFromSnapshotStartingScanner.getEarliestId). ok is false when
// there is neither.
func (h *History) EarliestID(ctx context.Context) (int64, bool, error) {
	sid, sok, err := h.snapshots.EarliestID(ctx)
	if err != nil || h.changelogs == nil {
		return sid, sok, err
	}
	cid, cok, err := h.changelogs.EarliestID(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("earliest long-lived changelog: %w", err)
	}
	switch {
	case cok && sok:
		return min(cid, sid), true, nil
	case cok:
		return cid, true, nil
	}
	return sid, sok, nil
}

// ListIDs returns the ids of every snapshot and long-lived changelog, in
// ascending order, each once.
func (h *History) ListIDs(ctx context.Context) ([]int64, error) {
	ids, err := h.snapshots.ListIDs(ctx)
	if err != nil || h.changelogs == nil {
		return ids, err
	}
	cl, err := h.changelogs.ListIDs(ctx)
	if err != nil {
		return nil, err
	}
	seen := make(map[int64]bool, len(ids)+len(cl))
	all := make([]int64, 0, len(ids)+len(cl))
	for _, id := range append(ids, cl...) {
		if !seen[id] {
			seen[id] = true
			all = append(all, id)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all, nil
}

// EarlierThanTime returns the newest snapshot or long-lived changelog
// committed strictly before millis (Java's earlierThanTimeMills with
// startFromChangelog); ok is false when none is.
func (h *History) EarlierThanTime(ctx context.Context, millis int64) (*Snapshot, bool, error) {
	return lastBefore(ctx, h, func(s *Snapshot) bool { return s.TimeMillis >= millis })
}
