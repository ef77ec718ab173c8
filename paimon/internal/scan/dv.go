package scan

import (
	"context"
	"fmt"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
	"github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"
	"github.com/connect-paimon/connect-paimon/paimon/internal/split"
)

// indexTypeDV is the index type of deletion-vector index files.
const indexTypeDV = "DELETION_VECTORS"

// attachDeletionVectors resolves each planned file's deletion vector from
// the snapshot's index manifest. All DV index entries of a (partition,
// bucket) are combined: bucket-unaware append tables can have several index
// files per partition (pypaimon keeps only the last one — a bug we don't
// copy).
func (p *Planner) attachDeletionVectors(ctx context.Context, snap *snapshot.Snapshot, splits []*split.Split) error {
	if snap.IndexManifest == nil || *snap.IndexManifest == "" || len(splits) == 0 {
		return nil
	}
	path := p.manifestPath(*snap.IndexManifest)
	entries, err := p.Manifests.ReadIndexManifest(ctx, p.FIO, path)
	if err != nil {
		return fmt.Errorf("snapshot %d: %w", snap.ID, err)
	}
	type key struct {
		part   string
		bucket int32
	}
	byBucket := map[key]map[string]split.DeletionFile{}
	indexInDataDir := p.Schema.IndexFileInDataFileDir()
	for i := range entries {
		e := &entries[i]
		if e.Kind != manifest.Add || e.IndexType != indexTypeDV {
			continue
		}
		var file string
		switch {
		case e.ExternalPath != nil && *e.ExternalPath != "":
			file = *e.ExternalPath
		case indexInDataDir:
			vals, err := decodePartition(e.Partition, p.partTypes)
			if err != nil {
				return fmt.Errorf("index manifest %s: %w", path, err)
			}
			dir, err := p.Paths.BucketDir(vals, e.Bucket)
			if err != nil {
				return fmt.Errorf("index manifest %s: %w", path, err)
			}
			file = fileio.Join(dir, e.FileName)
		default:
			file = fileio.Join(p.TableRoot, "index", e.FileName)
		}
		k := key{string(e.Partition), e.Bucket}
		m := byBucket[k]
		if m == nil {
			m = map[string]split.DeletionFile{}
			byBucket[k] = m
		}
		for _, r := range e.DeletionVectorRanges {
			m[r.DataFile] = split.DeletionFile{Path: file, Offset: int64(r.Offset), Length: int64(r.Length), Cardinality: r.Cardinality}
		}
	}
	for _, sp := range splits {
		m := byBucket[key{string(sp.Partition), sp.Bucket}]
		if m == nil {
			continue
		}
		for i := range sp.Files {
			if d, ok := m[sp.Files[i].Meta.FileName]; ok {
				d := d
				sp.Files[i].Deletion = &d
			}
		}
	}
	return nil
}
