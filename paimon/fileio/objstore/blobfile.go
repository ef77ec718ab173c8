package objstore

import (
	"context"
	"errors"
	"fmt"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"io"
	"sync"
)

// blobFile is a File over ranged GETs. Two cached blocks make Parquet cheap:
// the tail (footer length + magic, then the footer, in one GET) and the last
// read-ahead block (small page-header and column-chunk reads that follow each
// other). Reads larger than the read-ahead go straight to the store.
type blobFile struct {
	b    *Blob
	key  string
	path string
	size int64
	// ctx is not stored: io.ReaderAt has no context, so reads use Background
	// bounded by the per-attempt timeout and retry limit.

	mu    sync.Mutex
	tail  []byte // bytes [size-len(tail), size)
	block []byte
	boff  int64 // offset of block
}

func (f *blobFile) Size() int64  { return f.size }
func (f *blobFile) Path() string { return f.path }
func (f *blobFile) Close() error { return nil }

// ReadAt implements io.ReaderAt: it returns len(p) bytes or an error; io.EOF
// only when the read runs past the end of the object.
func (f *blobFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", f.path, off)
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := int64(len(p))
	if rem := f.size - off; n > rem {
		n = rem
	}
	if err := f.readAt(p[:n], off); err != nil {
		return 0, err
	}
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

func (f *blobFile) readAt(p []byte, off int64) error {
	n := int64(len(p))
	end := off + n
	if n == 0 {
		return nil
	}
	ra := f.b.opts.readAhead()
	tc := min(f.b.opts.tailCache(), f.size)
	if n >= ra && (tc == 0 || off < f.size-tc) {
		return f.fetch(p, off)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if tstart := f.size - int64(len(f.tail)); f.tail != nil && off >= tstart {
		copy(p, f.tail[off-tstart:])
		return nil
	}
	if f.block != nil && off >= f.boff && end <= f.boff+int64(len(f.block)) {
		copy(p, f.block[off-f.boff:])
		return nil
	}
	if tc > 0 && off >= f.size-tc {
		tail := make([]byte, tc)
		if err := f.fetch(tail, f.size-tc); err != nil {
			return err
		}
		f.tail = tail
		copy(p, tail[off-(f.size-tc):])
		return nil
	}
	if n >= ra {
		return f.fetch(p, off)
	}
	bend := min(f.size, off+ra)
	if tc > 0 && end <= f.size-tc {
		// Stop at the tail: it has its own block and would be fetched twice.
		bend = max(end, min(bend, f.size-tc))
	}
	block := make([]byte, bend-off)
	if err := f.fetch(block, off); err != nil {
		return err
	}
	f.block, f.boff = block, off
	copy(p, block)
	return nil
}

// fetch reads exactly len(p) bytes at off with ranged GETs; a retry after a
// cut body asks only for the bytes still missing.
func (f *blobFile) fetch(p []byte, off int64) error {
	want := int64(len(p))
	var got int64
	err := f.b.retry.do(context.Background(), "get", func(ctx context.Context, _ int) error {
		start := off + got
		length := want - got
		r, err := f.b.bucket.NewRangeReader(ctx, f.key, start, length, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		if r.Size() != f.size {
			return &sizeMismatchError{want: f.size, got: r.Size()}
		}
		if f.b.s3 != nil {
			if err := checkContentRange(r, start, length, f.size); err != nil {
				return err
			}
		}
		m, err := io.ReadFull(r, p[got:])
		got += int64(m)
		return bodyErr(err, got, want)
	})
	if err != nil {
		if errors.Is(err, fileio.ErrNotExist) || isNotFound(err) {
			return wrap("read", f.path, err)
		}
		return fmt.Errorf("read %s [%d, %d): %w", f.path, off, off+want, err)
	}
	return nil
}

// sizeMismatchError is permanent: the object is not the one that was
// opened (replaced, or a manifest recorded a wrong size).
type sizeMismatchError struct{ want, got int64 }

func (e *sizeMismatchError) Error() string {
	return fmt.Sprintf("object size is %d, expected %d (replaced or wrong size recorded)", e.got, e.want)
}
