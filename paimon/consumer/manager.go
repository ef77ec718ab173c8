package consumer

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/connect-paimon/connect-paimon/internal/clock"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/localpath"
)

// filePrefix is the file-name prefix of consumer files; the id follows it.
const filePrefix = "consumer-"

// MaxIDLength bounds consumer ids in bytes. Object stores and local file
// systems cap a name at 255-1024 bytes; 200 leaves room for the prefix and
// the temp-file decoration of atomic writes.
const MaxIDLength = 200

const (
	defaultAttempts = 10
	defaultBackoff  = 50 * time.Millisecond
	maxBackoff      = 400 * time.Millisecond
)

// ValidateID reports why id cannot be used as a consumer id. The rules are
// pypaimon's (no empty id, no path separator, no "." or "..") plus control
// characters, invalid UTF-8 and over-long ids, so that an id can only ever
// name one file inside the consumer directory.
func ValidateID(id string) error {
	switch {
	case id == "":
		return errors.New("invalid consumer id: empty")
	case id == "." || id == "..":
		return fmt.Errorf("invalid consumer id %q: a relative path component", id)
	case len(id) > MaxIDLength:
		return fmt.Errorf("invalid consumer id %s: %d bytes, more than %d", quoteShort(id), len(id), MaxIDLength)
	case !utf8.ValidString(id):
		return fmt.Errorf("invalid consumer id %q: not valid UTF-8", id)
	}
	for _, r := range id {
		switch {
		case r == '/' || r == '\\':
			return fmt.Errorf("invalid consumer id %q: contains the path separator %q", id, r)
		case r == 0:
			return fmt.Errorf("invalid consumer id %q: contains NUL", id)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return fmt.Errorf("invalid consumer id %q: contains the control character %U", id, r)
		}
	}
	return nil
}

// validateBranch applies the id rules to a branch name, which becomes the
// directory name branch-<b>.
func validateBranch(b string) error {
	if err := ValidateID(b); err != nil {
		return fmt.Errorf("invalid branch %q: %w", b, err)
	}
	return nil
}

// Manager reads and writes the consumer files of one table branch. It holds
// no cache: every call goes to storage, because other processes (writers
// expiring consumers, other readers) change the directory concurrently.
// A Manager is safe for concurrent use.
type Manager struct {
	fio       fileio.FileIO
	tableRoot string
	branch    string
	dir       string
	// branchErr is set when the branch name is unusable; every method
	// returns it, because the constructors cannot.
	branchErr error
	attempts  int
	backoff   time.Duration
}

// NewManager returns a Manager for the consumers of tableRoot on branch.
// "" (or blank) and "main" address <table>/consumer/, any other branch
// <table>/branch/branch-<b>/consumer/, as in Java and pypaimon. A branch name
// containing a path separator, "." or ".." or control characters makes every
// method fail rather than address a directory outside the table.
func NewManager(fio fileio.FileIO, tableRoot, branch string) *Manager {
	m := &Manager{fio: fio, tableRoot: tableRoot, attempts: defaultAttempts, backoff: defaultBackoff}
	m.setBranch(branch)
	return m
}

func (m *Manager) setBranch(branch string) {
	if strings.TrimSpace(branch) == "" {
		branch = "main"
	}
	m.branch = branch
	m.branchErr = nil
	if branch == "main" {
		m.dir = fileio.Join(m.tableRoot, "consumer")
		return
	}
	if err := validateBranch(branch); err != nil {
		m.branchErr = err
		m.dir = ""
		return
	}
	m.dir = fileio.Join(m.tableRoot, "branch", "branch-"+branch, "consumer")
}

// WithBranch returns a copy of m for another branch of the same table.
func (m *Manager) WithBranch(branch string) *Manager {
	c := *m
	c.setBranch(branch)
	return &c
}

// WithRetry returns a copy of m that reads a torn or unreadable consumer file
// up to attempts times, sleeping backoff, then doubling it up to 400ms,
// between tries. Writers of other engines overwrite consumer files in place,
// so a reader may briefly see a partial file. The default is 10 attempts
// starting at 50ms (about 2.5s in all; Java waits 10 x 200ms).
func (m *Manager) WithRetry(attempts int, backoff time.Duration) *Manager {
	c := *m
	if attempts < 1 {
		attempts = 1
	}
	if backoff < 0 {
		backoff = 0
	}
	c.attempts, c.backoff = attempts, backoff
	return &c
}

// Branch is the branch this Manager works on ("main" for the default).
func (m *Manager) Branch() string { return m.branch }

// Dir is the consumer directory of the Manager's branch.
func (m *Manager) Dir() string { return m.dir }

// Path is the file of consumer id. It does not validate id (it does no I/O);
// every method that touches storage does.
func (m *Manager) Path(id string) string {
	return fileio.Join(m.dir, filePrefix+id)
}

func (m *Manager) checkedPath(id string) (string, error) {
	if m.branchErr != nil {
		return "", m.branchErr
	}
	if err := ValidateID(id); err != nil {
		return "", err
	}
	return m.Path(id), nil
}

// Consumer reads consumer id. A missing file gives ok=false and no error.
// A file that cannot be read or parsed is retried (see WithRetry), because
// Java and pypaimon overwrite consumer files in place; if it stays broken
// the error names the path and the last cause.
func (m *Manager) Consumer(ctx context.Context, id string) (c Consumer, ok bool, err error) {
	path, err := m.checkedPath(id)
	if err != nil {
		return Consumer{}, false, err
	}
	return m.readPath(ctx, path)
}

func (m *Manager) readPath(ctx context.Context, path string) (Consumer, bool, error) {
	backoff := m.backoff
	var last error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return Consumer{}, false, fmt.Errorf("read consumer %s: %w", path, err)
		}
		data, err := m.fio.ReadFile(ctx, path)
		if err == nil {
			var c Consumer
			if c, err = parseConsumer(data); err == nil {
				return c, true, nil
			}
		} else if fileio.IsNotExist(err) {
			return Consumer{}, false, nil
		} else if ctx.Err() != nil {
			return Consumer{}, false, fmt.Errorf("read consumer %s: %w", path, err)
		}
		last = err
		if attempt >= m.attempts {
			break
		}
		if err := clock.Sleep(ctx, backoff); err != nil {
			return Consumer{}, false, fmt.Errorf("read consumer %s: %w (last error: %v)", path, err, last)
		}
		if backoff *= 2; backoff > maxBackoff {
			backoff = maxBackoff
		}
	}
	return Consumer{}, false, fmt.Errorf("read consumer %s: still failing after %d attempts: %w", path, m.attempts, last)
}

// Reset writes consumer id, replacing any previous content atomically.
// Like Java's resetConsumer it neither checks that the snapshot exists nor
// that the position moves forward: rewinding a consumer is legitimate. A
// position before snapshot 1 is refused: no reader could parse it back.
func (m *Manager) Reset(ctx context.Context, id string, c Consumer) error {
	path, err := m.checkedPath(id)
	if err != nil {
		return err
	}
	if c.NextSnapshot <= 0 {
		return fmt.Errorf("write consumer %s: nextSnapshot %d: snapshot ids start at 1", path, c.NextSnapshot)
	}
	if err := m.fio.WriteFileAtomic(ctx, path, c.JSON(), true); err != nil {
		return fmt.Errorf("write consumer %s: %w", path, err)
	}
	return nil
}

// RemoveStaleTemp deletes the temp files an interrupted write of consumer
// id left in the consumer directory, and returns their paths. Only files of
// this reader's own pattern (localpath.IsTempFor) last modified before
// olderThan are removed: a Java or pypaimon writer's temp file, or one of a
// write still running, is left alone. Object stores write atomically and
// leave none.
func (m *Manager) RemoveStaleTemp(ctx context.Context, id string, olderThan time.Time) ([]string, error) {
	if _, err := m.checkedPath(id); err != nil {
		return nil, err
	}
	infos, err := m.fio.List(ctx, m.dir)
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list consumers in %s: %w", m.dir, err)
	}
	base := filePrefix + id
	var removed []string
	for _, fi := range infos {
		if fi.IsDir || !localpath.IsTempFor(fi.Name, base) || !fi.ModTime.Before(olderThan) {
			continue
		}
		if err := m.fio.Delete(ctx, fi.Path); err != nil && !fileio.IsNotExist(err) {
			return removed, fmt.Errorf("remove stale temp file %s: %w", fi.Path, err)
		}
		removed = append(removed, fi.Path)
	}
	return removed, nil
}

// Delete removes consumer id; a missing consumer is not an error.
func (m *Manager) Delete(ctx context.Context, id string) error {
	path, err := m.checkedPath(id)
	if err != nil {
		return err
	}
	if err := m.fio.Delete(ctx, path); err != nil && !fileio.IsNotExist(err) {
		return fmt.Errorf("delete consumer %s: %w", path, err)
	}
	return nil
}

type entry struct {
	id   string
	info fileio.FileInfo
}

// list returns the consumer files, sorted by id. Like Java's
// listVersionedFileStatus it keeps names starting with "consumer-" only, so
// hidden temp files (.consumer-x.<rand>.tmp) are ignored, and directories.
// Ids this reader refuses to create (ValidateID: control characters, over
// 200 bytes...) but Java or pypaimon wrote are kept: they hold snapshots
// back from expiry like any other, so listing, min, expire and clear must
// see them, and they are read and deleted by their listed path. A symlink
// named like a consumer is listed like a file; deleting it removes the link,
// never what it points at.
func (m *Manager) list(ctx context.Context) ([]entry, error) {
	if m.branchErr != nil {
		return nil, m.branchErr
	}
	infos, err := m.fio.List(ctx, m.dir)
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list consumers in %s: %w", m.dir, err)
	}
	out := make([]entry, 0, len(infos))
	for _, fi := range infos {
		if fi.IsDir || !strings.HasPrefix(fi.Name, filePrefix) {
			continue
		}
		id := fi.Name[len(filePrefix):]
		if id == "" {
			continue // "consumer-": no reader or admin command can name it
		}
		out = append(out, entry{id: id, info: fi})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// ListIDs returns the ids of all consumers, sorted. A missing consumer
// directory gives an empty list.
func (m *Manager) ListIDs(ctx context.Context) ([]string, error) {
	ents, err := m.list(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ents))
	for i, e := range ents {
		ids[i] = e.id
	}
	return ids, nil
}

// Consumers returns every consumer's nextSnapshot by id. A consumer deleted
// between listing and reading is left out; one that stays unparseable is an
// error, as in Java, because dropping it would let expiry remove snapshots it
// still needs.
func (m *Manager) Consumers(ctx context.Context) (map[string]int64, error) {
	ents, err := m.list(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(ents))
	for _, e := range ents {
		c, ok, err := m.readPath(ctx, e.info.Path)
		if err != nil {
			return nil, err
		}
		if ok {
			out[e.id] = c.NextSnapshot
		}
	}
	return out, nil
}

// MinNextSnapshot returns the smallest nextSnapshot of all consumers, the
// bound below which snapshot expiry may delete; ok is false when there is
// no consumer.
func (m *Manager) MinNextSnapshot(ctx context.Context) (lowest int64, ok bool, err error) {
	all, err := m.Consumers(ctx)
	if err != nil {
		return 0, false, err
	}
	for _, n := range all {
		if !ok || n < lowest {
			lowest, ok = n, true
		}
	}
	return lowest, ok, nil
}

// Expire deletes every consumer whose file was last modified strictly before
// before, and returns the deleted ids, sorted. This is what Java writers do
// with consumer.expiration-time; a live reader keeps its consumer by
// rewriting the file (Reset) more often than that.
func (m *Manager) Expire(ctx context.Context, before time.Time) ([]string, error) {
	ents, err := m.list(ctx)
	if err != nil {
		return nil, err
	}
	var deleted []string
	for _, e := range ents {
		if !e.info.ModTime.Before(before) {
			continue
		}
		if err := m.fio.Delete(ctx, e.info.Path); err != nil && !fileio.IsNotExist(err) {
			return deleted, fmt.Errorf("expire consumer %s: %w", e.info.Path, err)
		}
		deleted = append(deleted, e.id)
	}
	return deleted, nil
}

// Clear deletes the consumers whose id fully matches including (nil matches
// every id) and does not fully match excluding (nil excludes nothing), and
// returns the deleted ids, sorted.
//
// Matching is Java's Matcher.matches(), a full match: the patterns are
// recompiled as ^(?:pattern)$, so "test" deletes "test" but not "test-1".
// pypaimon's clear_consumers uses re.match, anchored at the start only, and
// there "test" also deletes "test-1"; pass "test.*" to get that. The syntax is
// Go's RE2, which lacks Java's backreferences and lookaround.
func (m *Manager) Clear(ctx context.Context, including, excluding *regexp.Regexp) ([]string, error) {
	incl, err := fullMatch(including)
	if err != nil {
		return nil, fmt.Errorf("clear consumers: including pattern: %w", err)
	}
	excl, err := fullMatch(excluding)
	if err != nil {
		return nil, fmt.Errorf("clear consumers: excluding pattern: %w", err)
	}
	ents, err := m.list(ctx)
	if err != nil {
		return nil, err
	}
	var deleted []string
	for _, e := range ents {
		if incl != nil && !incl.MatchString(e.id) {
			continue
		}
		if excl != nil && excl.MatchString(e.id) {
			continue
		}
		if err := m.fio.Delete(ctx, e.info.Path); err != nil && !fileio.IsNotExist(err) {
			return deleted, fmt.Errorf("clear consumer %s: %w", e.info.Path, err)
		}
		deleted = append(deleted, e.id)
	}
	return deleted, nil
}

func fullMatch(re *regexp.Regexp) (*regexp.Regexp, error) {
	if re == nil {
		return nil, nil
	}
	return regexp.Compile(`^(?:` + re.String() + `)$`)
}
