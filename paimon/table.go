package paimon

import (
	"context"
	"fmt"
	"net/url"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/format"
	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/scan"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/types"
	"strings"
)

// Table is an open Paimon table (one branch of it).
type Table struct {
	fio       fileio.FileIO
	root      string
	name      string
	branch    string
	schema    *schema.TableSchema
	schemas   *schema.Manager
	snapshots *snapshot.Manager
	history   *snapshot.History
	manifests *manifest.Decoder
	alloc     memory.Allocator // the catalog's WithAllocator; nil: the Go allocator
	// scratch pools what never leaves the readers (pages as read and
	// decompressed, dictionary indices) for reads that chose no allocator:
	// the catalog's, shared by its tables, or the table's own.
	scratch *arrowpool.Pool
	// fallback is the branch scan.fallback-branch names (nil without one):
	// batch reads take the partitions this branch lacks from it, as Java's
	// batch scans do; streams read this branch alone, as Java's stream
	// scans do.
	fallback *Table
	warn     func(string) // the catalog's WithWarnings; nil: silent
}

func openTable(ctx context.Context, fio fileio.FileIO, root, name, branch string, warn func(string)) (*Table, error) {
	if branch == "main" {
		branch = ""
	}
	schemas := schema.NewManager(fio, root, branch)
	ids, err := schemas.ListIDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("open table %s at %s: %w", name, root, err)
	}
	if len(ids) == 0 {
		where := root
		if branch != "" {
			where = fileio.Join(root, "branch", "branch-"+branch)
		}
		return nil, fmt.Errorf("open table %s: no schema files under %s/schema: %w", name, where, fileio.ErrNotExist)
	}
	s, err := schemas.Latest(ctx)
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", name, err)
	}
	return newTable(fio, root, name, branch, s, schemas, snapshot.NewManager(fio, root, branch).WithWarnings(warn), warn)
}

// scratchRetained bounds the bytes of freed scratch buffers (pages as read
// and decompressed, dictionary indices; see Table) a catalog, or a table
// opened without one, keeps for its next reads: about the pages of one
// wide table's row group. Reads through an allocator of their own
// (WithAllocator) keep nothing here.
const scratchRetained = 32 << 20

// newScratchPool is the pool behind Table.scratch. Pooling is safe for
// these buffers whatever the caller does, unlike for the record batches a
// caller may still read after Release with the Go allocator: the readers
// alone free them, after their last use (the library's tests read every
// fixture through arrowpool.NewChecked to prove it).
func newScratchPool() *arrowpool.Pool {
	return arrowpool.New(arrowpool.Options{MaxRetained: scratchRetained})
}

// newTable assembles a table whose latest schema is known: read from the
// schema directory (filesystem catalog) or given by a REST catalog.
func newTable(fio fileio.FileIO, root, name, branch string, s *schema.TableSchema, schemas *schema.Manager, snapshots *snapshot.Manager, warn func(string)) (*Table, error) {
	t := &Table{
		fio: fio, root: root, name: name, branch: branch, schema: s, schemas: schemas,
		snapshots: snapshots, manifests: manifest.NewDecoder(), scratch: newScratchPool(), warn: warn,
	}
	if err := checkSupported(s); err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	if err := checkExternalPaths(root, s); err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	decoupled, err := s.ChangelogLifecycleDecoupled()
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	var changelogs *snapshot.Manager
	if decoupled {
		changelogs = snapshot.NewChangelogManager(fio, root, branch).WithWarnings(warn)
	}
	t.history = snapshot.NewHistory(t.snapshots, changelogs)
	return t, nil
}

// checkSupported refuses tables whose correct reading needs a feature this
// reader lacks, so no caller ever gets silently wrong rows.
func checkSupported(s *schema.TableSchema) error {
	switch tt := s.TableType(); tt {
	case "table", "materialized-table":
	default:
		return fmt.Errorf("table type %q: %w", tt, types.ErrUnsupported)
	}
	if len(s.PrimaryKeys) > 0 {
		if _, err := s.MergeOptions(); err != nil {
			return err
		}
	}
	if s.DataEvolutionEnabled() {
		// Java reads neither: its data-evolution reader applies no
		// deletion vector, and a primary key is refused at creation.
		if len(s.PrimaryKeys) > 0 {
			return fmt.Errorf("data-evolution.enabled=true on a primary-key table: %w", types.ErrUnsupported)
		}
		if s.DeletionVectorsEnabled() {
			return fmt.Errorf("data-evolution.enabled=true with deletion-vectors.enabled=true: %w", types.ErrUnsupported)
		}
	}
	if v := s.Option(schema.OptScanPrimaryBranch, ""); v != "" {
		return fmt.Errorf("option %s=%s (reads from another branch): %w", schema.OptScanPrimaryBranch, v, types.ErrUnsupported)
	}
	if len(s.PrimaryKeys) == 0 && s.StreamingReadOverwrite() {
		// Java's SchemaValidation refuses to load such a table.
		return fmt.Errorf("option %s=true on a table without primary key (Java refuses it too; an append table's option is %s): %w",
			schema.OptStreamingReadOverwrite, schema.OptStreamingReadAppendOverwrite, types.ErrUnsupported)
	}
	if s.ChainTableEnabled() {
		return fmt.Errorf("chain tables: %w", types.ErrUnsupported)
	}
	if _, err := arrowconv.Schema(s.Fields); err != nil {
		return err
	}
	return checkCodecs(s)
}

// checkCodecs refuses the data-file codecs the format readers cannot
// decode, for the table's format and codec and any per-level ones
// ("0:avro,5:parquet"), since a level's files may use any of them.
func checkCodecs(s *schema.TableSchema) error {
	// Manifests are decoded as Avro or Parquet; an ORC manifest would fail
	// the first plan.
	switch mf := strings.ToLower(s.Option("manifest.format", "avro")); mf {
	case "avro", "parquet":
	default:
		return fmt.Errorf("manifest.format=%s: only avro and parquet manifests are read: %w", mf, types.ErrUnsupported)
	}
	formats := append([]string{s.FileFormat()}, perLevel(s.Option("file.format.per.level", ""))...)
	codecs := map[string][]string{
		"file.compression":           {s.Option("file.compression", "zstd")},
		"file.compression.per.level": perLevel(s.Option("file.compression.per.level", "")),
	}
	for _, opt := range []string{"file.compression", "file.compression.per.level"} {
		for _, c := range codecs[opt] {
			for _, f := range formats {
				if err := format.CheckCompression(f, opt, c); err != nil {
					return err
				}
			}
		}
	}
	// Changelog files have a format and codec of their own when set (Java
	// falls back to the data files' otherwise).
	clFormat := s.Option("changelog-file.format", s.FileFormat())
	clCodec, opt := s.Option("changelog-file.compression", ""), "changelog-file.compression"
	if clCodec == "" {
		clCodec, opt = s.Option("file.compression", "zstd"), "file.compression"
	}
	return format.CheckCompression(clFormat, opt, clCodec)
}

// checkExternalPaths refuses data-file.external-paths in another store
// than the table's: one fileio.FileIO serves a table, and a file it cannot
// reach would fail every read of a split mid-stream. Paths in the same
// bucket (or on the local filesystem beside a local table) are read.
func checkExternalPaths(root string, s *schema.TableSchema) error {
	opt := s.Option("data-file.external-paths", "")
	own := storeOf(root)
	for _, p := range strings.Split(opt, ",") {
		if p = strings.TrimSpace(p); p != "" && storeOf(p) != own {
			return fmt.Errorf("data-file.external-paths=%s: %s is outside the table's store (%s), and a table is read through one store's client: %w",
				opt, p, own, types.ErrUnsupported)
		}
	}
	return nil
}

// storeOf names the store a path lives in: "local" for the filesystem,
// else the scheme (s3a and s3n are s3, abfss is abfs) and the bucket or
// container@account.
func storeOf(p string) string {
	u, err := url.Parse(p)
	if err != nil || u.Scheme == "" || u.Scheme == "file" || len(u.Scheme) == 1 {
		return "local"
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "s3a", "s3n":
		scheme = "s3"
	case "abfss":
		scheme = "abfs"
	case "wasbs":
		scheme = "wasb"
	}
	host := u.Host
	if u.User != nil {
		host = u.User.String() + "@" + host
	}
	return scheme + "://" + host
}

// perLevel returns the values of a "level:value,..." option.
func perLevel(opt string) []string {
	var vs []string
	for _, lv := range strings.Split(opt, ",") {
		if _, v, ok := strings.Cut(lv, ":"); ok {
			vs = append(vs, strings.TrimSpace(v))
		}
	}
	return vs
}

// Name returns "db.table".
func (t *Table) Name() string { return t.name }

// Path returns the table's root directory.
func (t *Table) Path() string { return t.root }

// Branch returns the branch name ("" for main).
func (t *Table) Branch() string { return t.branch }

// Schema returns the table's latest schema as of opening.
func (t *Table) Schema() *schema.TableSchema { return t.schema }

// FileIO returns the table's storage.
func (t *Table) FileIO() fileio.FileIO { return t.fio }

// Snapshots returns the snapshot manager of the table's branch.
func (t *Table) Snapshots() *snapshot.Manager { return t.snapshots }

// History returns what a streaming read of the table follows: its
// snapshots and, when the table retains changelogs longer than snapshots
// (changelog.num-retained.* or changelog.time-retained beyond the snapshot
// options), the long-lived changelogs of expired snapshots.
func (t *Table) History() *snapshot.History { return t.history }

// Schemas returns the schema manager of the table's branch.
func (t *Table) Schemas() *schema.Manager { return t.schemas }

// Consumers returns the consumer manager of the table's branch (the
// consumer files streaming reads resume from and commit to).
func (t *Table) Consumers() *consumer.Manager {
	return consumer.NewManager(t.fio, t.root, t.branch)
}

// pathFactory builds the data path factory for a read schema. Data files are
// shared by branches and always live under the table root.
func (t *Table) pathFactory(s *schema.TableSchema) *scan.PathFactory {
	return scan.NewPathFactory(t.root, s)
}

// planner builds the scan planner for a read schema. batch selects Java's
// batch-only level-0 skipping (deletion vectors, first-row), which streaming
// first plans don't apply.
func (t *Table) planner(sch *schema.TableSchema, filter *predicate.Predicate, buckets func(int32) bool, levels func(int32) bool) *scan.Planner {
	return &scan.Planner{
		FIO: t.fio, TableRoot: t.root, Schema: sch, Schemas: t.schemas,
		Filter: filter, BucketFilter: buckets, Paths: t.pathFactory(sch),
		PrimaryKey: len(sch.PrimaryKeys) > 0, LevelFilter: levels, Manifests: t.manifests,
	}
}

// batchLevels is the level filter of batch reads.
func batchLevels(sch *schema.TableSchema) func(int32) bool {
	if len(sch.PrimaryKeys) > 0 && sch.BatchScanSkipLevel0() {
		return func(l int32) bool { return l > 0 }
	}
	return nil
}
