// Package manifest decodes Paimon's metadata files: manifest lists (one
// FileMeta per manifest), manifests (ManifestEntry records, each wrapping a
// DataFileMeta) and index manifests (IndexManifestEntry records pointing at
// deletion-vector and other index files).
//
// All three are Avro object container files. They are always decoded with the
// writer schema embedded in the file and their fields are addressed by name:
// Paimon only ever appended fields, as nullable unions defaulting to null, so
// files of old writers simply lack the newer fields, which then stay nil here.
// Record names differ between Java ("org.apache.paimon.avro.generated.record",
// "record__FILE") and pypaimon ("ManifestEntry", "DataFileMeta") and are never
// looked at.
//
// Decoding goes straight into Go structs (no map per record), so planning a
// table with many manifests stays cheap; ReadManifestFunc streams entries to a
// callback for planners that filter while reading.
package manifest

import "strconv"

// SimpleStats is the min/max/null-count triple Paimon keeps for a set of
// columns (partition columns, key columns or value columns). MinValues and
// MaxValues are serialized BinaryRows (arity prefix included) left raw here:
// decoding them needs the row type, which the binrow package takes. A nil
// element of NullCounts means the count is unknown; a nil NullCounts means no
// counts were recorded at all.
type SimpleStats struct {
	MinValues  []byte   `avro:"_MIN_VALUES"`
	MaxValues  []byte   `avro:"_MAX_VALUES"`
	NullCounts []*int64 `avro:"_NULL_COUNTS"`
}

// FileMeta is one record of a manifest list (Java's ManifestFileMeta): a
// manifest file plus summary statistics a planner uses to skip the whole
// manifest. The pointer fields were added in later Paimon versions (buckets
// and levels in 1.1, row ids in 1.4) and are nil when the writer did not
// record them; pypaimon never writes the bucket and level ranges. Nil means
// "unknown", never "empty".
type FileMeta struct {
	// FileName is the manifest's name inside the table's manifest directory.
	FileName        string      `avro:"_FILE_NAME"`
	FileSize        int64       `avro:"_FILE_SIZE"`
	NumAddedFiles   int64       `avro:"_NUM_ADDED_FILES"`
	NumDeletedFiles int64       `avro:"_NUM_DELETED_FILES"`
	PartitionStats  SimpleStats `avro:"_PARTITION_STATS"`
	// SchemaID is the largest schema id among the manifest's entries.
	SchemaID  int64  `avro:"_SCHEMA_ID"`
	MinBucket *int32 `avro:"_MIN_BUCKET"`
	MaxBucket *int32 `avro:"_MAX_BUCKET"`
	MinLevel  *int32 `avro:"_MIN_LEVEL"`
	MaxLevel  *int32 `avro:"_MAX_LEVEL"`
	MinRowID  *int64 `avro:"_MIN_ROW_ID"`
	MaxRowID  *int64 `avro:"_MAX_ROW_ID"`
	// TotalBuckets is the bucket count shared by the manifest's entries,
	// nil when unknown or mixed. pypaimon 2.1 writes it; a pruning hint only.
	TotalBuckets *int32 `avro:"_TOTAL_BUCKETS"`
	// ExtraFiles are auxiliary files of the manifest (pypaimon 2.1 writes
	// ".avro.sidecar" block indexes there); never needed to read entries.
	ExtraFiles []string `avro:"_EXTRA_FILES"`
}

// FileKind says whether a manifest entry adds a file to the table or removes
// one that an earlier entry added.
type FileKind int8

const (
	// Add makes a data file (or index file) part of the table.
	Add FileKind = 0
	// Delete removes a file added earlier; the pair cancels out when
	// entries are merged.
	Delete FileKind = 1
)

// String returns "ADD" or "DELETE", the spelling Java uses in its logs.
func (k FileKind) String() string {
	switch k {
	case Add:
		return "ADD"
	case Delete:
		return "DELETE"
	}
	return "FileKind(" + strconv.Itoa(int(k)) + ")"
}

// DataFileMeta describes one data file (Java's DataFileMeta). Field names
// follow Java; the Avro names are in the struct tags.
//
// Pointer fields and the nil-able slices were appended in later versions and
// are nil when the writer did not write them or wrote null. For
// ValueStatsCols and WriteCols, nil and empty are different things and both
// are preserved: nil ValueStatsCols means ValueStats covers every column of
// the file's schema (in schema order), while a non-nil empty slice means it
// covers no column at all (stats disabled, "dense" stats with nothing kept).
// Likewise nil WriteCols means the file holds every column of its schema,
// an empty one that it holds none of the value columns.
type DataFileMeta struct {
	FileName string `avro:"_FILE_NAME"`
	FileSize int64  `avro:"_FILE_SIZE"`
	// RowCount counts physical rows, retract rows of PK tables included.
	RowCount int64 `avro:"_ROW_COUNT"`
	// MinKey and MaxKey are BinaryRows of the primary key of the first and
	// last row (empty rows for append tables).
	MinKey            []byte      `avro:"_MIN_KEY"`
	MaxKey            []byte      `avro:"_MAX_KEY"`
	KeyStats          SimpleStats `avro:"_KEY_STATS"`
	ValueStats        SimpleStats `avro:"_VALUE_STATS"`
	MinSequenceNumber int64       `avro:"_MIN_SEQUENCE_NUMBER"`
	MaxSequenceNumber int64       `avro:"_MAX_SEQUENCE_NUMBER"`
	SchemaID          int64       `avro:"_SCHEMA_ID"`
	Level             int32       `avro:"_LEVEL"`
	// ExtraFiles are auxiliary files next to the data file (file indexes,
	// sidecars), never data.
	ExtraFiles []string `avro:"_EXTRA_FILES"`
	// CreationTime is epoch milliseconds of the writer's local wall clock
	// read as if it were UTC (Java's Timestamp.fromLocalDateTime(now)). It
	// is therefore not an instant and must not be compared across zones.
	CreationTime   *int64 `avro:"_CREATION_TIME"`
	DeleteRowCount *int64 `avro:"_DELETE_ROW_COUNT"`
	// EmbeddedIndex is a small file index inlined into the manifest.
	EmbeddedIndex []byte `avro:"_EMBEDDED_FILE_INDEX"`
	// FileSource is 0 for files written by a writer, 1 for compaction output.
	FileSource     *int32   `avro:"_FILE_SOURCE"`
	ValueStatsCols []string `avro:"_VALUE_STATS_COLS"`
	// ExternalPath is the file's full path when it lives outside the table
	// directory.
	ExternalPath       *string  `avro:"_EXTERNAL_PATH"`
	FirstRowID         *int64   `avro:"_FIRST_ROW_ID"`
	WriteCols          []string `avro:"_WRITE_COLS"`
	WriteColsSequences []int64  `avro:"_WRITE_COLS_SEQUENCES"`
}

// Entry is one record of a manifest (Java's ManifestEntry).
type Entry struct {
	Kind FileKind
	// Partition is the serialized BinaryRow of the partition values.
	Partition []byte
	Bucket    int32
	// TotalBuckets is the bucket count of the partition when the file was
	// written; only bucket pruning uses it.
	TotalBuckets int32
	File         DataFileMeta
}

// DVRange locates the deletion vector of one data file inside a deletion
// vector index file (Java's DeletionVectorMeta).
type DVRange struct {
	// DataFile is the data file's name; DVs match data files by name within
	// a (partition, bucket).
	DataFile string
	// Offset is where the DV's 4-byte length prefix starts in the index file.
	Offset int32
	// Length is as written: the bitmap length for 32-bit vectors, the whole
	// blob for 64-bit ones. Readers should not rely on its meaning.
	Length int32
	// Cardinality is the number of deleted rows; nil before Paimon 1.0.
	Cardinality *int64
}

// GlobalIndexMeta describes a global index file (Paimon 1.4+): which row
// range and which field it indexes.
type GlobalIndexMeta struct {
	RowRangeStart int64   `avro:"_ROW_RANGE_START"`
	RowRangeEnd   int64   `avro:"_ROW_RANGE_END"`
	IndexFieldID  int32   `avro:"_INDEX_FIELD_ID"`
	ExtraFieldIDs []int32 `avro:"_EXTRA_FIELD_IDS"`
	IndexMeta     []byte  `avro:"_INDEX_META"`
	SourceMeta    []byte  `avro:"_SOURCE_META"`
}

// IndexEntry is one record of an index manifest (Java's IndexManifestEntry
// with its IndexFileMeta flattened in). A snapshot's index manifest is a full
// list, so every entry of a current index manifest is an Add.
type IndexEntry struct {
	Kind      FileKind
	Partition []byte
	Bucket    int32
	// IndexType is "DELETION_VECTORS", "HASH" or a global index type.
	IndexType string
	FileName  string
	FileSize  int64
	// RowCount is the number of data files covered for DV index files.
	RowCount int64
	// DeletionVectorRanges is nil when the writer wrote none (non-DV index
	// types), in the order written.
	DeletionVectorRanges []DVRange
	ExternalPath         *string
	GlobalIndex          *GlobalIndexMeta
}
