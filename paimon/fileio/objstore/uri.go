package objstore

import (
	"context"
	"fmt"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/localpath"
	"strings"
	"time"
)

// Options configures object-store access. The zero value works for local
// paths and for AWS with the default credential chain; the fields mirror
// Connect's AWS config fields so the Benthos input can pass them through.
type Options struct {
	// Region of the bucket (S3). Empty uses the SDK's chain (AWS_REGION,
	// shared config) and falls back to us-east-1, which S3-compatible
	// servers accept.
	Region string
	// Endpoint overrides the service endpoint (S3-compatible stores such as
	// MinIO, versitygw, OSS's S3 API). A bare host:port gets https://.
	Endpoint string
	// ForcePathStyle addresses buckets as endpoint/bucket/key instead of
	// bucket.endpoint/key; most on-prem stores need it, OSS must not use it.
	ForcePathStyle bool
	// AccessKeyID, SecretAccessKey and SessionToken are static credentials.
	// Empty means the SDK's default chain (env, shared config, SSO, web
	// identity, ECS, EC2 IMDS).
	AccessKeyID, SecretAccessKey, SessionToken string
	// Profile selects a shared-config profile for the default chain.
	Profile string
	// RoleARN, when set, assumes this role (STS) on top of the credentials
	// above; RoleExternalID goes with it.
	RoleARN, RoleExternalID string
	// Anonymous sends unsigned requests (public buckets).
	Anonymous bool
	// FromEC2Role takes the credentials of the EC2 instance's role (IMDS)
	// instead of the default chain, as Connect's credentials.from_ec2_role.
	FromEC2Role bool

	// GCSCredentialsJSON is a Google service-account (or other credentials)
	// JSON document; GCSCredentialsFile names a file holding one. Empty:
	// Application Default Credentials. At most one may be set.
	GCSCredentialsJSON, GCSCredentialsFile string

	// StorageAccount, StorageAccessKey, StorageSASToken and
	// StorageConnectionString address Azure Blob Storage (azblob://,
	// abfs[s]://), named like Connect's azure_blob_storage fields. The
	// account may also come from an abfs URI. A connection string carries
	// account, key and endpoint, so it excludes the others and Endpoint.
	// All empty: AZURE_STORAGE_* environment variables, then the Azure
	// default credential (managed/workload identity, az login).
	StorageAccount, StorageAccessKey, StorageSASToken, StorageConnectionString string

	// MaxRetries bounds retries of one operation after transient failures
	// (5xx, throttling, timeouts, resets, truncated bodies). 0 means the
	// default (5); negative disables retries.
	MaxRetries int
	// RetryBaseDelay and RetryMaxDelay shape the exponential backoff with
	// full jitter. Defaults: 100ms and 5s.
	RetryBaseDelay, RetryMaxDelay time.Duration
	// RequestTimeout bounds one attempt (request plus body read) so a stalled
	// connection is retried instead of hanging the poll loop. 0 means 60s;
	// negative disables it.
	RequestTimeout time.Duration
	// ReadAhead is the minimum ranged GET size for small ReadAt calls: the
	// block is cached per open file so the next small read (Parquet page
	// headers, adjacent small column chunks) costs no request. 0 means
	// 256 KiB; negative disables read-ahead.
	ReadAhead int
	// TailCache is how many bytes at the end of a file are fetched in one
	// GET when a read touches them, so a Parquet footer (length + magic,
	// then metadata) costs one request. 0 means 64 KiB; negative disables.
	TailCache int
	// ReadPartSize and ReadParallelism split a large ranged read (a Parquet
	// column chunk of several MB) into parallel GETs of ReadPartSize bytes,
	// at most ReadParallelism of them in flight per read; reads shorter
	// than two parts are one GET. The parts fill the caller's buffer, so
	// memory does not grow with them. 0 means 8 MiB and 4; a negative
	// ReadPartSize or a ReadParallelism of 1 reads every range as one GET.
	ReadPartSize, ReadParallelism int

	// Metrics, when set, is called once per storage request attempt with the
	// operation ("head", "get", "list", "put", "delete"), its error and
	// duration, so the input can count paimon_storage_requests without this
	// package importing a metrics library. It must be safe for concurrent use.
	Metrics func(op string, err error, d time.Duration)
}

const (
	defaultMaxRetries     = 5
	defaultRetryBaseDelay = 100 * time.Millisecond
	defaultRetryMaxDelay  = 5 * time.Second
	defaultRequestTimeout = 60 * time.Second
	defaultReadAhead      = 256 << 10
	defaultTailCache      = 64 << 10
	defaultReadPartSize   = 8 << 20
	defaultReadParallel   = 4
)

// orDefault is the option rule of Options: negative disables (0), zero
// is the default, anything else is itself.
func orDefault[T int | time.Duration](v, def T) T {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}

// positiveOr is v when positive, else def.
func positiveOr[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func (o Options) maxRetries() int { return orDefault(o.MaxRetries, defaultMaxRetries) }
func (o Options) baseDelay() time.Duration {
	return positiveOr(o.RetryBaseDelay, defaultRetryBaseDelay)
}
func (o Options) maxDelay() time.Duration { return positiveOr(o.RetryMaxDelay, defaultRetryMaxDelay) }
func (o Options) requestTimeout() time.Duration {
	return orDefault(o.RequestTimeout, defaultRequestTimeout)
}
func (o Options) readAhead() int64     { return int64(orDefault(o.ReadAhead, defaultReadAhead)) }
func (o Options) readPartSize() int64  { return int64(orDefault(o.ReadPartSize, defaultReadPartSize)) }
func (o Options) readParallelism() int { return positiveOr(o.ReadParallelism, defaultReadParallel) }
func (o Options) tailCache() int64     { return int64(orDefault(o.TailCache, defaultTailCache)) }

// location is a parsed warehouse or file URI.
type location struct {
	// Scheme is lower-case ("s3", "s3a", "gs", "azblob", "abfs", "abfss",
	// "file"), empty for a plain path.
	Scheme string
	// Bucket is the bucket or container name.
	Bucket string
	// Account is the storage account of an abfs[s] URI
	// (container@account.dfs.core.windows.net).
	Account string
	// Key is the object key (no leading slash) or, for local paths, the path.
	Key string
	// Root is the URI prefix that names the bucket exactly as written
	// ("s3a://bucket", "abfss://c@acct.dfs.core.windows.net").
	Root string
}

// parseLocation splits a URI into scheme, bucket and key. Plain paths and
// file: URIs are local; Windows drive letters are not special-cased because
// the reader runs on Linux.
func parseLocation(uri string) (location, error) {
	scheme, rest, ok := splitScheme(uri)
	if !ok {
		return location{Key: uri}, nil
	}
	switch scheme {
	case "file":
		return location{Scheme: scheme, Key: localpath.Strip(uri)}, nil
	case "s3", "s3a", "s3n", "gs", "azblob", "abfs", "abfss":
	default:
		return location{}, fmt.Errorf("location %q: unsupported scheme %q (supported: file, s3, s3a, gs, azblob, abfs, abfss)", uri, scheme)
	}
	if !strings.HasPrefix(rest, "//") {
		return location{}, fmt.Errorf("location %q: expected %s://bucket/path", uri, scheme)
	}
	rest = rest[2:]
	if strings.ContainsAny(rest, "?#") {
		return location{}, fmt.Errorf("location %q: query and fragment are not supported; pass storage settings as options", uri)
	}
	authority, key, _ := strings.Cut(rest, "/")
	if authority == "" {
		return location{}, fmt.Errorf("location %q: missing bucket name", uri)
	}
	loc := location{Scheme: scheme, Bucket: authority, Root: scheme + "://" + authority}
	if scheme == "abfs" || scheme == "abfss" {
		container, host, ok := strings.Cut(authority, "@")
		if !ok || container == "" || host == "" {
			return location{}, fmt.Errorf("location %q: expected %s://container@account.dfs.core.windows.net/path", uri, scheme)
		}
		acct, _, _ := strings.Cut(host, ".")
		loc.Bucket, loc.Account = container, acct
	}
	// Keys are used verbatim (no percent-decoding): Paimon never encodes,
	// and decoding would make "a%2Fb" and "a/b" the same object.
	loc.Key = cleanKey(key)
	return loc, nil
}

// splitScheme returns the lower-cased scheme of uri when it has one
// ("s3://…", "file:/…"); a colon after the first slash is part of a path.
func splitScheme(uri string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(uri, ':')
	if i <= 0 || strings.IndexByte(uri[:i], '/') >= 0 {
		return "", "", false
	}
	for j, c := range uri[:i] {
		isAlpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !isAlpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return strings.ToLower(uri[:i]), uri[i+1:], true
}

// cleanKey drops leading, trailing and repeated slashes: Hadoop's Path
// normalises "a//b" to "a/b", and object keys must not start with "/".
func cleanKey(key string) string {
	if !strings.Contains(key, "//") && !strings.HasPrefix(key, "/") && !strings.HasSuffix(key, "/") {
		return key
	}
	parts := strings.Split(key, "/")
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "/")
}

// Open returns the FileIO for a warehouse URI, chosen by its scheme: plain
// paths and file: → Local; s3, s3a, s3n → S3 (AWS or any S3-compatible
// endpoint); gs → Google Cloud Storage; azblob, abfs, abfss → Azure Blob
// Storage. Object-store FileIOs are bound to the URI's bucket and accept
// full URIs of that bucket in every method. Close the result when it
// implements io.Closer.
func Open(ctx context.Context, uri string, opts Options) (fileio.FileIO, error) {
	loc, err := parseLocation(uri)
	if err != nil {
		return nil, err
	}
	switch loc.Scheme {
	case "", "file":
		return fileio.NewLocal(), nil
	case "s3", "s3a", "s3n":
		return openS3(ctx, loc, opts)
	case "gs":
		return openGCS(ctx, loc, opts)
	case "azblob", "abfs", "abfss":
		return openAzure(ctx, loc, opts)
	}
	return nil, fmt.Errorf("open %s: unsupported scheme %q", uri, loc.Scheme)
}
