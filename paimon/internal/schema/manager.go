package schema

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/fileutil"
)

// MainBranch is the name of the default branch, stored at the table root.
const MainBranch = "main"

// BranchRoot returns the directory holding a branch's metadata: the table
// root for the main branch (blank or "main"), else
// <root>/branch/branch-<name>. A non-blank name is used as is, like Java:
// trimming would alias two branch directories.
func BranchRoot(tableRoot, branch string) string {
	if strings.TrimSpace(branch) == "" || branch == MainBranch {
		return tableRoot
	}
	return fileio.Join(tableRoot, "branch", "branch-"+branch)
}

// Manager reads the schemas of one branch of a table. Schemas are immutable
// once written, so each id is read at most once per Manager; a Manager is
// safe for concurrent use.
type Manager struct {
	fio fileio.FileIO
	dir string

	mu    sync.Mutex
	cache map[int64]*TableSchema
}

// NewManager returns a Manager for the schemas of branch ("" or "main" for
// the main branch) of the table at tableRoot.
func NewManager(fio fileio.FileIO, tableRoot, branch string) *Manager {
	return &Manager{
		fio:   fio,
		dir:   fileio.Join(BranchRoot(tableRoot, branch), "schema"),
		cache: map[int64]*TableSchema{},
	}
}

// Dir is the schema directory this Manager reads.
func (m *Manager) Dir() string { return m.dir }

// SchemaPath returns the path of schema-<id>.
func (m *Manager) SchemaPath(id int64) string {
	return fileio.Join(m.dir, "schema-"+strconv.FormatInt(id, 10))
}

// ListIDs returns the ids of all schema files in ascending order. Temp files
// (".schema-1.<uuid>.tmp") and any name that is not exactly schema-<n> are
// ignored, as in Java's listVersionedFiles.
func (m *Manager) ListIDs(ctx context.Context) ([]int64, error) {
	return fileutil.ListVersioned(ctx, m.fio, m.dir, "schema-", "schemas")
}

// Latest returns the schema with the highest id (Paimon keeps no hint file
// for schemas). A table without any schema file is an error wrapping
// fileio.ErrNotExist.
func (m *Manager) Latest(ctx context.Context) (*TableSchema, error) {
	ids, err := m.ListIDs(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no schema file in %s: %w", m.dir, fileio.ErrNotExist)
	}
	return m.Schema(ctx, ids[len(ids)-1])
}

// Schema returns schema-<id>; a missing file is an error wrapping
// fileio.ErrNotExist and naming the path. The returned schema is shared by
// all callers of this Manager and must not be modified.
func (m *Manager) Schema(ctx context.Context, id int64) (*TableSchema, error) {
	m.mu.Lock()
	s, ok := m.cache[id]
	m.mu.Unlock()
	if ok {
		return s, nil
	}
	path := m.SchemaPath(id)
	data, err := m.fio.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", path, err)
	}
	s, err = Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", path, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("read schema %s: file holds schema id %d", path, s.ID)
	}
	m.mu.Lock()
	if prev, ok := m.cache[id]; ok {
		s = prev // a concurrent reader won; keep one instance per id
	} else {
		m.cache[id] = s
	}
	m.mu.Unlock()
	return s, nil
}
