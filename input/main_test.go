package input

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
)

// TestMain lists, after the run, the tests skipped for want of pypaimon,
// Java, an emulator or an opt-in, and the command that runs them. Every
// input of the tests reads through arrowpool's checking mode instead of its
// pool: a use of Arrow memory after its Release (wrong rows with the pool)
// faults, and a double or foreign Free panics.
func TestMain(m *testing.M) {
	newAllocator = func() memory.Allocator { return arrowpool.NewChecked() }
	testenv.Main(m)
}
