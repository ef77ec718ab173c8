// Package format reads Paimon data files (Parquet, ORC and Avro) into Arrow record
// batches shaped by arrowconv.Schema of the requested fields, so callers see
// one in-memory representation whichever writer (Java Paimon, pypaimon)
// produced the file and whichever physical encoding it chose.
//
// Columns are looked up by the name the file's own schema (schema-<_SCHEMA_ID>)
// gives them, never by field id: pypaimon writes no ids, and Java's readers
// resolve by name as well. Mapping an old file's columns to the table's
// current schema (renames, added columns, casts) is the caller's job (see
// paimon/read and paimon/cast).
package format

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/fileutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// DefaultBatchSize is the number of rows per record batch when
// Options.BatchSize is zero. 4096 keeps a batch of a wide table within a few
// MiB while amortising per-batch costs (BenchmarkReadParquet).
const DefaultBatchSize = 4096

// Options says what to read from one data file.
type Options struct {
	// Fields to read, as the FILE's schema knows them (name and type from
	// schema-<_SCHEMA_ID>), in output order.
	Fields []types.DataField
	// RowGroupFilter, if set, is asked for each Parquet row group, each
	// ORC stripe and each row group of the ORC row index inside a kept
	// stripe; false skips it. Stats are aligned with Fields. Avro files
	// have no row groups and never call it.
	RowGroupFilter func(RowGroupStats) bool
	// NoRowIndex keeps ORC pruning at stripes (the row index is not read):
	// for benchmarks and tests that compare.
	NoRowIndex bool
	// Deleted, if set, reports physical row positions (0-based in the file)
	// removed by a deletion vector; such rows never appear in the output.
	Deleted interface{ IsDeleted(pos int64) bool }
	// BatchSize is the maximum number of rows per record batch
	// (DefaultBatchSize when zero).
	BatchSize int
	// Alloc allocates the Arrow buffers (memory.DefaultAllocator when nil).
	Alloc memory.Allocator
	// Scratch allocates the buffers that never reach the caller: column
	// chunks and pages as read and decompressed, dictionary indices and
	// definition levels. nil means Alloc. Unlike Alloc's output buffers,
	// which a caller may use after Release with the Go allocator, these
	// are freed only by the reader itself, so a pool is safe for them
	// whatever the caller does.
	Scratch memory.Allocator
	// FileSize, when positive, is the file's size as the manifest records
	// it; object stores then skip the request that would fetch it.
	FileSize int64
	// Dictionary, aligned with Fields, marks the string and binary columns
	// the caller accepts as Arrow dictionary arrays (dictionary<int32,
	// string|binary>, see paimon.ReadOptions.Dictionary). A Parquet column
	// is returned so when it is a top-level BYTE_ARRAY column whose every
	// column chunk in the file holds dictionary-encoded data pages only
	// (its footer's encoding statistics say so): the dictionary page is
	// then decoded once and no value is copied per row. Any other column,
	// and every ORC and Avro column, is returned plain. The decision is
	// per file, so the batches of one read may mix both for a column;
	// batch schemas carry the dictionary type where it is used. nil: all
	// plain.
	Dictionary []bool
	// WideTimestamps, aligned with Fields, marks the top-level
	// TIMESTAMP(7..9) columns the caller accepts as
	// types.WideTimestampType (see paimon.ReadOptions.WideTimestamps).
	// Readers that decode such columns themselves (ORC, Parquet INT96)
	// return them so, with values outside Arrow's nanosecond range exactly;
	// others return Arrow nanosecond timestamps, which hold every value
	// their files can store. Batch schemas carry the type each column has.
	// nil: none.
	WideTimestamps []bool
	// ORCTimestampLTZNonLegacy is the table option
	// orc.timestamp-ltz.legacy.type=false (the zero value is Paimon's
	// default, true): it says how ORC files hold TIMESTAMP WITH LOCAL TIME
	// ZONE values, which Java reads back accordingly.
	ORCTimestampLTZNonLegacy bool
}

// RowGroupStats are the statistics of one Parquet row group, ORC stripe or
// ORC row-index group, aligned with Options.Fields. Min and Max hold the value types of paimon/types
// (int32, string, types.DecimalValue, ...); nil means unknown (no stats,
// a nested column, NaN bounds or a physical encoding whose order is not
// trustworthy such as INT96). A nil NullCounts entry means unknown.
type RowGroupStats struct {
	// Index is the row group's (Parquet) or stripe's (ORC) ordinal in the
	// file.
	Index int
	// RowGroup is, for ORC, the row-index group inside stripe Index; -1
	// when the statistics are a whole stripe's or a Parquet row group's.
	RowGroup int
	// NumRows is the number of rows in the row group.
	NumRows    int64
	Min, Max   []any
	NullCounts []*int64
}

// Reader streams the record batches of one data file.
type Reader interface {
	// Next returns the next batch, or io.EOF after the last one. The caller
	// owns the batch and must Release it. Batches never have zero rows.
	Next(ctx context.Context) (arrow.RecordBatch, error)
	// Close releases the file and any buffered data.
	Close() error
}

// Format identifiers returned by FormatOf.
const (
	Parquet = "parquet"
	Avro    = "avro"
	ORC     = "orc"
)

// isCompressionExt reports the compression extensions Paimon inserts before
// the format extension with file.suffix.include.compression=true
// (DataFilePathFactory.formatIdentifier).
func isCompressionExt(ext string) bool {
	switch ext {
	case "gz", "bz2", "deflate", "snappy", "lz4", "zst", "zstd":
		return true
	}
	return false
}

// FormatOf returns the format identifier of a data file from its name, the
// way Java's DataFilePathFactory.formatIdentifier does: the last extension,
// or the one before it when the last is a compression extension (text
// formats write "x.csv.gz"). The table's file.format option is not
// consulted because tables can mix formats.
func FormatOf(path string) (string, error) {
	name := path
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	parts := strings.Split(name, ".")
	if len(parts) < 2 {
		return "", fmt.Errorf("data file %s: no extension to tell its format", path)
	}
	ext := strings.ToLower(parts[len(parts)-1])
	if isCompressionExt(ext) && len(parts) >= 3 {
		ext = strings.ToLower(parts[len(parts)-2])
	}
	if ext == "" {
		return "", fmt.Errorf("data file %s: empty extension", path)
	}
	return ext, nil
}

// Open opens one data file for reading. The format comes from the file name
// (FormatOf). The non-managed formats are refused with an error
// wrapping types.ErrUnsupported.
func Open(ctx context.Context, fio fileio.FileIO, path string, opts Options) (Reader, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.Alloc == nil {
		opts.Alloc = memory.DefaultAllocator
	}
	if opts.Scratch == nil {
		opts.Scratch = opts.Alloc
	}
	switch f {
	case Parquet:
		return openReader[parquetReader](ctx, fio, path, Parquet, opts)
	case Avro:
		return openReader[avroReader](ctx, fio, path, Avro, opts)
	case ORC:
		return openReader[orcReader](ctx, fio, path, ORC, opts)
	}
	return nil, fmt.Errorf("data file format %q is not supported yet: %s: %w", f, path, types.ErrUnsupported)
}

// openFile opens a data file, passing the known size to stores that can use
// it.
// fileReader is a format's reader, built on an open file by its open.
type fileReader[T any] interface {
	*T
	Reader
	open(f fileio.File, path string, opts Options) error
}

// openReader opens path and builds a format's reader T on it; a reader that
// fails to open is closed, which releases the file and what open had
// allocated.
func openReader[T any, R fileReader[T]](ctx context.Context, fio fileio.FileIO, path, format string, opts Options) (Reader, error) {
	f, err := openFile(ctx, fio, path, opts.FileSize)
	if err != nil {
		return nil, fmt.Errorf("open %s file %s: %w", format, path, err)
	}
	r := R(new(T))
	if err := r.open(f, path, opts); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func openFile(ctx context.Context, fio fileio.FileIO, path string, size int64) (fileio.File, error) {
	if size > 0 {
		return fileutil.OpenSized(ctx, fio, path, size)
	}
	return fio.Open(ctx, path)
}

// CheckCompression refuses, when a table is opened, a data-file codec this
// package cannot decode, so a stream does not fail halfway on the first file
// written with it. option names the table option that chose it. Codecs
// this package does not know are left to the file: its header, not the
// option, is what the reader decodes by.
func CheckCompression(fileFormat, option, compression string) error {
	c := strings.ToLower(strings.TrimSpace(compression))
	if strings.ToLower(fileFormat) == Parquet && c == "lzo" {
		return fmt.Errorf("%s=%s: Parquet LZO pages cannot be decoded (arrow-go has no LZO codec): %w", option, compression, types.ErrUnsupported)
	}
	return nil
}
