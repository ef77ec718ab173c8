//go:build !paimon_noazure

package objstore

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
)

// openAzure uses azureblob's URL opener, which reads the account and
// credentials from the environment (AZURE_STORAGE_ACCOUNT, _KEY, _SAS_TOKEN,
// connection string, or the Azure default credential). An abfs[s] URI names
// the account itself; Endpoint, when set, replaces the blob service domain
// (emulators such as Azurite: http://127.0.0.1:10000). Build with
// -tags paimon_noazure to leave the Azure SDK out of the binary.
func openAzure(ctx context.Context, loc Location, opts Options) (*Blob, error) {
	q := url.Values{}
	if loc.Account != "" {
		q.Set("storage_account", loc.Account)
	}
	if ep := opts.Endpoint; ep != "" {
		proto, host, ok := strings.Cut(ep, "://")
		if !ok {
			proto, host = "https", ep
		}
		q.Set("protocol", proto)
		q.Set("domain", strings.TrimSuffix(host, "/"))
	}
	u := &url.URL{Scheme: azureblob.Scheme, Host: loc.Bucket, RawQuery: q.Encode()}
	bucket, err := blob.DefaultURLMux().OpenBucketURL(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc.Root, err)
	}
	return NewBlob(bucket, loc.Root, opts)
}
