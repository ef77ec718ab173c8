//go:build !interop_noapi

package interop

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestParquetEncodingFixtures checks that the committed tables of Java's Parquet writer options
// hold the encodings they exist for (TestFixtures compares their rows with Java's reads): data
// page v2 with DELTA_BINARY_PACKED and DELTA_BYTE_ARRAY values, and DELTA_BYTE_ARRAY for a
// FIXED_LEN_BYTE_ARRAY decimal, which arrow-go cannot decode and this reader decodes itself.
func TestParquetEncodingFixtures(t *testing.T) {
	found := map[string]bool{}
	for _, table := range []string{"parquet_v2", "parquet_v2_plain", "parquet_v1_plain", "parquet_dict_overflow"} {
		eachParquetFile(t, table, func(pf *file.Reader) {
			md := pf.MetaData()
			for g := 0; g < md.NumRowGroups(); g++ {
				for c := 0; c < md.Schema.NumColumns(); c++ {
					cc, err := md.RowGroup(g).ColumnChunk(c)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range cc.Encodings() {
						found[md.Schema.Column(c).PhysicalType().String()+" "+e.String()] = true
					}
				}
			}
		})
	}
	for _, want := range []parquet.Encoding{parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.DeltaByteArray} {
		if !found["INT64 "+want.String()] && !found["BYTE_ARRAY "+want.String()] {
			t.Errorf("no column chunk in %s: %v", want, found)
		}
	}
	if !found["FIXED_LEN_BYTE_ARRAY "+parquet.Encodings.DeltaByteArray.String()] {
		t.Errorf("no FIXED_LEN_BYTE_ARRAY chunk in DELTA_BYTE_ARRAY: %v", found)
	}
}

// TestIndexFixtures checks that the committed tables with indexes beside their data hold them
// (TestFixtures compares their rows with Java's reads): Parquet bloom filters in the data files,
// and Paimon file indexes in index files of their own.
func TestIndexFixtures(t *testing.T) {
	blooms := 0
	eachParquetFile(t, "parquet_bloom", func(pf *file.Reader) {
		for c := 0; c < pf.MetaData().Schema.NumColumns(); c++ {
			if cc, err := pf.MetaData().RowGroup(0).ColumnChunk(c); err == nil && cc.BloomFilterOffset() > 0 {
				blooms++
			}
		}
	})
	if blooms == 0 {
		t.Error("parquet_bloom: no column chunk has a bloom filter")
	}
	if idx, _ := filepath.Glob(filepath.Join(fixturesDir(t), "warehouse", "javagen.db", "file_index", "*", "bucket-*", "*.index")); len(idx) == 0 {
		t.Error("file_index: no index file beside the data files")
	}
}

// eachParquetFile calls fn with every data file of the committed table javagen.<table>, which must
// have some.
func eachParquetFile(t *testing.T, table string, fn func(*file.Reader)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixturesDir(t), "warehouse", "javagen.db", table, "*", "bucket-*", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no data files (%v)", table, err)
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(r)
		if err != nil {
			t.Fatal(err)
		}
		fn(pf)
		_ = pf.Close()
	}
}
