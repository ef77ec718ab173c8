// Package schema reads Paimon table schemas (the schema/schema-N JSON
// files), exposes the table options the reader depends on as a thin typed
// layer, and maps columns between schema versions by field id.
package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/internal/strictjson"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Schema file format versions (TableSchema.PAIMON_07_VERSION,
// PAIMON_08_VERSION, CURRENT_VERSION in Java). Older versions imply other
// option defaults, applied by Parse.
const (
	Version07      = 1
	Version08      = 2
	CurrentVersion = 3
)

// TableSchema is one schema-N file: the columns, keys and options of a table
// as of one schema id. Schemas are immutable once written.
type TableSchema struct {
	// Version is the file format version (1 when the key is absent).
	Version int
	// ID is the schema id, N in schema-N.
	ID int64
	// Fields are the top-level columns in order; nested ROW fields carry
	// their own ids.
	Fields []types.DataField
	// HighestFieldID is the largest field id ever assigned, including
	// nested and dropped fields.
	HighestFieldID int
	// PartitionKeys and PrimaryKeys are column names in key order.
	PartitionKeys, PrimaryKeys []string
	// Options are all table options with the version defaults applied.
	// Never change them in place: derive a schema with WithOptions.
	Options map[string]string
	// Comment is the table comment ("" when absent or null).
	Comment string
	// TimeMillis is the creation time in epoch milliseconds (0 when absent).
	TimeMillis int64

	// merge is the parsed MergeOptions of a primary-key schema from Parse.
	merge *mergeParse
}

// schemaJSON mirrors the file; pointers tell absent keys from zero values.
type schemaJSON struct {
	Version        *int               `json:"version"`
	ID             *int64             `json:"id"`
	Fields         *[]types.DataField `json:"fields"`
	HighestFieldID *int               `json:"highestFieldId"`
	PartitionKeys  *[]string          `json:"partitionKeys"`
	PrimaryKeys    *[]string          `json:"primaryKeys"`
	Options        map[string]string  `json:"options"`
	Comment        *string            `json:"comment"`
	TimeMillis     *int64             `json:"timeMillis"`
}

// Parse decodes a schema file as written by Java Paimon (any version) or
// pypaimon, applies the version-dependent option defaults the writer
// assumed, and validates that the keys name existing columns and that the
// options the reader relies on have valid values.
func Parse(data []byte) (*TableSchema, error) {
	var raw schemaJSON
	if err := strictjson.Decode(data, &raw, fmt.Errorf("empty file: %w", types.ErrCorrupt), "JSON object"); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	if err := strictjson.Required("schema", &raw, "id", "fields", "highestFieldId", "partitionKeys", "primaryKeys"); err != nil {
		return nil, err
	}
	s := &TableSchema{
		Version:        Version07,
		ID:             *raw.ID,
		Fields:         *raw.Fields,
		HighestFieldID: *raw.HighestFieldID,
		PartitionKeys:  *raw.PartitionKeys,
		PrimaryKeys:    *raw.PrimaryKeys,
		Options:        raw.Options,
	}
	if raw.Version != nil {
		s.Version = *raw.Version
	}
	if s.Options == nil {
		s.Options = map[string]string{}
	}
	if raw.Comment != nil {
		s.Comment = *raw.Comment
	}
	if raw.TimeMillis != nil {
		s.TimeMillis = *raw.TimeMillis
	}
	// Old writers relied on defaults that have since changed; make them
	// explicit so the rest of the reader sees what the writer meant.
	if _, ok := s.Options[OptBucket]; !ok && s.Version <= Version07 {
		s.Options[OptBucket] = "1"
	}
	if _, ok := s.Options[OptFileFormat]; !ok && s.Version <= Version08 {
		s.Options[OptFileFormat] = "orc"
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("schema %d: %w", s.ID, err)
	}
	// Parsed here, once per schema file: every split of the table reuses
	// them. An unsupported option is not an error of the file; it is
	// reported when a read asks for the merge options.
	return s.WithOptions(s.Options), nil
}

func (s *TableSchema) validate() error {
	if s.ID < 0 {
		return fmt.Errorf("negative schema id %d", s.ID)
	}
	seen := make(map[string]bool, len(s.Fields))
	ids := make(map[int]bool, len(s.Fields))
	for _, f := range s.Fields {
		if seen[f.Name] {
			return fmt.Errorf("duplicate column name %q", f.Name)
		}
		if ids[f.ID] {
			return fmt.Errorf("duplicate field id %d (column %q)", f.ID, f.Name)
		}
		seen[f.Name] = true
		ids[f.ID] = true
	}
	for _, k := range s.PartitionKeys {
		if !seen[k] {
			return fmt.Errorf("partition key %q is not a column", k)
		}
	}
	for _, k := range s.PrimaryKeys {
		if !seen[k] {
			return fmt.Errorf("primary key %q is not a column", k)
		}
	}
	if _, err := s.IntOption(OptBucket, -1); err != nil {
		return err
	}
	for _, k := range []string{OptPartitionLegacyName, OptDeletionVectorsEnabled, OptDataEvolutionEnabled,
		OptRowTrackingEnabled, OptIndexFileInDataFileDir, OptChainTableEnabled, OptStreamingReadOverwrite} {
		if _, err := s.BoolOption(k, false); err != nil {
			return err
		}
	}
	if _, _, err := s.DurationOption(OptConsumerExpirationTime); err != nil {
		return err
	}
	if _, err := s.ChangelogLifecycleDecoupled(); err != nil {
		return err
	}
	for _, k := range s.BucketKeys() {
		if !seen[k] {
			return fmt.Errorf("bucket key %q is not a column", k)
		}
	}
	return nil
}

// TrimmedPrimaryKeys returns the primary keys without the partition keys:
// the physical key columns of a primary-key table's data files. Empty for
// append tables.
func (s *TableSchema) TrimmedPrimaryKeys() []string {
	var out []string
	for _, k := range s.PrimaryKeys {
		if !contains(s.PartitionKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

// BucketKeys returns the columns rows are hashed on to pick a bucket: the
// bucket-key option if set, else the trimmed primary keys. Empty for
// append tables without bucket-key (their bucket is not key-derived).
func (s *TableSchema) BucketKeys() []string {
	if v := strings.TrimSpace(s.Options[OptBucketKey]); v != "" {
		var out []string
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				out = append(out, k)
			}
		}
		return out
	}
	return s.TrimmedPrimaryKeys()
}

// NumBuckets returns option bucket: -1 (dynamic or unaware), -2 (postpone)
// or a fixed count. Parse has validated the value.
func (s *TableSchema) NumBuckets() int {
	n, _ := s.IntOption(OptBucket, -1)
	return n
}

// PartitionFields returns the partition columns in partition key order,
// which is the field order of partition BinaryRows.
func (s *TableSchema) PartitionFields() []types.DataField {
	out := make([]types.DataField, 0, len(s.PartitionKeys))
	for _, k := range s.PartitionKeys {
		if f, ok := s.Field(k); ok {
			out = append(out, f)
		}
	}
	return out
}

// TrimmedPrimaryKeyFields returns the fields of TrimmedPrimaryKeys, the
// field order of min/max key rows and key stats.
func (s *TableSchema) TrimmedPrimaryKeyFields() []types.DataField {
	keys := s.TrimmedPrimaryKeys()
	out := make([]types.DataField, 0, len(keys))
	for _, k := range keys {
		if f, ok := s.Field(k); ok {
			out = append(out, f)
		}
	}
	return out
}

// RowType returns the table row type (nullable ROW of all fields).
func (s *TableSchema) RowType() types.DataType {
	return types.DataType{Root: types.Row, Nullable: true, Fields: s.Fields}
}

// Field returns the top-level column named name.
func (s *TableSchema) Field(name string) (types.DataField, bool) {
	if i := typeutil.FieldByName(s.Fields, name); i >= 0 {
		return s.Fields[i], true
	}
	return types.DataField{}, false
}

// FieldNames returns the top-level column names in order.
func (s *TableSchema) FieldNames() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// IndexMapping maps columns of a file written with an older schema to the
// target (read) schema by field id, as Java's SchemaEvolutionUtil does: for
// each target field the index of the file field with the same id, or -1
// when the file predates the column (it reads as NULL). File fields absent
// from the target were dropped and are not referenced. Renames are
// transparent because ids are stable.
func IndexMapping(target, file []types.DataField) []int {
	byID := make(map[int]int, len(file))
	for i, f := range file {
		byID[f.ID] = i
	}
	out := make([]int, len(target))
	for i, f := range target {
		if j, ok := byID[f.ID]; ok {
			out[i] = j
		} else {
			out[i] = -1
		}
	}
	return out
}

// StatsFields returns the fields, in the file schema, that the value stats
// row of one data file covers (paimon-format.md §5.6).
//
// writeCols is the file's _WRITE_COLS: nil means the file holds every column
// of fileSchema; otherwise the columns are those names in that order, with
// names that are not schema columns (system columns such as _ROW_ID)
// skipped. valueStatsCols is _VALUE_STATS_COLS: nil means stats cover all
// of those columns; a non-nil empty slice means the file has no value stats;
// otherwise the stats row holds exactly those columns in that order, and a
// name that is not a column of the file is an error (the stats row could
// not be decoded).
func StatsFields(fileSchema *TableSchema, valueStatsCols []string, writeCols []string) ([]types.DataField, error) {
	base := fileSchema.Fields
	if writeCols != nil {
		base = make([]types.DataField, 0, len(writeCols))
		for _, name := range writeCols {
			if f, ok := fileSchema.Field(name); ok {
				base = append(base, f)
			}
		}
	}
	if valueStatsCols == nil {
		return base, nil
	}
	out := make([]types.DataField, 0, len(valueStatsCols))
	for _, name := range valueStatsCols {
		i := typeutil.FieldByName(base, name)
		if i < 0 {
			return nil, fmt.Errorf("stats column %q is not a column of schema %d", name, fileSchema.ID)
		}
		out = append(out, base[i])
	}
	return out, nil
}

// parseBool accepts what Java's Options accept for booleans.
func parseBool(key, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("option %s: %q is not a boolean", key, v)
}

func parseInt(key, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("option %s: %q is not an integer", key, v)
	}
	return n, nil
}

// BucketMode names how rows are assigned to buckets, as Java's BucketMode:
// "fixed" (bucket > 0, by hash of the bucket keys), "dynamic" (bucket -1,
// primary key containing every partition key: an index assigns buckets),
// "cross-partition" (bucket -1, primary key without every partition key:
// a key may move between partitions), "unaware" (bucket -1 append table:
// no buckets) and "postpone" (bucket -2: written unbucketed, bucketed by
// compaction).
func (s *TableSchema) BucketMode() string {
	switch n := s.NumBuckets(); {
	case n > 0:
		return "fixed"
	case n == -2:
		return "postpone"
	case len(s.PrimaryKeys) == 0:
		return "unaware"
	}
	pk := map[string]bool{}
	for _, k := range s.PrimaryKeys {
		pk[k] = true
	}
	for _, k := range s.PartitionKeys {
		if !pk[k] {
			return "cross-partition"
		}
	}
	return "dynamic"
}
