package format

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// deltaPages writes col (a required column) with arrow-go's encoder for enc
// in data pages v1 and v2 of a few hundred bytes, and returns each file's
// data pages' value bytes with their value counts.
func deltaPages(t *testing.T, col arrow.Array, enc parquet.Encoding) (pages [][]byte, counts []int) {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: col.DataType()}}, nil)
	for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
		var buf bytes.Buffer
		props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithEncoding(enc),
			parquet.WithDataPageSize(300), parquet.WithDataPageVersion(v), parquet.WithCompression(0))
		w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len()))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		pr, err := pf.RowGroup(0).GetColumnPageReader(0)
		if err != nil {
			t.Fatal(err)
		}
		for pr.Next() {
			switch p := pr.Page().(type) {
			case *file.DataPageV1:
				if parquet.Encoding(p.Encoding()) != enc {
					t.Fatalf("page encoding %v, want %v", p.Encoding(), enc)
				}
				pages, counts = append(pages, bytes.Clone(p.Data())), append(counts, int(p.NumValues()))
			case *file.DataPageV2:
				d := p.Data()[p.RepetitionLevelByteLen()+p.DefinitionLevelByteLen():]
				pages, counts = append(pages, bytes.Clone(d)), append(counts, int(p.NumValues()))
			}
		}
		if err := pr.Err(); err != nil {
			t.Fatal(err)
		}
		_ = pf.Close()
	}
	if len(pages) < 4 {
		t.Fatalf("%d pages: the test wants several per file", len(pages))
	}
	return pages, counts
}

// TestDeltaBinaryPacked decodes what arrow-go's DELTA_BINARY_PACKED
// encoder writes: runs of equal values (zero-width miniblocks), large
// jumps both ways (64-bit widths, wrapping deltas) and partial last blocks.
func TestDeltaBinaryPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := array.NewInt64Builder(memory.DefaultAllocator)
	var want []int64
	for i := 0; i < 3000; i++ {
		var v int64
		switch {
		case i%500 < 200:
			v = 7
		case i%97 == 0:
			v = math.MinInt64 + int64(i)
		case i%89 == 0:
			v = math.MaxInt64 - int64(i)
		default:
			v = rng.Int64N(1<<20) - 1<<19
		}
		b.Append(v)
		want = append(want, v)
	}
	col := b.NewArray()
	defer col.Release()
	pages, counts := deltaPages(t, col, parquet.Encodings.DeltaBinaryPacked)
	var got []int64
	for i, p := range pages {
		vals, _, err := deltaBinaryPacked(p, counts[i], nil)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if len(vals) != counts[i] {
			t.Fatalf("page %d: %d values, the page holds %d", i, len(vals), counts[i])
		}
		got = append(got, vals...)
	}
	if len(got) != 2*len(want) {
		t.Fatalf("%d values, want %d", len(got), 2*len(want))
	}
	for i, v := range got {
		if v != want[i%len(want)] {
			t.Fatalf("value %d: %d, want %d", i, v, want[i%len(want)])
		}
	}
	// A page that announces more values than it holds, or more than its
	// row count, is corrupt, never a short read.
	if _, _, err := deltaBinaryPacked(pages[0][:len(pages[0])/2], counts[0], nil); !errors.Is(err, types.ErrCorrupt) {
		t.Errorf("truncated page: %v, want ErrCorrupt", err)
	}
	if _, _, err := deltaBinaryPacked(pages[0], counts[0]-1, nil); !errors.Is(err, types.ErrCorrupt) {
		t.Errorf("more values than the page's rows: %v, want ErrCorrupt", err)
	}
}

// TestDeltaByteArrays decodes what arrow-go's DELTA_BYTE_ARRAY encoder
// writes for BYTE_ARRAY values with shared prefixes, empty values and
// values that share nothing.
func TestDeltaByteArrays(t *testing.T) {
	b := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	var want [][]byte
	for i := 0; i < 2000; i++ {
		var v []byte
		switch {
		case i%50 == 0:
			v = []byte{}
		case i%7 == 0:
			v = []byte(fmt.Sprintf("%d-other", i))
		default:
			v = []byte(fmt.Sprintf("shared/prefix/%06d", i/3))
		}
		b.Append(v)
		want = append(want, v)
	}
	col := b.NewArray()
	defer col.Release()
	pages, counts := deltaPages(t, col, parquet.Encodings.DeltaByteArray)
	var got [][]byte
	for i, p := range pages {
		n, err := deltaByteArrays(p, counts[i], func(_ int, v []byte) error { got = append(got, bytes.Clone(v)); return nil })
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if n != counts[i] {
			t.Fatalf("page %d: %d values, the page holds %d", i, n, counts[i])
		}
	}
	if len(got) != 2*len(want) {
		t.Fatalf("%d values, want %d", len(got), 2*len(want))
	}
	for i, v := range got {
		if !bytes.Equal(v, want[i%len(want)]) {
			t.Fatalf("value %d: %q, want %q", i, v, want[i%len(want)])
		}
	}
	if _, err := deltaByteArrays(pages[0][:len(pages[0])-3], counts[0], func(int, []byte) error { return nil }); !errors.Is(err, types.ErrCorrupt) {
		t.Errorf("truncated page: %v, want ErrCorrupt", err)
	}
}
