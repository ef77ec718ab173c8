package arrowpool

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Checked is the checking mode of the allocator: it never reuses memory,
// and makes every freed buffer inaccessible, so that reading or writing
// Arrow memory after its last Release faults at the faulty access instead
// of yielding another batch's bytes. On Linux each buffer is its own
// anonymous mapping, made PROT_NONE (and its pages dropped) on Free; where
// that is not available freed buffers are filled with Poison and kept, so a
// later read yields garbage the fixture comparisons catch.
//
// A Free of a buffer already freed, or of one Checked did not allocate,
// panics naming the buffer, and is kept for Err: such a Free means some
// code would hand the same memory out twice.
//
// Checked costs a few system calls and at least a page per buffer: it is
// for tests, not production.
type Checked struct {
	mu   sync.Mutex
	live map[uintptr]region
	// freed are inaccessible regions by address, and quarantine their
	// order: beyond the quarantine bounds the oldest are unmapped (their
	// addresses may then be mapped again), which keeps a long test within
	// the kernel's mapping limits.
	freed      map[uintptr]region
	quarantine []uintptr
	qbytes     int64
	err        error
	allocs     int64
	liveBytes  int64
}

// region is one allocation: its whole mapping (or Go buffer) and the
// length handed out.
type region struct {
	mem  []byte
	size int
}

// Quarantine bounds of Checked: freed regions kept inaccessible before the
// oldest is unmapped. Linux allows 65530 mappings per process by default;
// a split mapping costs up to two.
const (
	quarantineRegions = 16384
	quarantineBytes   = 4 << 30
)

// poisonByte is the byte freed buffers are filled with where they cannot be
// made inaccessible.
const poisonByte = 0xDB

// NewChecked returns an empty checking allocator.
func NewChecked() *Checked {
	return &Checked{live: map[uintptr]region{}, freed: map[uintptr]region{}}
}

// Allocate returns a zeroed buffer of its own mapping, 64-byte aligned.
func (c *Checked) Allocate(size int) []byte {
	if size < 0 {
		panic("arrowpool: negative size")
	}
	if size == 0 {
		// Nothing to guard; a zero-capacity buffer is never recorded and
		// its Free is a no-op, as in Pool.
		return []byte{}
	}
	mem, err := mapRegion(size)
	if err != nil {
		panic(fmt.Sprintf("arrowpool: checked allocation of %d bytes: %v", size, err))
	}
	b := mem[:size:size]
	c.mu.Lock()
	c.live[addr(b)] = region{mem: mem, size: size}
	c.allocs++
	c.liveBytes += int64(size)
	c.mu.Unlock()
	return b
}

// Reallocate always moves the contents to a new buffer and frees b, so that
// a reference kept across a buffer's growth faults too.
func (c *Checked) Reallocate(size int, b []byte) []byte {
	nb := c.Allocate(size)
	if cap(b) > 0 {
		copy(nb, b[:min(len(b), size)])
		c.Free(b)
	}
	return nb
}

// Free makes b inaccessible; it panics if b was already freed or is not a
// buffer of c.
func (c *Checked) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	a := addr(b)
	c.mu.Lock()
	r, ok := c.live[a]
	if !ok {
		_, twice := c.freed[a]
		what := "a buffer this allocator did not allocate"
		if twice {
			what = "a buffer already freed (double Free)"
		}
		err := fmt.Errorf("arrowpool: Free of %s: %#x, %d bytes", what, a, cap(b))
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
		panic(err.Error())
	}
	delete(c.live, a)
	c.liveBytes -= int64(r.size)
	if err := protectRegion(r.mem); err != nil {
		c.mu.Unlock()
		panic(fmt.Sprintf("arrowpool: protect freed buffer %#x: %v", a, err))
	}
	c.freed[a] = r
	c.quarantine = append(c.quarantine, a)
	c.qbytes += int64(len(r.mem))
	for len(c.quarantine) > quarantineRegions || c.qbytes > quarantineBytes {
		old := c.quarantine[0]
		c.quarantine = c.quarantine[1:]
		or := c.freed[old]
		delete(c.freed, old)
		c.qbytes -= int64(len(or.mem))
		unmapRegion(or.mem)
	}
	c.mu.Unlock()
}

// Err returns the first double or foreign Free, nil if there was none.
func (c *Checked) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// LiveBytes returns the bytes allocated and not yet freed: a buffer whose
// record was never released (memory the Go allocator would merely leave to
// the collector).
func (c *Checked) LiveBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.liveBytes
}

// Allocations counts the buffers allocated so far.
func (c *Checked) Allocations() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.allocs
}

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

var _ memory.Allocator = (*Checked)(nil)
