package testenv

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Binary builds cmd/connect-paimon into the test's temporary directory and
// returns its path, for tests about what a user of the binary sees (exit
// codes, messages). Call it once per test and share the path with subtests.
func Binary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "connect-paimon")
	build := exec.Command("go", "build", "-o", bin, "./cmd/connect-paimon")
	build.Dir = RepoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/connect-paimon: %v\n%s", err, out)
	}
	return bin
}
