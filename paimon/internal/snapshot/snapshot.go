// Package snapshot reads Paimon snapshots (snapshot/snapshot-N JSON), finds
// the latest/earliest snapshot the way Java does (hint files verified
// against the directory), looks snapshots up by time, and reads tags.
package snapshot

import (
	"fmt"

	"github.com/connect-paimon/connect-paimon/paimon/internal/strictjson"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// CommitKind says what a commit did to the table's files.
type CommitKind string

// The commit kinds Paimon writes.
const (
	// CommitAppend only added new files.
	CommitAppend CommitKind = "APPEND"
	// CommitCompact rewrote or re-levelled files without changing data.
	CommitCompact CommitKind = "COMPACT"
	// CommitOverwrite deleted and/or replaced files (INSERT OVERWRITE,
	// TRUNCATE, DELETE, ...); streaming readers skip it by default.
	CommitOverwrite CommitKind = "OVERWRITE"
	// CommitAnalyze only wrote statistics.
	CommitAnalyze CommitKind = "ANALYZE"
)

// BatchCommitIdentifier is the commitIdentifier of batch (non-checkpoint)
// commits: Java's Long.MAX_VALUE.
const BatchCommitIdentifier int64 = 1<<63 - 1

// Snapshot is one snapshot-N file. Optional keys are pointers (nil when the
// key is absent or null, which writers of different versions both do);
// required keys are plain values.
type Snapshot struct {
	// Version is the snapshot format version (1 when absent, 3 for every
	// writer since Paimon 0.4).
	Version int
	// UUID identifies the snapshot content (since 2.0); after a rollback an
	// id can be reused with a different UUID. "" when absent.
	UUID string
	// ID is the snapshot id, N in snapshot-N.
	ID int64
	// SchemaID is the schema the committer wrote with.
	SchemaID int64
	// BaseManifestList is the manifest list (file name in manifest/) with
	// the table state before this commit.
	BaseManifestList string
	// BaseManifestListSize is that file's size, a cache hint.
	BaseManifestListSize *int64
	// DeltaManifestList holds the changes of this commit.
	DeltaManifestList string
	// DeltaManifestListSize is that file's size, a cache hint.
	DeltaManifestListSize *int64
	// ChangelogManifestList lists this commit's changelog files (only with
	// a changelog producer).
	ChangelogManifestList *string
	// ChangelogManifestListSize is that file's size, a cache hint.
	ChangelogManifestListSize *int64
	// IndexManifest is the full list of live index files (deletion
	// vectors...); nil means there are none.
	IndexManifest *string
	// CommitUser identifies the writer.
	CommitUser string
	// WriterVersion is the writer's Paimon version ("" when absent).
	WriterVersion string
	// CommitIdentifier is the checkpoint id, BatchCommitIdentifier for
	// batch commits.
	CommitIdentifier int64
	// CommitKind says what the commit did.
	CommitKind CommitKind
	// TimeMillis is the commit wall-clock time in epoch milliseconds.
	TimeMillis int64
	// TotalRecordCount is the row count of all live files (unmerged); nil
	// for snapshots written before Paimon 0.4.
	TotalRecordCount *int64
	// DeltaRecordCount is the row-count change of this commit.
	DeltaRecordCount *int64
	// ChangelogRecordCount is the row count of this commit's changelog.
	ChangelogRecordCount *int64
	// Watermark is the event-time watermark, if any.
	Watermark *int64
	// Statistics is a file name in statistics/, if any.
	Statistics *string
	// Properties are free-form commit properties.
	Properties map[string]string
	// NextRowID is the next row id to assign (row tracking).
	NextRowID *int64
	// Operation is the logical operation (WRITE, DELETE, ...; since 2.0).
	Operation string
}

// HasChangelog reports whether the commit produced changelog files.
func (s *Snapshot) HasChangelog() bool {
	return s.ChangelogManifestList != nil && *s.ChangelogManifestList != ""
}

// HasIndexManifest reports whether the snapshot has index files.
func (s *Snapshot) HasIndexManifest() bool { return s.IndexManifest != nil && *s.IndexManifest != "" }

// snapshotJSON mirrors the file; pointers tell absent/null from zero.
type snapshotJSON struct {
	Version                   *int              `json:"version"`
	UUID                      *string           `json:"uuid"`
	ID                        *int64            `json:"id"`
	SchemaID                  *int64            `json:"schemaId"`
	BaseManifestList          *string           `json:"baseManifestList"`
	BaseManifestListSize      *int64            `json:"baseManifestListSize"`
	DeltaManifestList         *string           `json:"deltaManifestList"`
	DeltaManifestListSize     *int64            `json:"deltaManifestListSize"`
	ChangelogManifestList     *string           `json:"changelogManifestList"`
	ChangelogManifestListSize *int64            `json:"changelogManifestListSize"`
	IndexManifest             *string           `json:"indexManifest"`
	CommitUser                *string           `json:"commitUser"`
	WriterVersion             *string           `json:"writerVersion"`
	CommitIdentifier          *int64            `json:"commitIdentifier"`
	CommitKind                *string           `json:"commitKind"`
	TimeMillis                *int64            `json:"timeMillis"`
	TotalRecordCount          *int64            `json:"totalRecordCount"`
	DeltaRecordCount          *int64            `json:"deltaRecordCount"`
	ChangelogRecordCount      *int64            `json:"changelogRecordCount"`
	Watermark                 *int64            `json:"watermark"`
	Statistics                *string           `json:"statistics"`
	Properties                map[string]string `json:"properties"`
	NextRowID                 *int64            `json:"nextRowId"`
	Operation                 *string           `json:"operation"`
}

// Parse decodes a snapshot file of any version. Unknown keys are ignored
// (Java does the same, so newer writers stay readable); a required key that
// is missing or null is an error naming the key.
func Parse(data []byte) (*Snapshot, error) {
	var raw snapshotJSON
	if err := decodeStrict(data, &raw); err != nil {
		return nil, fmt.Errorf("decode snapshot: %w", err)
	}
	return raw.toSnapshot()
}

// decodeStrict decodes a snapshot or tag file.
func decodeStrict(data []byte, v any) error {
	return strictjson.Decode(data, v, fmt.Errorf("empty file: %w", types.ErrCorrupt), "JSON object")
}

func (raw *snapshotJSON) toSnapshot() (*Snapshot, error) {
	if err := strictjson.Required("snapshot", raw, "id", "schemaId", "baseManifestList", "deltaManifestList",
		"commitUser", "commitIdentifier", "commitKind", "timeMillis"); err != nil {
		return nil, err
	}
	s := &Snapshot{
		Version:                   1,
		ID:                        *raw.ID,
		SchemaID:                  *raw.SchemaID,
		BaseManifestList:          *raw.BaseManifestList,
		BaseManifestListSize:      raw.BaseManifestListSize,
		DeltaManifestList:         *raw.DeltaManifestList,
		DeltaManifestListSize:     raw.DeltaManifestListSize,
		ChangelogManifestList:     raw.ChangelogManifestList,
		ChangelogManifestListSize: raw.ChangelogManifestListSize,
		IndexManifest:             raw.IndexManifest,
		CommitUser:                *raw.CommitUser,
		CommitIdentifier:          *raw.CommitIdentifier,
		CommitKind:                CommitKind(*raw.CommitKind),
		TimeMillis:                *raw.TimeMillis,
		TotalRecordCount:          raw.TotalRecordCount,
		DeltaRecordCount:          raw.DeltaRecordCount,
		ChangelogRecordCount:      raw.ChangelogRecordCount,
		Watermark:                 raw.Watermark,
		Statistics:                raw.Statistics,
		Properties:                raw.Properties,
		NextRowID:                 raw.NextRowID,
	}
	if raw.Version != nil {
		s.Version = *raw.Version
	}
	if raw.UUID != nil {
		s.UUID = *raw.UUID
	}
	if raw.WriterVersion != nil {
		s.WriterVersion = *raw.WriterVersion
	}
	if raw.Operation != nil {
		s.Operation = *raw.Operation
	}
	switch s.CommitKind {
	case CommitAppend, CommitCompact, CommitOverwrite, CommitAnalyze:
	default:
		// Java's enum would refuse it too; guessing could replay an
		// overwrite as an append.
		return nil, fmt.Errorf("snapshot %d: unknown commitKind %q", s.ID, s.CommitKind)
	}
	if s.ID < 0 || s.SchemaID < 0 {
		return nil, fmt.Errorf("snapshot %d: negative id or schemaId %d", s.ID, s.SchemaID)
	}
	if s.BaseManifestList == "" || s.DeltaManifestList == "" {
		return nil, fmt.Errorf("snapshot %d: empty manifest list name", s.ID)
	}
	return s, nil
}
