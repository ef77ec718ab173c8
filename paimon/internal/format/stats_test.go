package format

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// writeStrings writes one row group of a nullable string column s with
// parquet's per-value statistics size limit (0: the writer's default).
func writeStrings(t *testing.T, vals []string, maxStats int64) string {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	path := filepath.Join(t.TempDir(), "s.parquet")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := []parquet.WriterProperty{}
	if maxStats > 0 {
		opts = append(opts, parquet.WithMaxStatsSize(maxStats))
	}
	w, err := pqarrow.NewFileWriter(sc, out, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(len(vals)))
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A value longer than the writer's statistics size limit leaves the max
// unset while the min stays (parquet-cpp and arrow-go alike; pyarrow's
// limit is 4 KiB). arrow-go still reports HasMinMax with an empty max: read
// as a bound it would prune s >= 'm' from a row group holding "zzz…". The
// statistic must be unknown, the row group read.
func TestUnsetMaxIsUnknown(t *testing.T) {
	fields := []types.DataField{{ID: 0, Name: "s", Type: types.DataType{Root: types.VarChar, Length: types.MaxLength, Nullable: true}}}
	pred, err := predicate.Parse("s >= 'm'", fields)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("z", 100)
	for _, c := range []struct {
		name     string
		maxStats int64
		wantMax  any
	}{
		{"within the limit", 0, long},
		{"max over the limit", 16, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeStrings(t, []string{"a", long}, c.maxStats)
			var seen []RowGroupStats
			opts := Options{Fields: fields, RowGroupFilter: func(s RowGroupStats) bool {
				seen = append(seen, s)
				return pred.TestStats(s.NumRows, s.Min, s.Max, s.NullCounts)
			}}
			rows := readAll(t, path, opts)
			if len(seen) != 1 {
				t.Fatalf("filter saw %d row groups", len(seen))
			}
			if seen[0].Max[0] != c.wantMax {
				t.Fatalf("max = %#v, want %#v", seen[0].Max[0], c.wantMax)
			}
			if c.wantMax == nil && seen[0].Min[0] != nil {
				t.Fatalf("min %#v kept without a max: a half-known range must be unknown", seen[0].Min[0])
			}
			if len(rows) != 2 {
				t.Fatalf("read %d rows, want both (the row group holds %q)", len(rows), long)
			}
		})
	}
}

// parquet-java leaves null_count out of a string column's statistics when its values exceed
// the statistics size limit, nulls or not; arrow-go then reports HasNullCount with 0. Read as a
// count, IS NULL would prune the row group holding the nulls (javastats.prop_none, written by
// Java Paimon 1.3.1: 6 rows, 1 null s, no null_count in the footer).
func TestUnsetNullCountIsUnknown(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join("..", "..", "..", "resources", "fixtures", "warehouse", "javastats.db", "prop_none", "p=1", "bucket-0", "data-0ec81f63-*.parquet"))
	if len(matches) != 1 {
		t.Fatalf("fixture file not found: %v", matches)
	}
	fields := []types.DataField{{ID: 6, Name: "s", Type: types.DataType{Root: types.VarChar, Length: types.MaxLength, Nullable: true}}}
	pred, err := predicate.Parse("s IS NULL", fields)
	if err != nil {
		t.Fatal(err)
	}
	var seen []RowGroupStats
	opts := Options{Fields: fields, RowGroupFilter: func(s RowGroupStats) bool {
		seen = append(seen, s)
		return pred.TestStats(s.NumRows, s.Min, s.Max, s.NullCounts)
	}}
	rows := readAll(t, matches[0], opts)
	if len(seen) != 1 || seen[0].NullCounts[0] != nil {
		t.Fatalf("null count of a footer without one: %v", seen)
	}
	nulls := 0
	for _, r := range rows {
		if strings.Contains(r, "null") {
			nulls++
		}
	}
	if len(rows) != 6 || nulls != 1 {
		t.Fatalf("read %d rows (%d null), want 6 with 1 null: %v", len(rows), nulls, rows)
	}
}
