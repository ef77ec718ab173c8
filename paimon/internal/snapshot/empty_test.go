package snapshot

import (
	"errors"
	"io"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// An empty or blank snapshot or tag file is corrupt, and never io.EOF
// (which callers read as a clean end of stream).
func TestEmptySnapshotFile(t *testing.T) {
	for _, in := range []string{"", " \n\t"} {
		_, err := Parse([]byte(in))
		if !errors.Is(err, types.ErrCorrupt) || errors.Is(err, io.EOF) {
			t.Fatalf("Parse(%q) = %v, want ErrCorrupt and not io.EOF", in, err)
		}
	}
}
