package format

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

const benchRows = 1 << 20

// writeBenchFile writes benchRows rows × 10 columns (ints, doubles, strings,
// a µs timestamp, a decimal) with zstd, 8 row groups, like a Paimon append
// file, and returns the path and the Paimon fields.
func writeBenchFile(b *testing.B) (string, []types.DataField) {
	b.Helper()
	fields := []types.DataField{
		{ID: 0, Name: "id", Type: types.DataType{Root: types.BigInt}},
		{ID: 1, Name: "i", Type: types.DataType{Root: types.Int, Nullable: true}},
		{ID: 2, Name: "d", Type: types.DataType{Root: types.Double, Nullable: true}},
		{ID: 3, Name: "s", Type: types.DataType{Root: types.VarChar, Length: types.MaxLength, Nullable: true}},
		{ID: 4, Name: "ts", Type: types.DataType{Root: types.Timestamp, Precision: 6, Nullable: true}},
		{ID: 5, Name: "dec", Type: types.DataType{Root: types.Decimal, Precision: 18, Scale: 2, Nullable: true}},
		{ID: 6, Name: "b", Type: types.DataType{Root: types.Boolean, Nullable: true}},
		{ID: 7, Name: "l", Type: types.DataType{Root: types.BigInt, Nullable: true}},
		{ID: 8, Name: "tag", Type: types.DataType{Root: types.VarChar, Length: types.MaxLength, Nullable: true}},
		{ID: 9, Name: "f", Type: types.DataType{Root: types.Float, Nullable: true}},
	}
	path := filepath.Join(b.TempDir(), "bench.parquet")
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "tag", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	}, nil)
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithMaxRowGroupLength(benchRows/8))
	w, err := pqarrow.NewFileWriter(sc, out, props, pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	const chunk = 1 << 16
	for base := 0; base < benchRows; base += chunk {
		for i := base; i < base+chunk; i++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
			rb.Field(1).(*array.Int32Builder).Append(int32(i * 7))
			rb.Field(2).(*array.Float64Builder).Append(float64(i) * 0.5)
			rb.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%50000))
			rb.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)))
			rb.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i)))
			rb.Field(6).(*array.BooleanBuilder).Append(i%2 == 0)
			rb.Field(7).(*array.Int64Builder).Append(int64(i) * 31)
			if i%3 == 0 {
				rb.Field(8).(*array.StringBuilder).AppendNull()
			} else {
				rb.Field(8).(*array.StringBuilder).Append("t")
			}
			rb.Field(9).(*array.Float32Builder).Append(float32(i))
		}
		rec := rb.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return path, fields
}

// BenchmarkReadParquet compares Open/Next with raw pqarrow on the same file,
// all 10 columns and 2 projected columns. Report: ns/op and allocs/op; the
// rows/s metric is benchRows / (ns/op).
func BenchmarkReadParquet(b *testing.B) {
	path, fields := writeBenchFile(b)
	proj := []types.DataField{fields[0], fields[3]}
	ctx := context.Background()
	ours := func(b *testing.B, fs []types.DataField) {
		for b.Loop() {
			r, err := Open(ctx, fileio.NewLocal(), path, Options{Fields: fs})
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for {
				rec, err := r.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n += rec.NumRows()
				rec.Release()
			}
			r.Close()
			if n != benchRows {
				b.Fatalf("read %d rows", n)
			}
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	raw := func(b *testing.B, cols []int) {
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			pf, err := file.NewParquetReader(f)
			if err != nil {
				b.Fatal(err)
			}
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: DefaultBatchSize}, memory.DefaultAllocator)
			if err != nil {
				b.Fatal(err)
			}
			rr, err := fr.GetRecordReader(ctx, cols, nil)
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for rr.Next() {
				n += rr.RecordBatch().NumRows()
			}
			rr.Release()
			pf.Close()
			if n != benchRows {
				b.Fatalf("read %d rows", n)
			}
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("ours/all", func(b *testing.B) { ours(b, fields) })
	b.Run("pqarrow/all", func(b *testing.B) { raw(b, nil) })
	b.Run("ours/2cols", func(b *testing.B) { ours(b, proj) })
	b.Run("pqarrow/2cols", func(b *testing.B) { raw(b, []int{0, 3}) })
}

// BenchmarkORCRowIndexFilter reads one data file of bench.wide_orc (one
// stripe of 131,072 rows, pyarrow's row index stride 10,000) with a
// selective filter on id (1,000 consecutive ids), all 10 columns, once with
// row-index pruning and once with stripe pruning only (NoRowIndex): the
// rows the filter can match are decoded either way; the difference is the
// skipped groups. Report: rows/op (rows handed on to the exact filter) and
// the process's CPU per row of the file (GC included). Needs PAIMON_BENCH_DIR (docs/benchmarks.md).
func BenchmarkORCRowIndexFilter(b *testing.B) {
	dir := testenv.BenchTable(b, "wide_orc")
	tdir := filepath.Join(dir, "warehouse", "bench.db", "wide_orc")
	files, _ := filepath.Glob(filepath.Join(tdir, "bucket-0", "*.orc"))
	if len(files) == 0 {
		b.Fatalf("no ORC files in %s", tdir)
	}
	sort.Strings(files)
	raw, err := os.ReadFile(filepath.Join(tdir, "schema", "schema-0"))
	if err != nil {
		b.Fatal(err)
	}
	var sch struct {
		Fields []types.DataField `json:"fields"`
	}
	if err := json.Unmarshal(raw, &sch); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	read := func(b testing.TB, o Options) (rows, minID int64) {
		r, err := Open(ctx, fileio.NewLocal(), files[0], o)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		minID = math.MaxInt64
		for {
			rec, err := r.Next(ctx)
			if errors.Is(err, io.EOF) {
				return rows, minID
			}
			if err != nil {
				b.Fatal(err)
			}
			ids := rec.Column(0).(*array.Int64)
			for i := 0; i < ids.Len(); i++ {
				minID = min(minID, ids.Value(i))
			}
			rows += rec.NumRows()
			rec.Release()
		}
	}
	total, lo := read(b, Options{Fields: sch.Fields})
	p, err := predicate.Parse(fmt.Sprintf("id BETWEEN %d AND %d", lo+60_500, lo+61_499), sch.Fields)
	if err != nil {
		b.Fatal(err)
	}
	filter := func(st RowGroupStats) bool { return p.TestStats(st.NumRows, st.Min, st.Max, st.NullCounts) }
	for _, mode := range []struct {
		name  string
		noIdx bool
	}{{"rowindex", false}, {"stripes", true}} {
		b.Run(mode.name, func(b *testing.B) {
			var rows int64
			cpu := processCPU()
			for b.Loop() {
				rows, _ = read(b, Options{Fields: sch.Fields, RowGroupFilter: filter, NoRowIndex: mode.noIdx})
			}
			cpu = processCPU() - cpu
			b.ReportMetric(float64(rows), "rows/op")
			// CPU per row of the file: comparable with the full reads'
			// figures in docs/benchmarks.md.
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/float64(total), "cpu-µs/filerow")
		})
	}
}
