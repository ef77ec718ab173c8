// Package skipper is a test package for internal/testenv's skip report:
// report_test.go runs `go test` on it and reads what the terminal shows.
package skipper

import (
	"testing"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestNeedsTool(t *testing.T) { testenv.Unavailable(t, "frobnicator not found") }

func TestAlsoNeedsTool(t *testing.T) { testenv.Unavailable(t, "frobnicator not found") }

func TestOptIn(t *testing.T) { testenv.OptIn(t, "SKIPPER_SUITE", "slow skipper suite") }

func TestRuns(t *testing.T) {}
