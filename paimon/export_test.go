package paimon

import (
	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/internal/stream"
)

// ScratchStats exposes the counters of a table's scratch pool to the
// external tests.
func ScratchStats(t *Table) arrowpool.Stats { return t.scratch.Stats() }

// The errors behind a start past the latest snapshot (inside the
// StartSnapshot FieldError) and an end bound already passed (io.EOF with
// the reason), for the external tests to look into.
type (
	StartError = stream.StartError
	EndPassed  = stream.EndPassed
)
