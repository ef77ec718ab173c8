//go:build !paimon_nogcs

package objstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcp"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"
)

// openGCS opens a gs:// bucket over the JSON/XML HTTP API.
//
// Credentials: Anonymous sends unauthenticated requests; an Endpoint with
// http:// (an emulator such as fake-gcs-server) is also unauthenticated,
// because a bearer token must never travel in clear text; otherwise
// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud,
// workload identity). With no Endpoint, STORAGE_EMULATOR_HOST is honoured
// as the Google SDKs do.
//
// The SDK's own retries are turned off so the one retry policy of this
// package (and its Metrics hook) sees every attempt, as on S3. Build with
// -tags paimon_nogcs to leave the GCS SDK out of the binary.
func openGCS(ctx context.Context, loc location, opts Options) (*Blob, error) {
	// The storage client classifies 5xx itself only for its own retries;
	// gcsResponseCheck turns them into errors our retrier understands.
	plain := &http.Client{Transport: gcsResponseCheck{next: gcp.DefaultTransport()}}
	var (
		client *gcp.HTTPClient
		// JSON reads address objects as /storage/v1/b/<bucket>/o/<key> on
		// any endpoint. The default XML reads address them by host name,
		// which emulators resolve differently (fake-gcs-server answers an
		// XML read on an unknown host with 404, so every file would look
		// missing); Google recommends JSON reads anyway.
		clientOpts = []option.ClientOption{storage.WithJSONReads()}
		auth       = !opts.Anonymous
	)
	if opts.Endpoint != "" {
		ep, err := gcsEndpoint(opts.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", loc.Root, err)
		}
		clientOpts = append(clientOpts, option.WithEndpoint(ep))
		if strings.HasPrefix(ep, "http://") {
			auth = false
		}
	} else if os.Getenv("STORAGE_EMULATOR_HOST") != "" {
		// The storage client points itself at the emulator.
		auth = false
	}
	if auth {
		creds, err := gcsCredentials(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", loc.Root, err)
		}
		ts := gcp.CredentialsTokenSource(creds)
		client, err = gcp.NewHTTPClient(gcsResponseCheck{next: gcp.DefaultTransport()}, ts)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", loc.Root, err)
		}
	} else {
		client = &gcp.HTTPClient{Client: *plain}
		clientOpts = append(clientOpts, option.WithoutAuthentication(), option.WithHTTPClient(plain))
	}
	bucket, err := gcsblob.OpenBucket(ctx, client, loc.Bucket, &gcsblob.Options{ClientOptions: clientOpts})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc.Root, err)
	}
	var sc *storage.Client
	if bucket.As(&sc) {
		sc.SetRetry(storage.WithPolicy(storage.RetryNever))
	}
	return newBlob(bucket, loc.Root, opts)
}

// gcsScope is what the reader needs: objects are read, and consumer files
// written and deleted.
const gcsScope = "https://www.googleapis.com/auth/devstorage.read_write"

// gcsCredentials resolves the Google credentials: the JSON document or file
// of Options, else Application Default Credentials. Errors never quote the
// document, which holds a private key.
func gcsCredentials(ctx context.Context, opts Options) (*google.Credentials, error) {
	doc := []byte(opts.GCSCredentialsJSON)
	switch {
	case opts.GCSCredentialsJSON != "" && opts.GCSCredentialsFile != "":
		return nil, errors.New("Google credentials: a JSON document and a file are both set; set one")
	case opts.GCSCredentialsFile != "":
		b, err := os.ReadFile(opts.GCSCredentialsFile)
		if err != nil {
			return nil, fmt.Errorf("Google credentials file: %w", err)
		}
		doc = b
	case opts.GCSCredentialsJSON == "":
		creds, err := gcp.DefaultCredentials(ctx)
		if err != nil {
			return nil, fmt.Errorf("Google Application Default Credentials: %w (set GOOGLE_APPLICATION_CREDENTIALS or credentials, or Anonymous for public buckets)", err)
		}
		return creds, nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		// Syntax errors name offsets, never values.
		return nil, fmt.Errorf("Google credentials: not a JSON document: %w", err)
	}
	// The type is the document's own, checked against the kinds a storage
	// reader may be given (Google's advice for credentials from config).
	switch t := google.CredentialsType(head.Type); t {
	case google.ServiceAccount, google.AuthorizedUser, google.ExternalAccount, google.ImpersonatedServiceAccount:
		creds, err := google.CredentialsFromJSONWithTypeAndParams(ctx, doc, t, google.CredentialsParams{Scopes: []string{gcsScope}})
		if err != nil {
			return nil, fmt.Errorf("Google credentials of type %s: %w", t, err)
		}
		return creds, nil
	default:
		return nil, fmt.Errorf("Google credentials: unsupported type %q (want service_account, authorized_user, external_account or impersonated_service_account)", head.Type)
	}
}

// gcsEndpoint turns Options.Endpoint into the JSON API base URL the storage
// client wants ("http://host:port/storage/v1/"). A bare host:port gets
// https:// like the S3 endpoint; a URL with a path is taken as written.
func gcsEndpoint(ep string) (string, error) {
	if !strings.Contains(ep, "://") {
		ep = "https://" + ep
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("GCS endpoint %q: want http(s)://host[:port][/path]", ep)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("GCS endpoint %q: query and fragment are not supported", ep)
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/storage/v1/"
	} else if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// gcsResponseCheck turns answers the storage client would only understand
// through its own (disabled) retryer into errors carrying the HTTP status:
// 408, 429 and 5xx become transient for isTransient, and 401/403 become
// errors instead of gcsblob's mapping of 403 to NotFound, which would make
// Exists report a missing snapshot when the credentials are wrong.
type gcsResponseCheck struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (c gcsResponseCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden,
		code == http.StatusRequestTimeout || code == http.StatusTooManyRequests,
		code >= 500 && code != http.StatusNotImplemented:
		return nil, newStatusError("GCS", r, resp)
	}
	err = checkGCSLength(resp)
	if err == nil {
		err = checkGCSJSON(r, resp)
	}
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("GCS %s %s: %w", r.Method, r.URL.Path, err)
	}
	return resp, nil
}

// maxGCSJSON bounds the metadata answers checkGCSJSON buffers; a listing
// page of 1000 objects is a few hundred KiB.
const maxGCSJSON = 32 << 20

// checkGCSJSON reads a JSON API answer (object metadata, listing) whole and
// checks it parses. A body cut short with a consistent Content-Length
// would otherwise surface as "unexpected end of JSON input", an error no
// retry policy can tell from a real one; as errShortRead it is retried, as
// S3's unparsable XML is. Media downloads (alt=media) are left alone.
func checkGCSJSON(r *http.Request, resp *http.Response) error {
	if resp.StatusCode != http.StatusOK || r.Method == http.MethodHead || r.URL.Query().Get("alt") == "media" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return nil
	}
	b, err := readAnswer(resp.Body, maxGCSJSON, "JSON answer")
	if err != nil {
		return err
	}
	if !json.Valid(b) {
		return fmt.Errorf("%w: JSON answer of %d bytes does not parse", errShortRead, len(b))
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

// checkGCSLength catches a download whose Content-Length is consistent with
// a body cut short: gocloud takes a whole-object read's size from
// Content-Length, and reads exactly that many bytes, so the storage
// client's CRC32C check (which runs at EOF) never fires and a truncated
// file would be returned as the file. GCS states the object's size in
// X-Goog-Stored-Content-Length and a range's in Content-Range; both are
// compared with Content-Length. Transcoded (compressed) answers are not
// checked: their lengths legitimately differ.
func checkGCSLength(resp *http.Response) error {
	if resp.ContentLength < 0 || resp.Uncompressed || resp.Header.Get("Content-Encoding") != "" {
		return nil
	}
	switch resp.StatusCode {
	case http.StatusOK:
		stored := resp.Header.Get("X-Goog-Stored-Content-Length")
		if stored == "" {
			return nil
		}
		if enc := resp.Header.Get("X-Goog-Stored-Content-Encoding"); enc != "" && enc != "identity" {
			return nil
		}
		n, err := strconv.ParseInt(stored, 10, 64)
		if err != nil {
			return fmt.Errorf("unparsable X-Goog-Stored-Content-Length %q", stored)
		}
		if n != resp.ContentLength {
			return fmt.Errorf("%w: Content-Length %d, object size %d", errShortRead, resp.ContentLength, n)
		}
	case http.StatusPartialContent:
		cr := resp.Header.Get("Content-Range")
		var a, z, total int64
		if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &a, &z, &total); err != nil {
			return nil // "bytes */n" and other forms carry no length to compare
		}
		if z-a+1 != resp.ContentLength {
			return fmt.Errorf("%w: Content-Length %d for range %q", errShortRead, resp.ContentLength, cr)
		}
	}
	return nil
}

// gcsStatusError is an HTTP error answer of the storage service; it
// implements the HTTPStatusCode method isTransient looks for.
type gcsStatusError struct {
	code           int
	method, detail string
}

func newStatusError(service string, r *http.Request, resp *http.Response) *gcsStatusError {
	// A few hundred bytes of the body carry the service's reason without
	// risking a large read on a broken connection.
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	detail := strings.Join(strings.Fields(string(b)), " ")
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		detail = "permission denied (check credentials and bucket IAM): " + detail
	}
	return &gcsStatusError{code: resp.StatusCode, method: service + " " + r.Method, detail: detail}
}

func (e *gcsStatusError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.method, e.code, e.detail)
}

// HTTPStatusCode reports the response status for isTransient.
func (e *gcsStatusError) HTTPStatusCode() int { return e.code }
