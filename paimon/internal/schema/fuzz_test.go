package schema

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseSchema checks that no input panics Parse or the accessors of an
// accepted schema, and that an accepted schema's keys resolve to columns.
func FuzzParseSchema(f *testing.F) {
	for _, p := range []string{"pypaimon/schema-0", "java/schema-3", "v1/schema-0", "v1/schema-1", "v1/schema-2"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		if len(s.PartitionFields()) != len(s.PartitionKeys) {
			t.Fatalf("partition keys %v do not all resolve", s.PartitionKeys)
		}
		if len(s.TrimmedPrimaryKeyFields()) != len(s.TrimmedPrimaryKeys()) {
			t.Fatalf("primary keys %v do not all resolve", s.PrimaryKeys)
		}
		_ = s.BucketKeys()
		_ = s.NumBuckets()
		_ = s.RowType().String()
		_, _ = s.ConsumerExpirationTime()
		_ = IndexMapping(s.Fields, s.Fields)
		if _, err := StatsFields(s, nil, s.FieldNames()); err != nil {
			t.Fatal(err)
		}
	})
}
