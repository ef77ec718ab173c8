//go:build !paimon_nogcs

package objstore

import (
	"context"
	"fmt"
	"net/url"

	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
)

// openGCS uses gcsblob's URL opener for Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud, workload identity) and its
// STORAGE_EMULATOR_HOST support. Build with -tags paimon_nogcs to leave the
// GCS SDK out of the binary.
func openGCS(ctx context.Context, loc Location, opts Options) (*Blob, error) {
	q := url.Values{}
	if opts.Anonymous {
		q.Set("anonymous", "true")
	}
	u := &url.URL{Scheme: gcsblob.Scheme, Host: loc.Bucket, RawQuery: q.Encode()}
	bucket, err := blob.DefaultURLMux().OpenBucketURL(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc.Root, err)
	}
	return NewBlob(bucket, loc.Root, opts)
}
