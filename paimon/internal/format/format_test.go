package format

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/internal/testenv/canon"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func testdata(name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return p
}

func localIO(t *testing.T) fileio.FileIO {
	t.Helper()
	return fileio.NewLocal()
}

func loadFields(t *testing.T, name string) []types.DataField {
	t.Helper()
	b, err := os.ReadFile(testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	var fs []types.DataField
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

func mustType(t *testing.T, s string) types.DataType {
	t.Helper()
	dt, err := types.ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

func field(t *testing.T, id int, name, typ string) types.DataField {
	return types.DataField{ID: id, Name: name, Type: mustType(t, typ)}
}

// expectedLines returns the canonical JSON lines of an expected file, in row order.
func expectedLines(t *testing.T, name string) []string {
	t.Helper()
	return testenv.ReadLines(t, testdata(name))
}

// readAll reads every batch, checks each has exactly the arrowconv schema,
// and returns the canonical rows.
func readAll(t *testing.T, path string, opts Options) []string {
	t.Helper()
	rows, _ := readAllDict(t, path, opts)
	return rows
}

// readAllDict is readAll that also accepts dictionary arrays for the fields
// opts.Dictionary marks (the dictionary's value type must be the mapped
// type, and the batch schema must say so), and reports which fields came
// back as dictionaries in some batch.
func readAllDict(t *testing.T, path string, opts Options) ([]string, []bool) {
	t.Helper()
	return readAllFrom(t, localIO(t), path, opts)
}

// readAllFrom is readAllDict through fio.
func readAllFrom(t *testing.T, fio fileio.FileIO, path string, opts Options) ([]string, []bool) {
	t.Helper()
	mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
	defer mem.AssertSize(t, 0)
	opts.Alloc = mem
	ctx := context.Background()
	r, err := Open(ctx, fio, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := arrowconv.Schema(opts.Fields)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	dict := make([]bool, len(opts.Fields))
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range rec.Columns() {
			wt := want.Field(i).Type
			if dt, ok := c.DataType().(*arrow.DictionaryType); ok && i < len(opts.Dictionary) && opts.Dictionary[i] {
				if !arrow.TypeEqual(dt.ValueType, wt) || !arrow.TypeEqual(rec.Schema().Field(i).Type, dt) {
					t.Fatalf("column %d: %s in a batch schema of %s, want a dictionary of %s", i, dt, rec.Schema().Field(i).Type, wt)
				}
				dict[i] = true
				continue
			}
			if !arrow.TypeEqual(c.DataType(), wt, arrow.CheckMetadata()) {
				t.Fatalf("column %d type %s, want %s", i, c.DataType(), wt)
			}
		}
		if !rec.Schema().Equal(arrowconv.WithColumnTypes(want, rec.Columns())) {
			t.Fatalf("batch schema\n%s\nwant\n%s", rec.Schema(), want)
		}
		lines, err := canon.Record(rec)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, lines...)
		rec.Release()
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return rows, dict
}

func compareRows(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// Every type pypaimon writes to Parquet (pyarrow's encodings: FLBA decimals,
// INT64 nanos, TIMESTAMP(0) as millis, 3-level lists, maps, structs) against
// what pyarrow and pypaimon read back from the same file.
func TestPypaimonParquetAllTypes(t *testing.T) {
	fields := loadFields(t, "pypaimon_all.fields.json")
	got := readAll(t, testdata("pypaimon_all.parquet"), Options{Fields: fields})
	compareRows(t, got, expectedLines(t, "pypaimon_all.parquet.expected.jsonl"))
}

func TestPypaimonAvroAllTypes(t *testing.T) {
	fields := loadFields(t, "pypaimon_all_avro.fields.json")
	got := readAll(t, testdata("pypaimon_all.avro"), Options{Fields: fields})
	compareRows(t, got, expectedLines(t, "pypaimon_all.avro.expected.jsonl"))
}

// INT96 timestamps and INT32/INT64 decimals, the layout Java's
// ParquetRowDataWriter produces for TIMESTAMP(7..9) and DECIMAL(p ≤ 18).
func TestJavaLayoutParquet(t *testing.T) {
	fields := []types.DataField{
		field(t, 0, "ts9", "TIMESTAMP(9)"),
		field(t, 1, "ltz9", "TIMESTAMP(9) WITH LOCAL TIME ZONE"),
		field(t, 2, "dec9", "DECIMAL(9, 2)"),
		field(t, 3, "dec18", "DECIMAL(18, 4)"),
		field(t, 4, "dec20", "DECIMAL(20, 2)"),
	}
	got := readAll(t, testdata("java_layout.parquet"), Options{Fields: fields})
	compareRows(t, got, expectedLines(t, "java_layout.parquet.expected.jsonl"))
}

// Java AvroSchemaConverter layouts: string-keyed map, non-string keys as an
// array of {key,value} records, multiset, local-timestamp-* for LTZ.
func TestJavaLayoutAvro(t *testing.T) {
	fields := []types.DataField{
		field(t, 0, "id", "INT NOT NULL"),
		field(t, 1, "m_si", "MAP<STRING, INT>"),
		field(t, 2, "m_is", "MAP<INT, STRING>"),
		field(t, 3, "ms", "MULTISET<STRING>"),
		field(t, 4, "ltz3", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
		field(t, 5, "ltz6", "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
		field(t, 6, "ts3", "TIMESTAMP(3)"),
		field(t, 7, "dec", "DECIMAL(20, 3)"),
		field(t, 8, "nested", "ROW<a BIGINT, arr ARRAY<STRING>>"),
	}
	got := readAll(t, testdata("java_layout.avro"), Options{Fields: fields})
	compareRows(t, got, expectedLines(t, "java_layout.avro.expected.jsonl"))
}

// Projection in another order, a renamed-case lookup and a precision that
// differs from the file's unit (TIMESTAMP(0) stored as ms by pyarrow).
func TestProjectionAndCaseInsensitive(t *testing.T) {
	fields := []types.DataField{
		field(t, 5, "S", "STRING"),
		field(t, 1, "i8", "TINYINT"),
	}
	got := readAll(t, testdata("pypaimon_all.parquet"), Options{Fields: fields, BatchSize: 2})
	want := []string{
		`{"S":"héllo wörld ✓ 日本","i8":-128}`,
		`{"S":"","i8":127}`,
		`{"S":null,"i8":null}`,
		`{"S":"a\"b\\c\n","i8":0}`,
		`{"S":"𝄞","i8":1}`,
	}
	compareRows(t, got, want)
}

func TestMissingColumn(t *testing.T) {
	for _, name := range []string{"pypaimon_all.parquet", "pypaimon_all.avro"} {
		_, err := Open(context.Background(), localIO(t), testdata(name), Options{Fields: []types.DataField{field(t, 99, "nope", "INT")}})
		if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v should name the column and the file", name, err)
		}
	}
}

type posSet map[int64]bool

func (p posSet) IsDeleted(pos int64) bool { return p[pos] }

// rowgroups.parquet: ids 0..499 in 5 row groups of 100 (pyarrow
// row_group_size=100). Row group 1 is skipped by the filter; deletions
// before, inside and after it must hit the right physical rows.
func TestRowGroupFilterAndDeletes(t *testing.T) {
	fields := []types.DataField{field(t, 0, "id", "BIGINT"), field(t, 1, "name", "STRING"), field(t, 2, "v", "DOUBLE")}
	var seen []RowGroupStats
	filter := func(s RowGroupStats) bool {
		seen = append(seen, s)
		return s.Min[0].(int64) > 199 || s.Max[0].(int64) < 100
	}
	del := posSet{5: true, 150: true, 200: true, 201: true, 499: true}
	got := readAll(t, testdata("rowgroups.parquet"), Options{Fields: fields, RowGroupFilter: filter, Deleted: del, BatchSize: 64})
	var ids []int64
	for _, r := range got {
		var m map[string]any
		if err := json.Unmarshal([]byte(r), &m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, int64(m["id"].(float64)))
	}
	var want []int64
	for i := int64(0); i < 500; i++ {
		if (i >= 100 && i < 200) || del[i] {
			continue
		}
		want = append(want, i)
	}
	if len(ids) != len(want) {
		t.Fatalf("got %d rows, want %d", len(ids), len(want))
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("row %d: id %d, want %d", i, ids[i], want[i])
		}
	}
	if len(seen) != 5 {
		t.Fatalf("filter saw %d row groups", len(seen))
	}
	s := seen[1]
	if s.NumRows != 100 || s.Min[0] != int64(100) || s.Max[0] != int64(199) || s.Min[1] != "n100" || s.Max[1] != "n199" {
		t.Errorf("row group 1 stats %+v", s)
	}
	// v is null for ids divisible by 7: 100..199 holds 105,112,...,196 = 14 nulls.
	if s.NullCounts[2] == nil || *s.NullCounts[2] != 14 {
		t.Errorf("row group 1 null count of v = %v, want 14", s.NullCounts[2])
	}
	if s.Min[2] != 100*0.5 && s.Min[2] != 100.5/1 {
		// min of v over 100..199 excluding multiples of 7: id 100 -> 50.0
		t.Errorf("row group 1 min v = %v, want 50", s.Min[2])
	}
}

func TestDeletesAvro(t *testing.T) {
	fields := []types.DataField{field(t, 0, "id", "INT NOT NULL")}
	got := readAll(t, testdata("java_layout.avro"), Options{Fields: fields, Deleted: posSet{1: true}})
	compareRows(t, got, []string{`{"id":1}`, `{"id":3}`})
}

func TestCountOnly(t *testing.T) {
	ctx := context.Background()
	r, err := Open(ctx, localIO(t), testdata("rowgroups.parquet"), Options{Deleted: posSet{0: true, 250: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var n int64
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	if n != 498 {
		t.Fatalf("count %d, want 498", n)
	}
}

func TestFormatOf(t *testing.T) {
	for in, want := range map[string]string{
		"/t/bucket-0/data-1b2c-0.parquet":     "parquet",
		"s3://b/t/data-x-1.zst.parquet":       "parquet",
		"data-x-0.avro":                       "avro",
		"data-x-0.ORC":                        "orc",
		"changelog-x-0.snappy.orc":            "orc",
		"/a.b/data-x.csv.gz":                  "csv",
		"data-u-user-s-0-w-abc-0.lz4.parquet": "parquet",
	} {
		got, err := FormatOf(in)
		if err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := FormatOf("/t/bucket-0/noext"); err == nil {
		t.Error("FormatOf without extension should fail")
	}
}

func TestMissingFile(t *testing.T) {
	for _, p := range []string{"/nonexistent/x.parquet", "/nonexistent/x.avro", "/nonexistent/x.orc"} {
		_, err := Open(context.Background(), localIO(t), p, Options{})
		if !fileio.IsNotExist(err) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v", p, err)
		}
	}
}

// Corrupt and truncated files must fail with an error naming the file, not
// panic: flipped bytes in the middle (pages), a truncated footer, garbage.
func TestCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	fields := loadFields(t, "pypaimon_all.fields.json")
	orig, err := os.ReadFile(testdata("pypaimon_all.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	avroFields := loadFields(t, "pypaimon_all_avro.fields.json")
	origAvro, err := os.ReadFile(testdata("pypaimon_all.avro"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"trunc.parquet":   orig[:len(orig)-10],
		"half.parquet":    orig[:len(orig)/2],
		"garbage.parquet": []byte("this is not a parquet file at all, no PAR1 magic"),
		"empty.parquet":   {},
		"trunc.avro":      origAvro[:len(origAvro)/2],
		"garbage.avro":    []byte("Obj\x01garbage"),
	}
	// Flip every 7th byte in the data pages, keeping magic and footer.
	flipped := append([]byte(nil), orig...)
	for i := 8; i < len(flipped)/2; i += 7 {
		flipped[i] ^= 0x5a
	}
	cases["flipped.parquet"] = flipped
	flippedAvro := append([]byte(nil), origAvro...)
	for i := len(flippedAvro) / 2; i < len(flippedAvro)-20; i += 5 {
		flippedAvro[i] ^= 0xa5
	}
	cases["flipped.avro"] = flippedAvro
	for name, data := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fs := fields
		if strings.HasSuffix(name, ".avro") {
			fs = avroFields
		}
		err := readErr(p, fs)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

func readErr(path string, fields []types.DataField) error {
	ctx := context.Background()
	r, err := Open(ctx, fileio.NewLocal(), path, Options{Fields: fields})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rec.Release()
	}
}

var _ = array.NewRecordBatch

// pyarrow writes the pre-epoch instant -1ns as INT96 (julian day 2440588,
// nanos-of-day -1), the same layout Java Paimon's timestampToInt96 produces
// with its truncating division. arrow-go refuses it; our INT96 decoder must
// return the instant Java wrote: 1969-12-31T23:59:59.999999999.
func TestInt96PreEpoch(t *testing.T) {
	p := testdata("int96_pre_epoch.parquet")
	fio := fileio.NewLocal()
	r, err := Open(context.Background(), fio, p, Options{Fields: []types.DataField{field(t, 0, "ts9", "TIMESTAMP(9)")}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := r.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	got := rec.Column(0).(*array.Timestamp)
	if got.Len() < 1 || got.IsNull(0) || got.Value(0) != -1 {
		t.Fatalf("got %v, want [-1ns]", got)
	}
}
