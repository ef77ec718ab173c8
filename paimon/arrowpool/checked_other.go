//go:build !linux

package arrowpool

// mapRegion allocates size bytes of Go memory: without mprotect a freed
// buffer can only be poisoned.
func mapRegion(size int) ([]byte, error) { return make([]byte, size), nil }

// protectRegion fills a freed region with Poison; Checked keeps it
// referenced while quarantined so the garbage collector cannot hand the
// memory to anyone else.
func protectRegion(mem []byte) error {
	for i := range mem {
		mem[i] = Poison
	}
	return nil
}

func unmapRegion([]byte) {}

// faults reports whether a use after Free faults (rather than reading
// Poison).
const faults = false
