package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"io"
	"path"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Blob is a FileIO over one gocloud.dev bucket (S3, GCS, Azure, or the
// in-memory and file drivers in tests). Paths are full URIs under Root;
// object keys are the URI path without the leading slash. Directories are
// key prefixes ending in "/", as Hadoop's S3A and pypaimon's PyArrow
// filesystems see them.
type Blob struct {
	bucket *blob.Bucket
	loc    location
	retry  retrier
	opts   Options
	// s3 is set for S3 buckets: deletes go straight to DeleteObject (one
	// request; S3 deletes are idempotent, s3blob would HEAD first) and ranged
	// reads check Content-Range.
	s3 *s3.Client
	// put, when set by a driver's opener, replaces gocloud's writer for
	// WriteFileAtomic (Azure: gocloud's writer streams through azblob's
	// mmap'ed buffers, which are unmapped while a reset request's body is
	// still being sent, crashing the process). It reports an existing
	// object, for ifNotExist, as fileio.ErrExist.
	put func(ctx context.Context, key string, data []byte, ifNotExist bool) error
}

// newBlob wraps an opened bucket. root is the URI prefix naming the bucket
// ("s3://bucket"); every path given to the FileIO must name the same bucket
// (s3, s3a and s3n are interchangeable, as are abfs and abfss). The Blob owns the bucket: Close closes it.
func newBlob(bucket *blob.Bucket, root string, opts Options) (*Blob, error) {
	loc, err := parseLocation(root)
	if err != nil {
		return nil, err
	}
	if loc.Bucket == "" {
		return nil, fmt.Errorf("blob root %q: not an object-store URI", root)
	}
	b := &Blob{bucket: bucket, loc: loc, retry: newRetrier(opts), opts: opts}
	var c *s3.Client
	if schemeFamily(loc.Scheme) == "s3" && bucket.As(&c) {
		b.s3 = c
	}
	return b, nil
}

// Root returns the bucket URI prefix, e.g. "s3://bucket".
func (b *Blob) Root() string { return b.loc.Root }

// Close releases the bucket's resources.
func (b *Blob) Close() error { return b.bucket.Close() }

// key maps a full URI to an object key, refusing URIs of other buckets so a
// misconfigured path never reads the wrong bucket.
func (b *Blob) key(uri string) (string, error) {
	loc, err := parseLocation(uri)
	if err != nil {
		return "", err
	}
	if schemeFamily(loc.Scheme) != schemeFamily(b.loc.Scheme) || loc.Bucket != b.loc.Bucket || loc.Account != b.loc.Account {
		return "", fmt.Errorf("path %q is outside the bucket %s of this fileio.FileIO", uri, b.loc.Root)
	}
	return loc.Key, nil
}

// schemeFamily groups spellings of one store: Java writes s3a:// where
// pypaimon writes s3://, and both may appear in one warehouse's metadata.
func schemeFamily(s string) string {
	switch s {
	case "s3a", "s3n":
		return "s3"
	case "abfss":
		return "abfs"
	}
	return s
}

// uriOf builds the path returned in listings, in the FileIO's own spelling.
func (b *Blob) uriOf(key string) string {
	if key == "" {
		return b.loc.Root
	}
	return b.loc.Root + "/" + key
}

// wrap names the operation and URI, and adds ErrNotExist / ErrExist so
// callers can use errors.Is without knowing gocloud.
func wrap(op, uri string, err error) error {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s %s: %w: %w", op, uri, fileio.ErrNotExist, err)
	case gcerrors.PermissionDenied:
		return fmt.Errorf("%s %s: permission denied (check credentials, region and bucket policy): %w", op, uri, err)
	}
	return fmt.Errorf("%s %s: %w", op, uri, err)
}

// Open implements FileIO. It costs one HEAD for the size; OpenSize avoids it
// when the caller knows the size (data files from manifests).
func (b *Blob) Open(ctx context.Context, uri string) (fileio.File, error) {
	st, err := b.Stat(ctx, uri)
	if err != nil {
		return nil, err
	}
	if st.IsDir {
		return nil, fmt.Errorf("open %s: is a directory", uri)
	}
	return b.OpenSize(ctx, uri, st.Size)
}

// OpenSize opens a file whose size is already known (Paimon's DataFileMeta
// records it), saving the HEAD request of Open. A wrong size is detected on
// the first read from the object's reported length.
func (b *Blob) OpenSize(_ context.Context, uri string, size int64) (fileio.File, error) {
	key, err := b.key(uri)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, fmt.Errorf("open %s: is the bucket root", uri)
	}
	if size < 0 {
		return nil, fmt.Errorf("open %s: negative size %d", uri, size)
	}
	return &blobFile{b: b, key: key, path: uri, size: size}, nil
}

// ReadFile implements FileIO with a single GET. The whole-object size comes
// from Content-Range (S3) rather than Content-Length, so a body cut short
// with a consistent Content-Length is still caught.
func (b *Blob) ReadFile(ctx context.Context, uri string) ([]byte, error) {
	key, err := b.key(uri)
	if err != nil {
		return nil, err
	}
	var (
		buf      []byte
		size     int64 = -1
		got      int64
		useRange = b.s3 != nil
	)
	err = b.retry.do(ctx, "get", func(ctx context.Context, _ int) error {
		if size < 0 {
			opts := &blob.ReaderOptions{}
			if useRange {
				opts.BeforeRead = func(as func(any) bool) error {
					var in *s3.GetObjectInput
					if as(&in) {
						in.Range = aws.String("bytes=0-")
					}
					return nil
				}
			}
			r, err := b.bucket.NewRangeReader(ctx, key, 0, -1, opts)
			if err != nil {
				if useRange && isInvalidRange(err) {
					// "bytes=0-" of an empty object is unsatisfiable: read it
					// plainly on the next attempt.
					useRange = false
					return errEmptyRetry
				}
				return err
			}
			defer r.Close()
			size = r.Size()
			if size < 0 {
				return fmt.Errorf("object reports negative size %d", size)
			}
			if useRange {
				if err := checkContentRange(r, 0, size, size); err != nil {
					size = -1
					return err
				}
			}
			buf = make([]byte, size)
			n, err := io.ReadFull(r, buf)
			got = int64(n)
			return bodyErr(err, got, size)
		}
		r, err := b.bucket.NewRangeReader(ctx, key, got, size-got, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		if r.Size() != size {
			return fmt.Errorf("object changed size during read (%d, now %d)", size, r.Size())
		}
		n, err := io.ReadFull(r, buf[got:])
		got += int64(n)
		return bodyErr(err, got, size)
	})
	if errors.Is(err, errEmptyRetry) {
		// Only reachable when retries are disabled.
		return nil, fmt.Errorf("read %s: empty object needs a second request but retries are disabled", uri)
	}
	if err != nil {
		return nil, wrap("read", uri, err)
	}
	return buf, nil
}

// errEmptyRetry asks the retrier for one more attempt (it is transient).
var errEmptyRetry = fmt.Errorf("retry without range: %w", errShortRead)

func isInvalidRange(err error) bool {
	var st interface{ HTTPStatusCode() int }
	return errors.As(err, &st) && st.HTTPStatusCode() == 416
}

// bodyErr turns the end of a body read into a verdict: all bytes → nil; a
// body that ended early → errShortRead (retried for the rest).
func bodyErr(err error, got, want int64) error {
	if got == want {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: got %d of %d bytes", errShortRead, got, want)
	}
	return fmt.Errorf("after %d of %d bytes: %w", got, want, err)
}

// checkContentRange verifies on S3 that the server honoured the Range
// header; a server ignoring it would otherwise hand back bytes from offset 0.
func checkContentRange(r *blob.Reader, off, length, total int64) error {
	var out s3.GetObjectOutput
	if !r.As(&out) {
		return nil
	}
	cr := aws.ToString(out.ContentRange)
	if cr == "" {
		if off == 0 && length == total {
			return nil
		}
		return fmt.Errorf("server ignored the byte range %d-%d (no Content-Range)", off, off+length-1)
	}
	var a, z, t int64
	if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &a, &z, &t); err != nil {
		return fmt.Errorf("unparsable Content-Range %q", cr)
	}
	if a != off || t != total || (length > 0 && z != off+length-1) {
		return fmt.Errorf("server returned range %q for bytes %d-%d of %d", cr, off, off+length-1, total)
	}
	return nil
}

// Stat implements FileIO: one HEAD; when there is no such object, one
// listing of "key/" to report a directory (a common prefix).
func (b *Blob) Stat(ctx context.Context, uri string) (fileio.FileInfo, error) {
	key, err := b.key(uri)
	if err != nil {
		return fileio.FileInfo{}, err
	}
	name := path.Base(key)
	if key == "" {
		return fileio.FileInfo{Path: b.loc.Root, Name: b.loc.Bucket, IsDir: true}, nil
	}
	var attrs *blob.Attributes
	err = b.retry.do(ctx, "head", func(ctx context.Context, _ int) error {
		var err error
		attrs, err = b.bucket.Attributes(ctx, key)
		return err
	})
	if err == nil {
		return fileio.FileInfo{Path: uri, Name: name, Size: attrs.Size, ModTime: attrs.ModTime}, nil
	}
	if gcerrors.Code(err) != gcerrors.NotFound {
		return fileio.FileInfo{}, wrap("stat", uri, err)
	}
	var objs []*blob.ListObject
	lerr := b.retry.do(ctx, "list", func(ctx context.Context, _ int) error {
		var err error
		objs, _, err = b.bucket.ListPage(ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: key + "/"})
		return err
	})
	if lerr != nil {
		return fileio.FileInfo{}, wrap("stat", uri, lerr)
	}
	if len(objs) == 0 {
		return fileio.FileInfo{}, wrap("stat", uri, err)
	}
	return fileio.FileInfo{Path: uri, Name: name, IsDir: true}, nil
}

// Exists implements FileIO with exactly one HEAD, so an idle streaming poll
// (does snapshot-N+1 exist?) costs one request. It reports objects only: a
// directory is a prefix, not an object; use Stat or List for directories.
func (b *Blob) Exists(ctx context.Context, uri string) (bool, error) {
	key, err := b.key(uri)
	if err != nil {
		return false, err
	}
	if key == "" {
		return true, nil
	}
	err = b.retry.do(ctx, "head", func(ctx context.Context, _ int) error {
		_, err := b.bucket.Attributes(ctx, key)
		return err
	})
	if err == nil {
		return true, nil
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return false, nil
	}
	return false, wrap("exists", uri, err)
}

// listPageSize is the S3 maximum; fewer pages means fewer requests.
const listPageSize = 1000

// List implements FileIO with a delimiter listing of "dir/": objects become
// files, common prefixes directories. Each page is retried on its own.
func (b *Blob) List(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	key, err := b.key(dir)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if key != "" {
		prefix = key + "/"
	}
	opts := &blob.ListOptions{Prefix: prefix, Delimiter: "/"}
	var out []fileio.FileInfo
	token := blob.FirstPageToken
	for {
		var objs []*blob.ListObject
		var next []byte
		err := b.retry.do(ctx, "list", func(ctx context.Context, _ int) error {
			var err error
			objs, next, err = b.bucket.ListPage(ctx, token, listPageSize, opts)
			return err
		})
		if err != nil {
			return nil, wrap("list", dir, err)
		}
		for _, o := range objs {
			k := strings.TrimSuffix(o.Key, "/")
			if k == key || !strings.HasPrefix(o.Key, prefix) {
				continue // a "dir/" marker object, or a confused server
			}
			name := k[len(prefix):]
			if name == "" || strings.Contains(name, "/") {
				continue
			}
			fi := fileio.FileInfo{Path: b.uriOf(k), Name: name, IsDir: o.IsDir}
			if !o.IsDir {
				fi.Size, fi.ModTime = o.Size, o.ModTime
			}
			out = append(out, fi)
		}
		if len(next) == 0 {
			return out, nil
		}
		token = next
	}
}

// WriteFileAtomic implements FileIO as one PUT, which object stores make
// visible atomically. With overwrite false the PUT is conditional
// (If-None-Match: * on S3, the drivers' equivalents elsewhere). When a
// conditional PUT is retried after a lost response and then fails because
// the object exists, the object is read back: identical content means the
// lost attempt succeeded.
func (b *Blob) WriteFileAtomic(ctx context.Context, uri string, data []byte, overwrite bool) error {
	key, err := b.key(uri)
	if err != nil {
		return err
	}
	if key == "" {
		return fmt.Errorf("write %s: is the bucket root", uri)
	}
	retried := false
	err = b.retry.do(ctx, "put", func(ctx context.Context, attempt int) error {
		retried = attempt > 0
		// Upload, not NewWriter+Write+Close: gocloud v0.47's azureblob
		// writer panics in Close when a streamed upload fails (its pipe
		// reader is nil'ed by the upload goroutine), e.g. on every
		// conditional-create conflict; Upload hands the driver a reader.
		if b.put != nil {
			return b.put(ctx, key, data, !overwrite)
		}
		return b.bucket.Upload(ctx, key, bytes.NewReader(data), &blob.WriterOptions{
			ContentType: "application/octet-stream",
			IfNotExist:  !overwrite,
		})
	})
	if err == nil {
		return nil
	}
	if !overwrite && (gcerrors.Code(err) == gcerrors.FailedPrecondition || errors.Is(err, fileio.ErrExist)) {
		if retried {
			if cur, rerr := b.ReadFile(ctx, uri); rerr == nil && bytes.Equal(cur, data) {
				return nil
			}
		}
		return fmt.Errorf("write %s: %w", uri, fileio.ErrExist)
	}
	return wrap("write", uri, err)
}

// Delete implements FileIO. Deleting a missing object succeeds.
func (b *Blob) Delete(ctx context.Context, uri string) error {
	key, err := b.key(uri)
	if err != nil {
		return err
	}
	if key == "" {
		return fmt.Errorf("delete %s: is the bucket root", uri)
	}
	err = b.retry.do(ctx, "delete", func(ctx context.Context, _ int) error {
		if b.s3 != nil {
			_, err := b.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.loc.Bucket), Key: aws.String(key)})
			return err
		}
		return b.bucket.Delete(ctx, key)
	})
	if err == nil || gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return wrap("delete", uri, err)
}
