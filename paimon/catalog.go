package paimon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Catalog is where tables are found: a filesystem catalog (databases are
// <warehouse>/<db>.db directories and tables are their sub-directories
// holding schema files, the default) or a REST catalog (WithREST: a server
// says which tables exist, where each lives and with which credentials).
type Catalog struct {
	warehouse string
	fio       fileio.FileIO
	// rest is the REST catalog behind this one; nil for a filesystem
	// catalog.
	rest *restCatalog
	// closer is the storage client the catalog opened itself (an object
	// store's); nil for local storage and for WithFileIO, whose caller owns
	// the FileIO.
	closer    io.Closer
	closeOnce sync.Once
	closeErr  error
	warn      func(string)     // WithWarnings; nil: silent
	alloc     memory.Allocator // WithAllocator; nil: the Go allocator
	scratch   *arrowpool.Pool  // Table.scratch of every table it opens
	meta      *MetadataCache   // WithMetadataCache; nil: none
}

// CatalogOption configures OpenCatalog.
type CatalogOption func(*catalogConfig)

type catalogConfig struct {
	fio     fileio.FileIO
	storage objstore.Options
	warn    func(string)
	rest    map[string]string // WithREST's options; nil: a filesystem catalog
	alloc   memory.Allocator
	meta    *MetadataCache
}

// WithWarnings reports problems the catalog's tables recover from but an
// operator should hear about (a corrupt snapshot hint file, read around by
// listing) to warn; a Benthos input passes its logger's Warn.
func WithWarnings(warn func(msg string)) CatalogOption {
	return func(c *catalogConfig) { c.warn = warn }
}

// WithStorageOptions configures the object store client chosen from the
// warehouse URI (region, endpoint, credentials, retries, request metrics).
func WithStorageOptions(o objstore.Options) CatalogOption {
	return func(c *catalogConfig) { c.storage = o }
}

// WithAllocator makes mem the Arrow allocator of every read of the
// catalog's tables that sets none of its own (ReadBuilder.WithAllocator). A
// pooled allocator (paimon/arrowpool.New) reuses the buffers of released
// record batches instead of leaving them to the garbage collector; it is
// only safe with callers that use no Arrow memory after its last Release,
// which arrowpool.NewChecked verifies in tests.
func WithAllocator(mem memory.Allocator) CatalogOption {
	return func(c *catalogConfig) { c.alloc = mem }
}

// MetadataCache keeps decoded manifests and manifest lists for every table
// of the catalogs that share it (WithMetadataCache). Paimon never rewrites
// these files under their names, so a plan of a snapshot another reader
// already planned, or planned before, decodes none of them again; every
// read is still checked against what its parent records. Readers of one
// table that plan the same snapshots for different shares of its files
// (the slots of a consumer-group replica) save most: without it each
// decodes every manifest itself. Safe for concurrent use.
type MetadataCache struct {
	files *manifest.Cache
}

// NewMetadataCache returns a cache holding at most maxBytes of decoded
// metadata (an estimate of the memory it keeps), least recently used
// first out. maxBytes <= 0 caches nothing.
func NewMetadataCache(maxBytes int64) *MetadataCache {
	return &MetadataCache{files: manifest.NewCache(maxBytes)}
}

// Stats returns how many metadata file reads the cache answered and how
// many decoded their file.
func (m *MetadataCache) Stats() (hits, misses int64) { return m.files.Stats() }

// WithMetadataCache makes the catalog's tables keep the manifests they
// decode in m, shared with every other catalog given m. Without it nothing
// is kept between plans.
func WithMetadataCache(m *MetadataCache) CatalogOption {
	return func(c *catalogConfig) { c.meta = m }
}

// WithFileIO makes the catalog use the given storage instead of choosing one
// from the warehouse URI.
func WithFileIO(fio fileio.FileIO) CatalogOption {
	return func(c *catalogConfig) { c.fio = fio }
}

// OpenCatalog opens the filesystem catalog at warehouse: a local path, a
// file: URI, or an object store URI (s3://, s3a://, gs://, azblob://,
// abfs://) whose client is configured by WithStorageOptions.
func OpenCatalog(ctx context.Context, warehouse string, opts ...CatalogOption) (*Catalog, error) {
	var cfg catalogConfig
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.rest != nil {
		return openREST(ctx, warehouse, cfg)
	}
	if warehouse == "" {
		return nil, errors.New("open catalog: empty warehouse path")
	}
	warehouse = strings.TrimRight(warehouse, "/")
	var closer io.Closer
	if cfg.fio == nil {
		fio, err := objstore.Open(ctx, warehouse, cfg.storage)
		if err != nil {
			return nil, fmt.Errorf("open catalog %s: %w", warehouse, err)
		}
		cfg.fio = fio
		closer, _ = fio.(io.Closer)
	}
	c := &Catalog{warehouse: warehouse, fio: cfg.fio, closer: closer, warn: cfg.warn, alloc: cfg.alloc, scratch: newScratchPool(), meta: cfg.meta}
	// On object stores a warehouse is a key prefix: it "exists" when
	// something lives under it, which a listing tells in one request.
	ents, err := c.fio.List(ctx, warehouse)
	if err != nil {
		_ = c.Close()
		if st, serr := c.fio.Stat(ctx, warehouse); serr == nil && !st.IsDir {
			// No listing can ever succeed: as permanent as a missing one.
			return nil, fmt.Errorf("open catalog %s: a file, not a warehouse directory: %w", warehouse, fileio.ErrNotExist)
		}
		return nil, fmt.Errorf("open catalog %s: %w", warehouse, err)
	}
	if len(ents) == 0 {
		if st, err := c.fio.Stat(ctx, warehouse); err != nil || !st.IsDir {
			_ = c.Close()
			return nil, fmt.Errorf("open catalog %s: no such warehouse directory: %w", warehouse, fileio.ErrNotExist)
		}
	}
	return c, nil
}

// Close releases the storage client the catalog opened (an object store's
// connections); tables of the catalog must not be read afterwards. A
// FileIO given with WithFileIO is the caller's to close. Safe to call more
// than once.
func (c *Catalog) Close() error {
	c.closeOnce.Do(func() {
		if c.rest != nil {
			if err := c.rest.close(); err != nil {
				c.closeErr = fmt.Errorf("close catalog %s: %w", c.warehouse, err)
			}
		}
		if c.closer != nil {
			if err := c.closer.Close(); err != nil {
				c.closeErr = fmt.Errorf("close catalog %s: %w", c.warehouse, err)
			}
		}
	})
	return c.closeErr
}

// Warehouse returns the warehouse root; for a REST catalog the warehouse
// name the server's configuration settled on.
func (c *Catalog) Warehouse() string { return c.warehouse }

// FileIO returns the catalog's storage; nil for a REST catalog, whose
// tables each have their own (Table.FileIO).
func (c *Catalog) FileIO() fileio.FileIO { return c.fio }

// ListDatabases lists the databases (directories named <db>.db, or the
// REST catalog's answer), sorted.
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	if c.rest != nil {
		return c.rest.client.ListDatabases(ctx)
	}
	ents, err := c.fio.List(ctx, c.warehouse)
	if err != nil {
		return nil, fmt.Errorf("list databases in %s: %w", c.warehouse, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir && strings.HasSuffix(e.Name, ".db") && len(e.Name) > 3 {
			out = append(out, strings.TrimSuffix(e.Name, ".db"))
		}
	}
	sort.Strings(out)
	return out, nil
}

// ListTables lists the tables of a database, sorted. A directory is a table
// when it holds at least one schema file.
func (c *Catalog) ListTables(ctx context.Context, db string) ([]string, error) {
	if err := validateName(db); err != nil {
		return nil, fmt.Errorf("database %q: %w", db, err)
	}
	if c.rest != nil {
		return c.rest.client.ListTables(ctx, db)
	}
	dbPath := fileio.Join(c.warehouse, db+".db")
	ents, err := c.fio.List(ctx, dbPath)
	if err != nil {
		return nil, fmt.Errorf("list tables in %s: %w", dbPath, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir || strings.HasPrefix(e.Name, ".") {
			continue
		}
		ids, err := schema.NewManager(c.fio, e.Path, "").ListIDs(ctx)
		if err != nil {
			return nil, fmt.Errorf("list tables in %s: %w", dbPath, err)
		}
		if len(ids) > 0 {
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// TableOption configures GetTable.
type TableOption func(*tableConfig)

type tableConfig struct {
	branch string
}

// WithBranch opens a branch of the table ("" and "main" are the main branch).
func WithBranch(name string) TableOption {
	return func(c *tableConfig) { c.branch = name }
}

var branchSuffix = regexp.MustCompile(`^(.*)\$branch_(.+)$`)

// GetTable opens "db.table". The Java spelling "db.table$branch_b" selects a
// branch too.
func (c *Catalog) GetTable(ctx context.Context, name string, opts ...TableOption) (*Table, error) {
	var cfg tableConfig
	for _, o := range opts {
		o(&cfg)
	}
	db, tbl, ok := strings.Cut(name, ".")
	if !ok || db == "" || tbl == "" {
		return nil, fmt.Errorf("table name %q: want db.table", name)
	}
	if m := branchSuffix.FindStringSubmatch(tbl); m != nil {
		if cfg.branch != "" && cfg.branch != m[2] {
			return nil, fmt.Errorf("table name %q names branch %q but branch %q was asked for", name, m[2], cfg.branch)
		}
		tbl, cfg.branch = m[1], m[2]
	}
	if strings.Contains(tbl, "$") {
		return nil, fmt.Errorf("table %q: system tables: %w", name, types.ErrUnsupported)
	}
	for _, n := range []string{db, tbl} {
		if err := validateName(n); err != nil {
			return nil, fmt.Errorf("table name %q: %w", name, err)
		}
	}
	if cfg.branch != "" && cfg.branch != "main" {
		if err := validateName(cfg.branch); err != nil {
			return nil, fmt.Errorf("branch %q: %w", cfg.branch, err)
		}
	}
	var t *Table
	var err error
	if c.rest != nil {
		t, err = c.rest.getTable(ctx, db, tbl, cfg.branch, c.warn)
	} else {
		t, err = openTable(ctx, c.fio, fileio.Join(c.warehouse, db+".db", tbl), db+"."+tbl, cfg.branch, c.warn)
		if err != nil && fileio.IsNotExist(err) {
			err = c.missingTable(ctx, db, tbl, cfg.branch, err)
		}
	}
	if err != nil {
		return nil, err
	}
	c.share(t)
	if err := c.openFallback(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// openFallback opens the branch t's scan.fallback-branch names, through
// t's own file access (a REST catalog's tokens included): Java reads the
// fallback's schema from the table's directory whatever the catalog. A
// branch that does not exist leaves t without one, said at WARN, as Java
// logs it and reads t's branch alone. The fallback's own option is not
// followed (Java opens it without fallback).
func (c *Catalog) openFallback(ctx context.Context, t *Table) error {
	fb := t.schema.ScanFallbackBranch()
	if strings.TrimSpace(fb) == "" {
		return nil
	}
	if fb == "main" {
		fb = ""
	}
	if fb == t.branch {
		return nil
	}
	name := t.name + "$branch_" + cmp.Or(fb, "main")
	if fb != "" {
		if err := validateName(fb); err != nil {
			return fmt.Errorf("table %s: option scan.fallback-branch=%s: %w", t.name, fb, err)
		}
	}
	f, err := openTable(ctx, t.fio, t.root, name, fb, c.warn)
	if err != nil {
		if fileio.IsNotExist(err) {
			if c.warn != nil {
				c.warn(fmt.Sprintf("table %s: scan.fallback-branch names branch %s, which does not exist; batch reads read %s alone (%v)", t.name, cmp.Or(fb, "main"), t.name, err))
			}
			return nil
		}
		return fmt.Errorf("table %s: fallback branch (scan.fallback-branch): %w", t.name, err)
	}
	c.share(f)
	t.fallback = f
	return nil
}

// share gives a table the catalog's allocator, scratch pool and metadata
// cache.
func (c *Catalog) share(t *Table) {
	t.alloc, t.scratch = c.alloc, c.scratch
	if c.meta != nil {
		t.manifests = manifest.NewCachingDecoder(c.meta.files)
	}
}

// validateName keeps names from addressing paths outside the warehouse.
func validateName(n string) error {
	switch {
	case n == "":
		return errors.New("empty name")
	case n == "." || n == "..":
		return errors.New("name may not be . or ..")
	case strings.ContainsAny(n, "/\\\x00"):
		return errors.New("name may not contain path separators or NUL")
	}
	return nil
}
