package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/fileutil"
)

// Tag is a tag-<name> file: the full snapshot it pins plus optional
// retention metadata. Reading a tag reads its embedded snapshot, whose
// manifests stay even when snapshot-<id> has expired.
type Tag struct {
	Snapshot
	// TagCreateTime is Java's LocalDateTime of creation: a wall-clock time
	// without zone, returned with location UTC. Nil when absent.
	TagCreateTime *time.Time
	// TagTimeRetained is the tag's time to live. Nil when absent.
	TagTimeRetained *time.Duration
}

// ParseTag decodes a tag file as written by Java (Jackson JavaTimeModule:
// tagCreateTime as [y, m, d, h, mi, s, nanos] with trailing zero parts
// omitted, tagTimeRetained as decimal seconds) or pypaimon (same shapes).
// An ISO-8601 string create time is accepted too.
func ParseTag(data []byte) (*Tag, error) {
	var raw struct {
		snapshotJSON
		TagCreateTime   json.RawMessage `json:"tagCreateTime"`
		TagTimeRetained json.RawMessage `json:"tagTimeRetained"`
	}
	if err := decodeStrict(data, &raw); err != nil {
		return nil, fmt.Errorf("decode tag: %w", err)
	}
	s, err := raw.snapshotJSON.toSnapshot()
	if err != nil {
		return nil, err
	}
	t := &Tag{Snapshot: *s}
	if !isNull(raw.TagCreateTime) {
		ct, err := parseLocalDateTime(raw.TagCreateTime)
		if err != nil {
			return nil, fmt.Errorf("tag: tagCreateTime: %w", err)
		}
		t.TagCreateTime = &ct
	}
	if !isNull(raw.TagTimeRetained) {
		d, err := parseDecimalSeconds(raw.TagTimeRetained)
		if err != nil {
			return nil, fmt.Errorf("tag: tagTimeRetained: %w", err)
		}
		t.TagTimeRetained = &d
	}
	return t, nil
}

func isNull(b json.RawMessage) bool {
	s := strings.TrimSpace(string(b))
	return s == "" || s == "null"
}

// parseLocalDateTime decodes Jackson's LocalDateTime array (or ISO string).
func parseLocalDateTime(b json.RawMessage) (time.Time, error) {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
			if t, err := time.ParseInLocation(layout, str, time.UTC); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("%q is not a local date-time", str)
	}
	var parts []int64
	if err := json.Unmarshal(b, &parts); err != nil {
		return time.Time{}, fmt.Errorf("want [year, month, day, hour, minute, second, nanos]: %w", err)
	}
	// Jackson always writes at least year..minute; be lenient down to a date.
	if len(parts) < 3 || len(parts) > 7 {
		return time.Time{}, fmt.Errorf("%d components, want 3 to 7", len(parts))
	}
	var c [7]int64
	copy(c[:], parts)
	limits := [7][2]int64{{-999999999, 999999999}, {1, 12}, {1, 31}, {0, 23}, {0, 59}, {0, 59}, {0, 999999999}}
	for i := range parts {
		if c[i] < limits[i][0] || c[i] > limits[i][1] {
			return time.Time{}, fmt.Errorf("component %d = %d out of range", i, c[i])
		}
	}
	t := time.Date(int(c[0]), time.Month(c[1]), int(c[2]), int(c[3]), int(c[4]), int(c[5]), int(c[6]), time.UTC)
	if t.Day() != int(c[2]) {
		return time.Time{}, fmt.Errorf("day %d does not exist in %d-%02d", c[2], c[0], c[1])
	}
	return t, nil
}

// parseDecimalSeconds decodes Jackson's Duration form, decimal seconds
// such as 86400.000000000, exactly (no float rounding).
func parseDecimalSeconds(b json.RawMessage) (time.Duration, error) {
	lit := strings.TrimSpace(string(b))
	if lit == "" || lit[0] == '"' || lit[0] == '[' || lit[0] == '{' {
		return 0, fmt.Errorf("%s is not a number of seconds", lit)
	}
	if len(lit) > 64 {
		return 0, fmt.Errorf("number of seconds too long (%d characters)", len(lit))
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return 0, fmt.Errorf("%s is not a number of seconds", lit)
	}
	ns := new(big.Rat).Mul(r, big.NewRat(int64(time.Second), 1))
	q := new(big.Int).Quo(ns.Num(), ns.Denom()) // truncates below 1ns
	if !q.IsInt64() || q.Int64() == math.MinInt64 {
		return 0, fmt.Errorf("%s seconds overflows a duration", lit)
	}
	return time.Duration(q.Int64()), nil
}

// TagManager reads the tags of one branch of a table.
type TagManager struct {
	fio fileio.FileIO
	dir string
}

// NewTagManager returns a TagManager for branch ("" or "main" for the
// main branch) of the table at tableRoot.
func NewTagManager(fio fileio.FileIO, tableRoot, branch string) *TagManager {
	return &TagManager{fio: fio, dir: fileio.Join(branchRoot(tableRoot, branch), "tag")}
}

// Dir is the tag directory this TagManager reads.
func (m *TagManager) Dir() string { return m.dir }

// TagPath returns the path of tag-<name>.
func (m *TagManager) TagPath(name string) string { return fileio.Join(m.dir, "tag-"+name) }

// List returns the tag names in lexical order. Temp files (dot-files) and
// directories are ignored.
func (m *TagManager) List(ctx context.Context) ([]string, error) {
	names, err := fileutil.ListSuffixes(ctx, m.fio, m.dir, "tag-", "tags")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// Tag reads tag-<name>. A missing tag is an error wrapping
// fileio.ErrNotExist that names the path.
func (m *TagManager) Tag(ctx context.Context, name string) (*Tag, error) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("invalid tag name %q", name)
	}
	path := m.TagPath(name)
	data, err := m.fio.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read tag %s: %w", path, err)
	}
	t, err := ParseTag(data)
	if err != nil {
		return nil, fmt.Errorf("read tag %s: %w", path, err)
	}
	return t, nil
}
