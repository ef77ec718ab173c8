package interop

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
)

// TestCanonMatchesPypaimonOnRawParquet cross-checks the two canonical encoders (Go's
// internal/testenv/canon and resources/pygen/canon.py) on real data: the table
// interop.types_single is one pypaimon write = one Parquet file with every type, so the Go
// encoding of that raw file (read straight with pqarrow, no Paimon code involved) must equal
// pypaimon's own dump of the table, line for line.
func TestCanonMatchesPypaimonOnRawParquet(t *testing.T) {
	root := fixturesDir(t)
	files, err := filepath.Glob(filepath.Join(root, "warehouse", "interop.db", "types_single", "bucket-0", "*.parquet"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want exactly one data file for interop.types_single, got %v (%v)", files, err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatalf("open %s: %v", files[0], err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 7}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	got, err := canon.Reader(rr.(array.RecordReader))
	if err != nil {
		t.Fatalf("encode %s: %v", files[0], err)
	}
	want := testenv.ReadSortedLines(t, filepath.Join(root, "expected", "interop.types_single", "full.jsonl"))
	if len(want) < 40 {
		t.Fatalf("expected file has %d rows, want ≥ 40", len(want))
	}
	if d := DiffLines(want, got); d != "" {
		t.Fatalf("Go encoding of the raw Parquet file differs from pypaimon's dump:\n%s", d)
	}
}

func fixturesDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("PAIMON_INTEROP_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "resources", "fixtures")
}
