// Package fileio is the storage layer of the Paimon reader: every byte the
// library reads or writes goes through the FileIO interface, so the same
// planning and reading code runs on local disk and on object stores.
//
// The interface is deliberately small and shaped after what object stores can
// do cheaply: ranged reads (io.ReaderAt), listings by directory prefix, a stat
// and whole-object writes. There is no append and no rename in the contract:
// WriteFileAtomic is a single PUT on object stores and temp-file + rename on
// local disk.
package fileio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"time"
)

// ErrNotExist reports that a path does not exist. Implementations wrap it so
// callers can test with errors.Is; it is the same value as fs.ErrNotExist.
var ErrNotExist = fs.ErrNotExist

// ErrExist reports that WriteFileAtomic was asked not to overwrite and the
// target already exists. It is the same value as fs.ErrExist.
var ErrExist = fs.ErrExist

// FileInfo describes one file or directory.
type FileInfo struct {
	// Path is the full path (or URI) of the entry, usable with the same FileIO.
	Path string
	// Name is the last path element.
	Name string
	// Size in bytes; 0 for directories.
	Size int64
	// ModTime is the last modification time, used by consumer expiry.
	ModTime time.Time
	// IsDir is true for directories (or common prefixes on object stores).
	IsDir bool
}

// File is an open file for random access. Parquet readers seek to the footer
// and then to column chunks, so ReadAt must not require reading from the start.
type File interface {
	io.ReaderAt
	io.Closer
	// Size is the file size in bytes, known at open time.
	Size() int64
	// Path is the path the file was opened with, used in error messages.
	Path() string
}

// FileIO is the storage abstraction. Paths are plain strings: absolute local
// paths or URIs with a scheme understood by the implementation. All methods
// return errors wrapping ErrNotExist when a path is missing.
type FileIO interface {
	// Open opens a file for ranged reads.
	Open(ctx context.Context, path string) (File, error)
	// ReadFile reads a whole (small) file, such as a snapshot or schema JSON.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// Stat describes one path.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Exists reports whether path exists. It costs one small request.
	Exists(ctx context.Context, path string) (bool, error)
	// List returns the direct children of dir. A missing directory yields an
	// empty list, not an error, because Paimon creates directories lazily.
	List(ctx context.Context, dir string) ([]FileInfo, error)
	// WriteFileAtomic writes data so that readers see either the old content
	// or the new one, never a torn file. With overwrite false it fails with
	// an error wrapping ErrExist when the target exists.
	WriteFileAtomic(ctx context.Context, path string, data []byte, overwrite bool) error
	// Delete removes a file. Deleting a missing file is not an error.
	Delete(ctx context.Context, path string) error
}

// IsNotExist reports whether err says a path does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// Join joins path elements with "/" without cleaning a URI scheme away
// (path.Join would turn "s3://b" into "s3:/b").
func Join(base string, elems ...string) string {
	out := base
	for _, e := range elems {
		if e == "" {
			continue
		}
		switch {
		case out == "":
			out = e
		case out[len(out)-1] == '/':
			out += trimLeadingSlash(e)
		default:
			out += "/" + trimLeadingSlash(e)
		}
	}
	return out
}

func trimLeadingSlash(s string) string {
	for len(s) > 0 && s[0] == '/' {
		s = s[1:]
	}
	return s
}
