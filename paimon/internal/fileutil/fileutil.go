// Package fileutil holds what the reader adds on top of fileio.FileIO:
// opening a file whose size a manifest already records.
package fileutil

import (
	"context"

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
