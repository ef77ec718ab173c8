package format

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// numericCol is one column of TestNumericColumns' file: the Paimon type it
// is read as, the Arrow type written, and the type read back (conform's,
// when the Paimon type is wider than the file's).
type numericCol struct {
	name, paimon string
	written      arrow.DataType
	nullable     bool
}

var numericCols = []numericCol{
	{"i", "INT", arrow.PrimitiveTypes.Int32, true},
	{"l", "BIGINT", arrow.PrimitiveTypes.Int64, true},
	{"nn", "BIGINT NOT NULL", arrow.PrimitiveTypes.Int64, false},
	{"f", "FLOAT", arrow.PrimitiveTypes.Float32, true},
	{"d", "DOUBLE", arrow.PrimitiveTypes.Float64, true},
	{"dt", "DATE", arrow.FixedWidthTypes.Date32, true},
	{"ts3", "TIMESTAMP(3)", &arrow.TimestampType{Unit: arrow.Millisecond}, true},
	{"ts6", "TIMESTAMP(6)", &arrow.TimestampType{Unit: arrow.Microsecond}, true},
	{"ts9", "TIMESTAMP(9)", &arrow.TimestampType{Unit: arrow.Nanosecond}, true},
	{"ltz", "TIMESTAMP_LTZ(6)", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, true},
	// An INT column of the file read as BIGINT (schema evolution): the
	// own read's array goes through conform as pqarrow's would.
	{"w", "BIGINT", arrow.PrimitiveTypes.Int32, true},
}

// numericValue is row x of a column of byte width 4 or 8, as the bits
// written: the extremes of the width, float specials (NaN with a payload,
// ±Inf, -0, the smallest subnormal) and, between them, values of a few
// thousand distinct ones, so a dictionary holds them until its page limit.
func numericValue(x int, width int, float bool) uint64 {
	if float && width == 8 {
		sp := []float64{math.Float64frombits(0x7ff8_0000_0000_0001), math.Inf(1), math.Inf(-1), math.Copysign(0, -1),
			math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}
		if x%97 < len(sp) {
			return math.Float64bits(sp[x%97])
		}
		return math.Float64bits(float64(x%3001) / 8)
	}
	if float {
		sp := []float32{math.Float32frombits(0x7fc0_0001), float32(math.Inf(1)), float32(math.Inf(-1)),
			float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, math.MaxFloat32}
		if x%89 < len(sp) {
			return uint64(math.Float32bits(sp[x%89]))
		}
		return uint64(math.Float32bits(float32(x%2999) / 4))
	}
	if width == 4 {
		sp := []int32{math.MinInt32, math.MaxInt32, 0, -1}
		if x%83 < len(sp) {
			return uint64(uint32(sp[x%83]))
		}
		return uint64(uint32(int32(x%3003 - 1500)))
	}
	sp := []int64{math.MinInt64, math.MaxInt64, 0, -1}
	if x%79 < len(sp) {
		return uint64(sp[x%79])
	}
	return uint64(int64(x%2997)*1_000_003 - 1)
}

func isFloat(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }

// numericTable builds the written table: rows rows, a null in every 11th
// row of the nullable columns.
func numericTable(t *testing.T, rows int) arrow.Table {
	t.Helper()
	mem := memory.DefaultAllocator
	fields := make([]arrow.Field, len(numericCols))
	cols := make([]arrow.Array, len(numericCols))
	for c, nc := range numericCols {
		fields[c] = arrow.Field{Name: nc.name, Type: nc.written, Nullable: nc.nullable}
		width := nc.written.(arrow.FixedWidthDataType).Bytes()
		vals := make([]byte, rows*width)
		valid := make([]bool, rows)
		for x := 0; x < rows; x++ {
			valid[x] = !nc.nullable || (x+c)%11 != 0
			v := numericValue(x+c, width, isFloat(nc.written))
			if width == 4 {
				binary.LittleEndian.PutUint32(vals[x*width:], uint32(v))
			} else {
				binary.LittleEndian.PutUint64(vals[x*width:], v)
			}
		}
		b := array.NewBuilder(mem, nc.written)
		for x := 0; x < rows; x++ {
			if !valid[x] {
				b.AppendNull()
				continue
			}
			p := vals[x*width : (x+1)*width]
			switch bb := b.(type) {
			case *array.Int32Builder:
				bb.Append(int32(binary.LittleEndian.Uint32(p)))
			case *array.Int64Builder:
				bb.Append(int64(binary.LittleEndian.Uint64(p)))
			case *array.Float32Builder:
				bb.Append(math.Float32frombits(binary.LittleEndian.Uint32(p)))
			case *array.Float64Builder:
				bb.Append(math.Float64frombits(binary.LittleEndian.Uint64(p)))
			case *array.Date32Builder:
				bb.Append(arrow.Date32(int32(binary.LittleEndian.Uint32(p))))
			case *array.TimestampBuilder:
				bb.Append(arrow.Timestamp(int64(binary.LittleEndian.Uint64(p))))
			default:
				t.Fatalf("no builder for %s", nc.written)
			}
		}
		cols[c] = b.NewArray()
		b.Release()
	}
	sc := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sc, cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

// fixedBits is the value bits of row i of a fixed-width array.
func fixedBits(a arrow.Array, i int) uint64 {
	w := a.DataType().(arrow.FixedWidthDataType).Bytes()
	buf := a.Data().Buffers()[1].Bytes()[(a.Data().Offset()+i)*w:]
	if w == 4 {
		return uint64(binary.LittleEndian.Uint32(buf))
	}
	return binary.LittleEndian.Uint64(buf)
}

// Flat numeric columns whose pages are dictionary-encoded or PLAIN are read
// outside pqarrow (dictcol.go) and must come back bit for bit as written:
// both widths, the extremes of each, NaN payloads, ±Inf, -0, nulls;
// dictionaries that fill mid-chunk (the PLAIN fallback), no dictionary at
// all, V1 and V2 pages, pages cut small, several row groups, batches
// crossing pages; an INT column read as BIGINT widened by conform. Columns
// encoded otherwise (DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT) stay on pqarrow
// and read the same.
func TestNumericColumns(t *testing.T) {
	const rows = 5000
	tbl := numericTable(t, rows)
	defer tbl.Release()
	fields := make([]types.DataField, len(numericCols))
	for i, nc := range numericCols {
		fields[i] = field(t, i, nc.name, nc.paimon)
	}
	base := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd), parquet.WithStats(true)}
	variants := []struct {
		name  string
		props []parquet.WriterProperty
		own   bool
	}{
		{"dictionary", nil, true},
		{"fallback", []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(512), parquet.WithDataPageSize(700)}, true},
		{"fallback v2", []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(512), parquet.WithDataPageSize(700),
			parquet.WithDataPageVersion(parquet.DataPageV2)}, true},
		{"plain v2", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(1000),
			parquet.WithDataPageVersion(parquet.DataPageV2)}, true},
		{"other encodings", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithEncoding(parquet.Encodings.DeltaBinaryPacked),
			parquet.WithEncodingFor("f", parquet.Encodings.ByteStreamSplit), parquet.WithEncodingFor("d", parquet.Encodings.ByteStreamSplit)}, false},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "numeric.parquet")
			var buf bytes.Buffer
			props := parquet.NewWriterProperties(append(append([]parquet.WriterProperty{}, base...), v.props...)...)
			if err := pqarrow.WriteTable(tbl, &buf, 1700, props, pqarrow.DefaultWriterProps()); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if v.name == "fallback" {
				if _, dict, plain := chunkPages(t, path, 1); dict == 0 || plain == 0 {
					t.Fatalf("l: %d dictionary and %d PLAIN pages; want both", dict, plain)
				}
			}
			for _, batch := range []int{0, 7, 1000} {
				t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
					readNumeric(t, path, fields, tbl, batch, v.own)
				})
			}
		})
	}
}

func readNumeric(t *testing.T, path string, fields []types.DataField, tbl arrow.Table, batch int, own bool) {
	t.Helper()
	mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	r, err := Open(ctx, localIO(t), path, Options{Fields: fields, BatchSize: batch, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pr := r.(*parquetReader)
	if got := len(pr.leaves) == 0 && len(pr.dicts) == len(fields); got != own {
		t.Fatalf("every column read outside pqarrow: %v, want %v (%d pqarrow leaves)", got, own, len(pr.leaves))
	}
	row := 0
	for {
		rec, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for c, nc := range numericCols {
			got := rec.Column(c)
			want := tbl.Column(c).Data().Chunk(0)
			wide := nc.name == "w"
			if wide && got.DataType().ID() != arrow.INT64 {
				t.Fatalf("w read as %s, want int64", got.DataType())
			}
			for i := 0; i < got.Len(); i++ {
				x := row + i
				if got.IsNull(i) != want.IsNull(x) {
					t.Fatalf("%s row %d: null %v, want %v", nc.name, x, got.IsNull(i), want.IsNull(x))
				}
				if want.IsNull(x) {
					continue
				}
				g, w := fixedBits(got, i), fixedBits(want, x)
				if wide {
					w = uint64(int64(int32(uint32(w))))
				}
				if g != w {
					t.Fatalf("%s row %d: bits %#x, want %#x", nc.name, x, g, w)
				}
			}
		}
		row += int(rec.NumRows())
		rec.Release()
	}
	if row != int(tbl.NumRows()) {
		t.Fatalf("read %d rows, want %d", row, tbl.NumRows())
	}
}

// A PLAIN page too short for its values, and dictionary indices beyond
// the dictionary, are corruption, never values read from past the page.
func TestNumericPagesCorrupt(t *testing.T) {
	c := &dictColumn{num: arrow.PrimitiveTypes.Int64, width: 8}
	if err := c.startValues(parquet.Encodings.Plain, make([]byte, 12), 2); err != nil {
		t.Fatal(err)
	}
	if err := c.decodeRows(1); err != nil {
		t.Fatalf("first value is in the page: %v", err)
	}
	c.vpos = 1
	if err := c.decodeRows(1); !errors.Is(err, types.ErrCorrupt) {
		t.Fatalf("second value past a 12-byte page: %v", err)
	}
	c = &dictColumn{num: arrow.PrimitiveTypes.Int32, width: 4, haveDict: true, numDict: make([]byte, 8), scratchMem: memory.DefaultAllocator}
	// Bit width 2, one bit-packed group of 8: values 0..3 then 0..3.
	if err := c.startValues(parquet.Encodings.RLEDict, []byte{2, 0x03, 0xe4, 0xe4}, 8); err != nil {
		t.Fatal(err)
	}
	if err := c.decodeRows(8); !errors.Is(err, types.ErrCorrupt) {
		t.Fatalf("index 2 of a 2-entry dictionary: %v", err)
	}
}
