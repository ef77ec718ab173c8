package schema

import (
	"errors"
	"io"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// An empty or blank schema file is corrupt, and never io.EOF.
func TestEmptySchemaFile(t *testing.T) {
	for _, in := range []string{"", "\n"} {
		_, err := Parse([]byte(in))
		if !errors.Is(err, types.ErrCorrupt) || errors.Is(err, io.EOF) {
			t.Fatalf("Parse(%q) = %v, want ErrCorrupt and not io.EOF", in, err)
		}
	}
}
