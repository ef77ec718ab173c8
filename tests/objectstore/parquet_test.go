package objectstore_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
)

const (
	pqRows      = 200_000
	pqRowGroups = 4
	pqCols      = 6
)

// parquetFile writes pqCols int64 columns (c0..c5, value row*(col+1)) in
// pqRowGroups row groups, the shape of a Paimon data file.
func parquetFile(t testing.TB) []byte {
	fields := make([]arrow.Field, pqCols)
	for c := range fields {
		fields[c] = arrow.Field{Name: fmt.Sprintf("c%d", c), Type: arrow.PrimitiveTypes.Int64}
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for c := range pqCols {
		fb := b.Field(c).(*array.Int64Builder)
		for r := range pqRows {
			fb.Append(int64(r * (c + 1)))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false))
	if err := pqarrow.WriteTable(tbl, &buf, pqRows/pqRowGroups, props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readTwoColumns reads the footer and columns c0 and c2 through f and
// checks every value.
func readTwoColumns(t testing.TB, f fileio.File) {
	pf, err := file.NewParquetReader(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), []int{0, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	row := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		c0 := rec.Column(0).(*array.Int64)
		c2 := rec.Column(1).(*array.Int64)
		for i := range c0.Len() {
			if c0.Value(i) != int64(row) || c2.Value(i) != int64(row*3) {
				t.Fatalf("row %d: c0=%d c2=%d", row, c0.Value(i), c2.Value(i))
			}
			row++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if row != pqRows {
		t.Fatalf("read %d rows, want %d", row, pqRows)
	}
}

// TestParquetRequestCount reads a Parquet file's footer and 2 of 6 columns
// through the S3 File and counts GETs: one for the footer (tail cache) plus
// at most one per needed column chunk, never one per page.
func TestParquetRequestCount(t *testing.T) {
	data := parquetFile(t)
	for _, start := range []func(testing.TB, fileiotest.FaultConfig) *server{fake, versity} {
		s := start(t, fileiotest.FaultConfig{})
		t.Run(s.name, func(t *testing.T) {
			ctx := context.Background()
			fio := s.open(t, s.options())
			p := "s3://warehouse/wh/db.db/t/bucket-0/data-0.parquet"
			if err := fio.WriteFileAtomic(ctx, p, data, true); err != nil {
				t.Fatal(err)
			}
			s.faults.Reset()
			f, err := fio.OpenSize(ctx, p, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			readTwoColumns(t, f)
			n, m, _ := s.faults.Stats()
			limit := 1 + 2*pqRowGroups
			t.Logf("%s: %d-byte file, footer + 2 of %d columns x %d row groups: %d requests %v (limit %d)", s.name, len(data), pqCols, pqRowGroups, n, m, limit)
			if n > limit || m["GET"] != n {
				t.Fatalf("%d requests %v, want at most %d GETs", n, m, limit)
			}
		})
	}
}

// BenchmarkParquetRead compares rows/s reading 2 columns from local disk and
// from S3 on loopback (the numbers go to docs/objectstore.md).
func BenchmarkParquetRead(b *testing.B) {
	data := parquetFile(b)
	local := filepath.Join(b.TempDir(), "data.parquet")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, open func() fileio.File) {
		b.SetBytes(int64(len(data)))
		start := time.Now()
		for b.Loop() {
			readTwoColumns(b, open())
		}
		b.ReportMetric(float64(pqRows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
	}
	ctx := context.Background()
	b.Run("local", func(b *testing.B) {
		run(b, func() fileio.File {
			f, err := fileio.NewLocal().Open(ctx, local)
			if err != nil {
				b.Fatal(err)
			}
			return f
		})
	})
	for _, start := range []func(testing.TB, fileiotest.FaultConfig) *server{fake, versity} {
		s := start(b, fileiotest.FaultConfig{})
		fio := s.open(b, s.options())
		p := "s3://warehouse/bench/data.parquet"
		if err := fio.WriteFileAtomic(ctx, p, data, true); err != nil {
			b.Fatal(err)
		}
		b.Run(s.name, func(b *testing.B) {
			run(b, func() fileio.File {
				f, err := fio.OpenSize(ctx, p, int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				return f
			})
		})
	}
}
