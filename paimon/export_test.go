package paimon

import "github.com/connect-paimon/connect-paimon/paimon/arrowpool"

// ScratchStats exposes the counters of a table's scratch pool to the
// external tests.
func ScratchStats(t *Table) arrowpool.Stats { return t.scratch.Stats() }
