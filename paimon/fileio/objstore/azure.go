//go:build !paimon_noazure

package objstore

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
)

// openAzure opens an azblob://container or abfs[s]://container@account…
// URI over the Blob API (which also serves ADLS Gen2 accounts).
//
// The client is built from Options rather than gocloud's URL opener so
// secrets never travel in a URI, and so the SDK's own retries can be off
// in favour of this package's policy and Metrics hook. Credentials, first
// match wins: StorageConnectionString; StorageAccessKey (shared key);
// StorageSASToken; Anonymous; then AZURE_STORAGE_CONNECTION_STRING,
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN; then the Azure default
// credential. Build with -tags paimon_noazure to leave the Azure SDK out of
// the binary.
func openAzure(ctx context.Context, loc location, opts Options) (*Blob, error) {
	fail := func(err error) (*Blob, error) { return nil, fmt.Errorf("open %s: %w", loc.Root, err) }
	connStr, key, sas := opts.StorageConnectionString, opts.StorageAccessKey, opts.StorageSASToken
	if connStr != "" && (key != "" || sas != "" || opts.Endpoint != "" || opts.StorageAccount != "") {
		return fail(errors.New("a storage connection string names the account, endpoint and credentials itself; leave StorageAccount, StorageAccessKey, StorageSASToken and Endpoint empty"))
	}
	if connStr == "" && key == "" && sas == "" && !opts.Anonymous {
		connStr = os.Getenv("AZURE_STORAGE_CONNECTION_STRING")
		if connStr == "" {
			connStr = os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING")
		}
		key, sas = os.Getenv("AZURE_STORAGE_KEY"), os.Getenv("AZURE_STORAGE_SAS_TOKEN")
		if opts.Endpoint != "" {
			// An explicit endpoint wins over one inside an environment
			// connection string; keys from the environment still apply.
			connStr = ""
		}
	}
	copts := &container.ClientOptions{ClientOptions: azcore.ClientOptions{
		Retry: policy.RetryOptions{MaxRetries: -1},
		// Per call, not per retry: the range header must be in place before
		// the shared-key policy (a per-retry policy) signs the request.
		PerCallPolicies: []policy.Policy{azureResponseCheck{}},
		Telemetry:       policy.TelemetryOptions{ApplicationID: "connect-paimon"},
	}}
	var (
		client *container.Client
		err    error
	)
	if connStr != "" {
		client, err = container.NewClientFromConnectionString(connStr, loc.Bucket, copts)
		if err != nil {
			// The SDK's message never echoes the string (it holds the key).
			return fail(fmt.Errorf("storage connection string: %w", err))
		}
	} else {
		account, err := azureAccount(loc, opts)
		if err != nil {
			return fail(err)
		}
		svc, err := azureServiceURL(opts.Endpoint, account)
		if err != nil {
			return fail(err)
		}
		containerURL := svc + "/" + url.PathEscape(loc.Bucket)
		switch {
		case key != "":
			cred, err := container.NewSharedKeyCredential(account, key)
			if err != nil {
				return fail(fmt.Errorf("storage access key of account %s: %w", account, err))
			}
			client, err = container.NewClientWithSharedKeyCredential(containerURL, cred, copts)
			if err != nil {
				return fail(err)
			}
		case sas != "" || opts.Anonymous:
			if sas != "" {
				containerURL += "?" + strings.TrimPrefix(sas, "?")
			}
			client, err = container.NewClientWithNoCredential(containerURL, copts)
			if err != nil {
				return fail(err)
			}
		default:
			cred, err := azidentity.NewDefaultAzureCredential(nil)
			if err != nil {
				return fail(fmt.Errorf("no Azure storage key, SAS token or connection string, and the default credential failed: %w", err))
			}
			client, err = container.NewClient(containerURL, cred, copts)
			if err != nil {
				return fail(err)
			}
		}
	}
	bucket, err := azureblob.OpenBucket(ctx, client, nil)
	if err != nil {
		return fail(err)
	}
	b, err := newBlob(bucket, loc.Root, opts)
	if err != nil {
		return nil, err
	}
	b.put = azurePut(client, bucket)
	return b, nil
}

// azurePut writes an object with one Put Blob from memory. gocloud's
// azureblob writer goes through azblob's UploadStream, whose buffers are
// mmap'ed and unmapped when the upload returns, even while the HTTP
// transport is still sending a request body after a connection reset:
// the process dies with SIGSEGV (seen under injected resets on Azurite).
// Keys gocloud would escape (backslash, ", #, %, ?, control characters, "../",
// a trailing "/") still go through gocloud so reads find them.
func azurePut(client *container.Client, bucket *blob.Bucket) func(context.Context, string, []byte, bool) error {
	return func(ctx context.Context, key string, data []byte, ifNotExist bool) error {
		if azureEscapes(key) {
			return bucket.Upload(ctx, key, bytes.NewReader(data), &blob.WriterOptions{
				ContentType: "application/octet-stream", IfNotExist: ifNotExist,
			})
		}
		o := &blockblob.UploadOptions{HTTPHeaders: &azblobblob.HTTPHeaders{BlobContentType: to.Ptr("application/octet-stream")}}
		if ifNotExist {
			o.AccessConditions = &azblobblob.AccessConditions{ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}}
		}
		_, err := client.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), o)
		var re *azcore.ResponseError
		if errors.As(err, &re) {
			switch {
			case re.StatusCode == http.StatusConflict || re.StatusCode == http.StatusPreconditionFailed:
				if bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) {
					return fmt.Errorf("%w: %w", fileio.ErrExist, err)
				}
			case re.StatusCode == http.StatusNotFound:
				return fmt.Errorf("%w: %w", fileio.ErrNotExist, err)
			}
		}
		return err
	}
}

// azureEscapes reports whether gocloud's azureblob would escape key (its
// escapeKey rule for full keys), so the object name differs from the key.
func azureEscapes(key string) bool {
	if strings.HasSuffix(key, "/") || strings.Contains(key, "../") {
		return true
	}
	for _, c := range key {
		if c < 32 || c == '"' || c == '#' || c == '%' || c == '?' || c == '\\' || c == 127 {
			return true
		}
	}
	return false
}

// azureAccount resolves the storage account: the abfs URI's, else
// StorageAccount, else the one an Endpoint names (Azurite's
// http://host:port/<account>, or <account>.blob.… hosts), else
// AZURE_STORAGE_ACCOUNT. Two different names are an error rather than a
// guess.
func azureAccount(loc location, opts Options) (string, error) {
	account := loc.Account
	if opts.StorageAccount != "" {
		if account != "" && account != opts.StorageAccount {
			return "", fmt.Errorf("URI names storage account %q but StorageAccount is %q", account, opts.StorageAccount)
		}
		account = opts.StorageAccount
	}
	if account == "" && opts.Endpoint != "" {
		if u, err := url.Parse(withScheme(opts.Endpoint)); err == nil {
			if seg, _, _ := strings.Cut(strings.Trim(u.Path, "/"), "/"); seg != "" {
				account = seg
			} else if h := u.Hostname(); !isLoopback(h) && strings.Count(h, ".") >= 2 && net.ParseIP(h) == nil {
				account, _, _ = strings.Cut(h, ".")
			}
		}
	}
	if account == "" {
		account = os.Getenv("AZURE_STORAGE_ACCOUNT")
	}
	if account == "" {
		return "", errors.New("unknown storage account: use abfs[s]://container@account.dfs.core.windows.net/…, set StorageAccount (or AZURE_STORAGE_ACCOUNT), or a connection string")
	}
	return account, nil
}

// azureServiceURL returns the blob service URL for account. Without an
// Endpoint it is https://<account>.blob.core.windows.net. An Endpoint is
// the service URL as Azure's connection strings spell BlobEndpoint; a
// loopback endpoint without a path gets "/<account>" appended, the path
// style Azurite serves.
func azureServiceURL(endpoint, account string) (string, error) {
	if endpoint == "" {
		return "https://" + account + ".blob.core.windows.net", nil
	}
	u, err := url.Parse(withScheme(endpoint))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("Azure endpoint %q: want http(s)://host[:port][/account]", endpoint)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("Azure endpoint %q: query and fragment are not supported (pass a SAS token as StorageSASToken)", endpoint)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if u.Path == "" && isLoopback(u.Hostname()) {
		u.Path = "/" + account
	}
	return u.String(), nil
}

func withScheme(ep string) string {
	if strings.Contains(ep, "://") {
		return ep
	}
	return "https://" + ep
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// azureResponseCheck runs once per request attempt (the SDK's retries are
// off, so per call is per attempt). It makes whole-blob reads ranged, so the size comes
// from Content-Range and a body cut short with a consistent Content-Length
// is caught; turns 408/429/5xx into errors isTransient recognises (an
// azcore.ResponseError carries the status in a field it does not look at)
// and 401/403 into permission errors;
// and checks listing answers parse, so a cut listing is retried rather than
// reported as an XML syntax error.
type azureResponseCheck struct{}

// Do implements policy.Policy.
func (azureResponseCheck) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	ranged := false
	if raw.Method == http.MethodGet && raw.URL.Query().Get("comp") == "" && raw.URL.Query().Get("restype") == "" &&
		!hasHeader(raw.Header, "x-ms-range") && !hasHeader(raw.Header, "Range") {
		// The SDK writes its x-ms-* headers in lower case, bypassing
		// canonicalisation; use the same spelling so the key is unique.
		raw.Header["x-ms-range"] = []string{"bytes=0-"}
		ranged = true
	}
	resp, err := req.Next()
	if err != nil {
		return nil, err
	}
	if ranged && resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
		// "bytes=0-" of an empty blob is unsatisfiable: ask plainly.
		resp.Body.Close()
		delete(raw.Header, "x-ms-range")
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
		if resp, err = req.Next(); err != nil {
			return nil, err
		}
	}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden,
		code == http.StatusRequestTimeout || code == http.StatusTooManyRequests,
		code >= 500 && code != http.StatusNotImplemented:
		return nil, newAzureStatusError(raw, resp)
	}
	if err := checkAzureBody(raw, resp); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("Azure %s %s: %w", raw.Method, raw.URL.Path, err)
	}
	return resp, nil
}

// hasHeader looks a header up in any spelling: the Azure SDK sets some
// without canonicalising their names, so Header.Get can miss them.
func hasHeader(h http.Header, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// maxAzureXML bounds the listing answers checkAzureBody buffers (a page of
// 1000 blobs with properties is well under a MiB).
const maxAzureXML = 32 << 20

// checkAzureBody compares a ranged answer's Content-Length with its
// Content-Range, and reads a listing whole to check it is well-formed XML.
func checkAzureBody(r *http.Request, resp *http.Response) error {
	if resp.StatusCode == http.StatusPartialContent && resp.ContentLength >= 0 && !resp.Uncompressed {
		var a, z, total int64
		cr := resp.Header.Get("Content-Range")
		if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &a, &z, &total); err == nil && z-a+1 != resp.ContentLength {
			return fmt.Errorf("%w: Content-Length %d for range %q", errShortRead, resp.ContentLength, cr)
		}
	}
	if resp.StatusCode != http.StatusOK || r.Method != http.MethodGet || r.URL.Query().Get("comp") != "list" {
		return nil
	}
	b, err := readAnswer(resp.Body, maxAzureXML, "listing answer")
	if err != nil {
		return err
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	depth, seen := 0, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: listing of %d bytes does not parse: %v", errShortRead, len(b), err)
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			seen = true
		case xml.EndElement:
			depth--
		}
	}
	if !seen || depth != 0 {
		return fmt.Errorf("%w: listing of %d bytes is incomplete", errShortRead, len(b))
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

// azureStatusError is an HTTP error answer of the Blob service; it
// implements the HTTPStatusCode method isTransient looks for.
type azureStatusError struct {
	code                int
	method, path, brief string
}

func newAzureStatusError(r *http.Request, resp *http.Response) *azureStatusError {
	// A few hundred bytes carry the service's error code and message.
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	brief := resp.Header.Get("x-ms-error-code")
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		// gocloud maps only AuthenticationFailed to PermissionDenied;
		// Azurite and SAS failures say AuthorizationFailure.
		brief = "permission denied (check the account key, SAS token or role assignment): " + brief
	}
	if s := strings.Join(strings.Fields(string(b)), " "); s != "" {
		brief += " " + s
	}
	return &azureStatusError{code: resp.StatusCode, method: r.Method, path: r.URL.Path, brief: brief}
}

func (e *azureStatusError) Error() string {
	return fmt.Sprintf("Azure %s %s: HTTP %d %s", e.method, e.path, e.code, e.brief)
}

// HTTPStatusCode reports the response status for isTransient.
func (e *azureStatusError) HTTPStatusCode() int { return e.code }
