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
		return f.fetchParts(p, off)
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
		if err := f.fetch(context.Background(), tail, f.size-tc); err != nil {
			return err
		}
		f.tail = tail
		copy(p, tail[off-(f.size-tc):])
		return nil
	}
	if n >= ra {
		return f.fetchParts(p, off)
	}
	bend := min(f.size, off+ra)
	if tc > 0 && end <= f.size-tc {
		// Stop at the tail: it has its own block and would be fetched twice.
		bend = max(end, min(bend, f.size-tc))
	}
	block := make([]byte, bend-off)
	if err := f.fetch(context.Background(), block, off); err != nil {
		return err
	}
	f.block, f.boff = block, off
	copy(p, block)
	return nil
}

// fetchParts reads a large range as parallel ranged GETs of ReadPartSize
// bytes, at most ReadParallelism at a time: one stream from S3 or GCS
// delivers tens of MB/s, so a multi-MB column chunk read as one GET is bound
// by one connection's throughput, not by the network. Each part lands
// directly in its slice of p, so the read costs no memory beyond the
// caller's buffer whatever the part count, and each part is retried on its
// own by the Retrier (a cut body asks again only for that part's missing
// bytes). The first failing part cancels the others; its error, naming the
// file and the part's range, is the read's.
func (f *blobFile) fetchParts(p []byte, off int64) error {
	part, par := f.b.opts.readPartSize(), f.b.opts.readParallelism()
	n := int64(len(p))
	if part <= 0 || par <= 1 || n < 2*part {
		return f.fetch(context.Background(), p, off)
	}
	parts := int((n + part - 1) / part)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		next  = make(chan int)
	)
	for w := 0; w < min(par, parts); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				lo := int64(i) * part
				hi := min(n, lo+part)
				if err := f.fetch(ctx, p[lo:hi], off+lo); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := 0; i < parts; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return first
}

// fetch reads exactly len(p) bytes at off with ranged GETs; a retry after a
// cut body asks only for the bytes still missing.
func (f *blobFile) fetch(ctx context.Context, p []byte, off int64) error {
	want := int64(len(p))
	var got int64
	err := f.b.retry.do(ctx, "get", func(ctx context.Context, _ int) error {
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
