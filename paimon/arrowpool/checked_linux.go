//go:build linux

package arrowpool

import (
	"os"
	"syscall"
)

// mapRegion maps size bytes (rounded up to pages) of fresh, zeroed memory
// outside the Go heap.
func mapRegion(size int) ([]byte, error) {
	ps := os.Getpagesize()
	n := (size + ps - 1) / ps * ps
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

// protectRegion drops a freed region's pages and makes any access to it
// fault; the mapping stays reserved, so the addresses are not handed out
// again while quarantined.
func protectRegion(mem []byte) error {
	if err := syscall.Madvise(mem, syscall.MADV_DONTNEED); err != nil {
		return err
	}
	return syscall.Mprotect(mem, syscall.PROT_NONE)
}

func unmapRegion(mem []byte) { _ = syscall.Munmap(mem) }

// faults reports whether a use after Free faults (rather than reading
// Poison).
const faults = true
