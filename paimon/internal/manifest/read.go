package manifest

import (
	"context"
	"fmt"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Format versions carried in every record's _VERSION field. They identify
// the on-disk layout, not a schema version, and only change when Paimon
// breaks compatibility (ManifestSchemaUtils in Java).
const (
	// ManifestVersion is the _VERSION of manifest entries and manifest list
	// records.
	ManifestVersion = 2
	// IndexManifestVersion is the _VERSION of index manifest entries.
	IndexManifestVersion = 1
)

func checkVersion(got int32, want int32) error {
	switch {
	case got == want:
		return nil
	case want == ManifestVersion && got == 1:
		// Paimon 0.3 and earlier; Java refuses these files with the same advice.
		return fmt.Errorf("manifest format version 1 is not supported, recreate the table")
	}
	return fmt.Errorf("manifest format version %d (expected %d): %w", got, want, types.ErrUnsupported)
}

type fileMetaRecord struct {
	Version  int32 `avro:"_VERSION"`
	FileMeta       // inlined: fields are matched by their own tags
}

var simpleStatsReq = &schemaReq{fields: []string{"_MIN_VALUES", "_MAX_VALUES"}}

func manifestListReq() *schemaReq {
	return &schemaReq{
		fields: []string{"_VERSION", "_FILE_NAME", "_FILE_SIZE", "_NUM_ADDED_FILES",
			"_NUM_DELETED_FILES", "_PARTITION_STATS", "_SCHEMA_ID"},
		nested: map[string]*schemaReq{"_PARTITION_STATS": simpleStatsReq},
	}
}

// Want is what a metadata file's parent records about it: the snapshot for
// a manifest list (its size), the manifest list for a manifest (size, added
// and deleted entries). The planner checks every file it reads against it,
// so a file cut at an Avro block boundary, which still parses, is an error
// wrapping types.ErrCorrupt, never fewer rows. Zero means not recorded.
type Want struct {
	// Size is the file's size in bytes.
	Size int64
	// Counted says Added and Deleted are recorded: the manifest's ADD and
	// DELETE entry counts.
	Counted        bool
	Added, Deleted int64
}

// WantManifest is what a manifest list entry records about its manifest.
func WantManifest(m *FileMeta) Want {
	return Want{Size: m.FileSize, Counted: true, Added: m.NumAddedFiles, Deleted: m.NumDeletedFiles}
}

// ReadManifestList reads a manifest list (a snapshot's baseManifestList,
// deltaManifestList or changelogManifestList) in file order.
func ReadManifestList(ctx context.Context, fio fileio.FileIO, path string) ([]FileMeta, error) {
	return (*Decoder)(nil).ReadManifestList(ctx, fio, path, Want{})
}

// ReadManifestList is the package function of that name, with the schema
// cache, the decoded-file cache when the Decoder has one, and the check
// against what the snapshot records.
func (d *Decoder) ReadManifestList(ctx context.Context, fio fileio.FileIO, path string, want Want) ([]FileMeta, error) {
	if c := d.fileCache(); c != nil {
		it, err := c.get(ctx, cacheKey{path, want.Size}, func(it *cacheItem) error {
			var err error
			it.metas, err = d.decodeManifestList(ctx, fio, path, want)
			return err
		})
		if err != nil {
			return nil, err
		}
		// The caller may reorder or change its slice; the cache's stays.
		return append([]FileMeta(nil), it.metas...), nil
	}
	return d.decodeManifestList(ctx, fio, path, want)
}

func (d *Decoder) decodeManifestList(ctx context.Context, fio fileio.FileIO, path string, want Want) ([]FileMeta, error) {
	var out []FileMeta
	err := decodeFile(ctx, d, fio, path, want.Size, manifestListReq(), func(r *fileMetaRecord) error {
		if err := checkVersion(r.Version, ManifestVersion); err != nil {
			return err
		}
		out = append(out, r.FileMeta)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s: %w", path, err)
	}
	return out, nil
}

type entryRecord struct {
	Version      int32        `avro:"_VERSION"`
	Kind         int32        `avro:"_KIND"`
	Partition    []byte       `avro:"_PARTITION"`
	Bucket       int32        `avro:"_BUCKET"`
	TotalBuckets int32        `avro:"_TOTAL_BUCKETS"`
	File         DataFileMeta `avro:"_FILE"`
}

func manifestReq() *schemaReq {
	return &schemaReq{
		fields: []string{"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_TOTAL_BUCKETS", "_FILE"},
		nested: map[string]*schemaReq{"_FILE": {
			fields: []string{"_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT", "_MIN_KEY", "_MAX_KEY",
				"_KEY_STATS", "_VALUE_STATS", "_MIN_SEQUENCE_NUMBER", "_MAX_SEQUENCE_NUMBER",
				"_SCHEMA_ID", "_LEVEL", "_EXTRA_FILES"},
			nested: map[string]*schemaReq{"_KEY_STATS": simpleStatsReq, "_VALUE_STATS": simpleStatsReq},
		}},
	}
}

func checkKind(k int32) (FileKind, error) {
	if k == int32(Add) || k == int32(Delete) {
		return FileKind(k), nil
	}
	return 0, fmt.Errorf("invalid _KIND %d (want 0 = ADD or 1 = DELETE)", k)
}

// ReadManifestFunc decodes a manifest and calls fn for each entry in file
// order, so planners can filter by partition, bucket or stats without holding
// every entry. fn owns the entry (nothing is reused between calls). An error
// from fn stops the read and is returned wrapped with the file name.
func ReadManifestFunc(ctx context.Context, fio fileio.FileIO, path string, fn func(*Entry) error) error {
	return (*Decoder)(nil).ReadManifestFunc(ctx, fio, path, Want{}, fn)
}

// ReadManifestFunc is the package function of that name, with the schema
// cache, the decoded-file cache when the Decoder has one, and the check
// against what the manifest list records (made on every read, cached or
// not: another list may record other counts for the same file).
func (d *Decoder) ReadManifestFunc(ctx context.Context, fio fileio.FileIO, path string, want Want, fn func(*Entry) error) error {
	var added, deleted int64
	count := func(e *Entry) error {
		if e.Kind == Add {
			added++
		} else {
			deleted++
		}
		return fn(e)
	}
	var err error
	if c := d.fileCache(); c != nil {
		var it *cacheItem
		it, err = c.get(ctx, cacheKey{path, want.Size}, func(it *cacheItem) error {
			return d.decodeManifest(ctx, fio, path, want.Size, func(e *Entry) error {
				it.entries = append(it.entries, *e)
				return nil
			})
		})
		for i := 0; err == nil && i < len(it.entries); i++ {
			e := it.entries[i] // fn owns its entry; the slices inside are shared and read-only
			err = count(&e)
		}
	} else {
		err = d.decodeManifest(ctx, fio, path, want.Size, count)
	}
	if err == nil && want.Counted && (added != want.Added || deleted != want.Deleted) {
		err = fmt.Errorf("%d ADD and %d DELETE entries, the manifest list records %d and %d: %w",
			added, deleted, want.Added, want.Deleted, types.ErrCorrupt)
	}
	if err != nil {
		return fmt.Errorf("read manifest %s: %w", path, err)
	}
	return nil
}

func (d *Decoder) decodeManifest(ctx context.Context, fio fileio.FileIO, path string, size int64, fn func(*Entry) error) error {
	return decodeFile(ctx, d, fio, path, size, manifestReq(), func(r *entryRecord) error {
		if err := checkVersion(r.Version, ManifestVersion); err != nil {
			return err
		}
		kind, err := checkKind(r.Kind)
		if err != nil {
			return err
		}
		return fn(&Entry{Kind: kind, Partition: r.Partition, Bucket: r.Bucket, TotalBuckets: r.TotalBuckets, File: r.File})
	})
}

// ReadManifest reads every entry of a manifest, in file order.
func ReadManifest(ctx context.Context, fio fileio.FileIO, path string) ([]Entry, error) {
	var out []Entry
	err := ReadManifestFunc(ctx, fio, path, func(e *Entry) error {
		out = append(out, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

type dvRangeRecord struct {
	DataFile    string `avro:"f0"`
	Offset      int32  `avro:"f1"`
	Length      int32  `avro:"f2"`
	Cardinality *int64 `avro:"_CARDINALITY"`
}

type indexEntryRecord struct {
	Version   int32  `avro:"_VERSION"`
	Kind      int32  `avro:"_KIND"`
	Partition []byte `avro:"_PARTITION"`
	Bucket    int32  `avro:"_BUCKET"`
	IndexType string `avro:"_INDEX_TYPE"`
	FileName  string `avro:"_FILE_NAME"`
	FileSize  int64  `avro:"_FILE_SIZE"`
	RowCount  int64  `avro:"_ROW_COUNT"`
	// Java writes the items as nullable records, pypaimon as plain records;
	// a pointer element decodes both.
	Ranges       []*dvRangeRecord `avro:"_DELETIONS_VECTORS_RANGES"`
	ExternalPath *string          `avro:"_EXTERNAL_PATH"`
	GlobalIndex  *GlobalIndexMeta `avro:"_GLOBAL_INDEX"`
}

func indexManifestReq() *schemaReq {
	dvItem := &schemaReq{fields: []string{"f0", "f1", "f2"}}
	return &schemaReq{
		fields: []string{"_VERSION", "_KIND", "_PARTITION", "_BUCKET", "_INDEX_TYPE",
			"_FILE_NAME", "_FILE_SIZE", "_ROW_COUNT"},
		nested: map[string]*schemaReq{
			"_GLOBAL_INDEX": {fields: []string{"_ROW_RANGE_START", "_ROW_RANGE_END", "_INDEX_FIELD_ID"}},
		},
		arrayItems: map[string]*schemaReq{"_DELETIONS_VECTORS_RANGES": dvItem},
	}
}

// ReadIndexManifest reads a snapshot's index manifest (snapshot.indexManifest).
func ReadIndexManifest(ctx context.Context, fio fileio.FileIO, path string) ([]IndexEntry, error) {
	return (*Decoder)(nil).ReadIndexManifest(ctx, fio, path)
}

// ReadIndexManifest is the package function of that name, with the schema
// cache. Snapshots record no size of their index manifest to check.
func (d *Decoder) ReadIndexManifest(ctx context.Context, fio fileio.FileIO, path string) ([]IndexEntry, error) {
	var out []IndexEntry
	err := decodeFile(ctx, d, fio, path, 0, indexManifestReq(), func(r *indexEntryRecord) error {
		if err := checkVersion(r.Version, IndexManifestVersion); err != nil {
			return err
		}
		kind, err := checkKind(r.Kind)
		if err != nil {
			return err
		}
		e := IndexEntry{
			Kind: kind, Partition: r.Partition, Bucket: r.Bucket, IndexType: r.IndexType,
			FileName: r.FileName, FileSize: r.FileSize, RowCount: r.RowCount,
			ExternalPath: r.ExternalPath, GlobalIndex: r.GlobalIndex,
		}
		if r.Ranges != nil {
			e.DeletionVectorRanges = make([]DVRange, 0, len(r.Ranges))
			for _, rg := range r.Ranges {
				if rg == nil {
					// A null item carries nothing to lose; Java never writes one.
					continue
				}
				if rg.Offset < 0 || rg.Length < 0 {
					return fmt.Errorf("deletion vector range of %s: negative offset %d or length %d",
						rg.DataFile, rg.Offset, rg.Length)
				}
				e.DeletionVectorRanges = append(e.DeletionVectorRanges, DVRange{
					DataFile: rg.DataFile, Offset: rg.Offset, Length: rg.Length, Cardinality: rg.Cardinality,
				})
			}
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read index manifest %s: %w", path, err)
	}
	return out, nil
}
