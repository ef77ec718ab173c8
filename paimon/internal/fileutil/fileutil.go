// Package fileutil holds what the reader adds on top of fileio.FileIO:
// opening a file whose size a manifest already records, and listing the
// files of a metadata directory by name prefix.
package fileutil

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// SizedOpener is implemented by FileIOs that can open a file of known size
// without asking the store for it (Blob skips a HEAD per data file). Callers
// that know the size from a manifest use OpenSized.
type SizedOpener interface {
	OpenSize(ctx context.Context, path string, size int64) (fileio.File, error)
}

// OpenSized opens path through fio, passing the known size when fio can use
// it; otherwise it is fio.Open.
func OpenSized(ctx context.Context, fio fileio.FileIO, path string, size int64) (fileio.File, error) {
	if so, ok := fio.(SizedOpener); ok && size >= 0 {
		return so.OpenSize(ctx, path, size)
	}
	return fio.Open(ctx, path)
}

// ListSuffixes returns, for each file in dir named prefix+rest with rest not
// empty, that rest, in listing order. Directories are skipped, and so are
// temp files: writers name them ".<name>.<uuid>.tmp", which never starts
// with the prefix. what names the files in the error ("tags").
func ListSuffixes(ctx context.Context, fio fileio.FileIO, dir, prefix, what string) ([]string, error) {
	infos, err := fio.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", what, dir, err)
	}
	var rests []string
	for _, fi := range infos {
		if rest, ok := strings.CutPrefix(fi.Name, prefix); ok && rest != "" && !fi.IsDir {
			rests = append(rests, rest)
		}
	}
	return rests, nil
}

// ListVersioned returns the ids of the files prefix<n> in dir in ascending
// order, as Java's listVersionedFiles: names with anything but decimal
// digits after the prefix are ignored, and so are ids too long for an
// int64 (no file Paimon wrote).
func ListVersioned(ctx context.Context, fio fileio.FileIO, dir, prefix, what string) ([]int64, error) {
	rests, err := ListSuffixes(ctx, fio, dir, prefix, what)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, rest := range rests {
		if strings.Trim(rest, "0123456789") != "" {
			continue
		}
		if id, err := strconv.ParseInt(rest, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
