package schema

import (
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// TestMain lists, after the run, the tests skipped for want of pypaimon,
// Java, an emulator or an opt-in, and the command that runs them.
func TestMain(m *testing.M) { testenv.Main(m) }
