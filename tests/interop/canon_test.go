package interop

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Expected spellings below were printed by Python 3.11 (repr / json.dumps / canon.py), not
// computed by this package.
func TestPyFloatRepr(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{1.0, "1.0"}, {math.Copysign(0, -1), "-0.0"}, {0, "0.0"}, {0.1, "0.1"}, {1e16, "1e+16"},
		{1e15, "1000000000000000.0"}, {123456789012345678.0, "1.2345678901234568e+17"},
		{1e-4, "0.0001"}, {1e-5, "1e-05"}, {1.5e-7, "1.5e-07"}, {5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {float64(float32(1.1)), "1.100000023841858"},
		{-2.5, "-2.5"}, {100.0, "100.0"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"}, {9999999999999998.0, "9999999999999998.0"},
		{0.30000000000000004, "0.30000000000000004"},
	}
	for _, c := range cases {
		if got := PyFloatRepr(c.v); got != c.want {
			t.Errorf("PyFloatRepr(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestWriteStringMatchesPythonJSON(t *testing.T) {
	var sb strings.Builder
	writeString(&sb, "a\"b\\c\b\f\n\r\t\x01\x1f\x7f<&>\u2028 😀 é")
	want := "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\x7f<&>\u2028 😀 é\""
	if sb.String() != want {
		t.Fatalf("got  %q\nwant %q", sb.String(), want)
	}
}

func TestFormatTimestamp(t *testing.T) {
	cases := []struct {
		v    int64
		unit arrow.TimeUnit
		utc  bool
		want string
	}{
		{-1, arrow.Nanosecond, false, "1969-12-31T23:59:59.999999999"},
		{253402300799, arrow.Second, true, "9999-12-31T23:59:59.000000000Z"},
		{-62135596800000, arrow.Millisecond, false, "0001-01-01T00:00:00.000000000"},
	}
	for _, c := range cases {
		if got := FormatTimestamp(c.v, c.unit, c.utc); got != c.want {
			t.Errorf("FormatTimestamp(%d, %s) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

// TestCanonMatchesPypaimonOnRawParquet cross-checks the two canonical encoders: the table
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
	got, err := EncodeReader(rr.(array.RecordReader))
	if err != nil {
		t.Fatalf("encode %s: %v", files[0], err)
	}
	want := readLines(t, filepath.Join(root, "expected", "interop.types_single", "full.jsonl"))
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

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("read expected output: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	sort.Strings(out)
	return out
}
