//go:build paimon_noazure

package objstore

import (
	"context"
	"fmt"
)

func openAzure(_ context.Context, loc location, _ Options) (*Blob, error) {
	return nil, fmt.Errorf("open %s: Azure support was left out of this build (paimon_noazure)", loc.Root)
}
