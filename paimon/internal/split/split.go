// Package split holds the unit of reading the planner (package scan)
// produces and the readers (packages datafile, mergetree, read) consume: the
// data files of one partition and bucket, each with its deletion vector.
// It is its own package so that readers need not import the planner.
package split

import "github.com/connect-paimon/connect-paimon/paimon/internal/manifest"

// DeletionFile locates the deletion vector of one data file inside an index
// file.
type DeletionFile struct {
	Path        string
	Offset      int64
	Length      int64
	Cardinality *int64
}

// DataFile is one data file of a split with its resolved location.
type DataFile struct {
	Meta manifest.DataFileMeta
	// Path is the full path: _EXTERNAL_PATH when set, else the bucket
	// directory joined with the file name.
	Path string
	// Deletion is the file's deletion vector, nil when it has none.
	Deletion *DeletionFile
}

// Split is the unit of reading: files of one partition and bucket.
type Split struct {
	// SnapshotID is the snapshot the split was planned from.
	SnapshotID int64
	// Partition is the serialized partition BinaryRow (identity).
	Partition []byte
	// PartitionValues are the typed partition values, aligned with the
	// table's partition keys.
	PartitionValues []any
	Bucket          int32
	TotalBuckets    int32
	// BucketPath is the directory of the partition and bucket.
	BucketPath string
	Files      []DataFile
	// Changelog is true when the files are changelog files (streaming with a
	// changelog producer).
	Changelog bool
	// Retract is true when every row of the split is a retraction (-D): the
	// files an OVERWRITE removed, read with streaming-read-overwrite.
	Retract bool
	// Raw is true when a primary-key split is read unmerged, every record
	// with its own row kind (streaming delta and changelog files).
	Raw bool
	// Diff marks a split of an incremental diff (two snapshots' contents
	// compared, Java's IncrementalDiffStartingScanner): Files are the later
	// snapshot's files of the bucket the earlier one lacks, Before the
	// earlier snapshot's files the later one lacks. A primary-key split
	// with Before files returns per key the later merged row where it is
	// new or differs from the earlier merged row; without Before files it
	// is a merged read of Files (never read raw). Append tables read Files.
	Diff   bool
	Before []DataFile
}

// RowCount is the number of physical rows in the split's files.
func (s *Split) RowCount() int64 {
	var n int64
	for _, f := range s.Files {
		n += f.Meta.RowCount
	}
	return n
}
