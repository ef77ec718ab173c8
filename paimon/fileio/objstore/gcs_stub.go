//go:build paimon_nogcs

package objstore

import (
	"context"
	"fmt"
)

func openGCS(_ context.Context, loc location, _ Options) (*Blob, error) {
	return nil, fmt.Errorf("open %s: GCS support was left out of this build (paimon_nogcs)", loc.Root)
}
