// Package arrowpool is a pooled Arrow allocator (memory.Allocator of
// arrow-go v18) and its checking mode, which proves the pooling safe.
//
// Reading a table allocates the same few buffer sizes batch after batch:
// column buffers, builder growth, decompressed pages. With arrow-go's Go
// allocator each is a fresh Go allocation the garbage collector must later
// find and free; a Pool hands buffers released by Arrow (Release of the last
// reference calls Free) back to the next Allocate of the same size class.
//
// Pooling turns a use after Release into reading another batch's bytes: a
// wrong row without an error. NewChecked is the same allocator that never
// reuses memory and makes freed buffers inaccessible, so that any such use
// faults (and double or foreign Frees panic); the library's and the input's
// tests read every fixture through it.
//
// A Pool is a value, not a package default: each reader or input creates
// its own with New and passes it to paimon's WithAllocator (the input does
// so by default).
package arrowpool

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// defaultMaxRetained is how many bytes of freed buffers a Pool keeps for
// reuse when Options.MaxRetained is 0: a few record batches of a wide table
// (bench.wide's 10 columns × 4096 rows are about 1 MiB a batch, its pages
// a few MiB), small next to the input's memory budget. Buffers freed beyond
// it go to the garbage collector as with the Go allocator.
const defaultMaxRetained = 64 << 20

// maxPooledSize is the largest buffer a Pool reuses; larger ones are plain
// Go allocations, rare enough that pooling them would only pin memory.
const maxPooledSize = 64 << 20

// alignment is arrow-go's: its allocators return 64-byte aligned buffers.
const alignment = 64

// Options configure New.
type Options struct {
	// MaxRetained bounds the bytes of freed buffers kept for reuse
	// (0: DefaultMaxRetained, negative: keep none).
	MaxRetained int64
}

// Pool is a memory.Allocator that reuses freed buffers by size class. It is
// safe for concurrent use (pqarrow decodes columns in parallel).
//
// Allocate returns zeroed memory, as arrow-go's Go allocator and mallocator
// do: arrow-go's builders and decoders rely on it in places (a null bit is
// an unset bit of a fresh bitmap), so a reused buffer is cleared before it
// is handed out. Reallocate keeps the first min(len, size) bytes and zeroes
// the rest; growing beyond the capacity moves the contents to a new buffer
// and frees the old one, as mallocator does.
//
// Free must only be given buffers of this pool (or none the pool could
// have sized: larger than MaxPooledSize), which is arrow-go's contract for
// every allocator; Checked, the checking mode, panics on any other.
type Pool struct {
	maxRetained int64
	retained    atomic.Int64
	classes     [numClasses]class

	allocs, reused atomic.Int64
}

type class struct {
	mu   sync.Mutex
	free [][]byte
}

// Stats are a Pool's counters.
type Stats struct {
	// Allocations counts Allocate calls and Reallocate calls that needed a
	// new buffer; Reused those served from a freed buffer.
	Allocations, Reused int64
	// Retained is the bytes of freed buffers held for reuse now.
	Retained int64
}

// New returns an empty Pool.
func New(o Options) *Pool {
	p := &Pool{maxRetained: o.MaxRetained}
	if p.maxRetained == 0 {
		p.maxRetained = defaultMaxRetained
	}
	return p
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	return Stats{Allocations: p.allocs.Load(), Reused: p.reused.Load(), Retained: p.retained.Load()}
}

// Size classes: 64 bytes, then four per power of two (2^k·{1.25, 1.5, 1.75,
// 2}), so a buffer wastes at most a fifth of its size. Every buffer is
// allocated with its class size; the slice handed out is as long as asked
// for, and its capacity (Reallocate keeps it, or grows it within the class)
// tells Free the class.
const (
	minClassShift = 6 // 64 bytes
	maxClassShift = 26
	numClasses    = 1 + (maxClassShift-minClassShift)*4
)

// classOf returns the class index and size of a request of size bytes, or
// -1 when it is not pooled.
func classOf(size int) (int, int) {
	if size <= 1<<minClassShift {
		return 0, 1 << minClassShift
	}
	if size > maxPooledSize {
		return -1, 0
	}
	p := bits.Len(uint(size-1)) - 1 // 2^p < size <= 2^(p+1)
	step := 1 << (p - 2)
	n := (size - 1 - 1<<p) / step // 0..3
	return 1 + (p-minClassShift)*4 + n, 1<<p + (n+1)*step
}

// Allocate returns a zeroed, 64-byte aligned buffer of size bytes. Its
// capacity is its length, as with arrow-go's Go allocator: arrow-go's
// compute kernels take cap(buf) for the usable length of a buffer.
func (p *Pool) Allocate(size int) []byte {
	p.allocs.Add(1)
	if size < 0 {
		panic("arrowpool: negative size")
	}
	if size == 0 {
		return []byte{}
	}
	idx, csize := classOf(size)
	if idx < 0 {
		return goAlloc(size, size)[:size:size]
	}
	c := &p.classes[idx]
	c.mu.Lock()
	if n := len(c.free); n > 0 {
		b := c.free[n-1]
		c.free[n-1] = nil
		c.free = c.free[:n-1]
		c.mu.Unlock()
		p.retained.Add(-int64(csize))
		p.reused.Add(1)
		b = b[:size:size]
		clear(b)
		return b
	}
	c.mu.Unlock()
	return goAlloc(size, csize)[:size:size]
}

// goAlloc returns a zeroed Go buffer of length size and capacity cp, aligned
// like arrow-go's Go allocator.
func goAlloc(size, cp int) []byte {
	buf := make([]byte, cp+alignment)
	shift := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (alignment - 1))
	return buf[shift : shift+size : shift+cp]
}

// whole returns the full class-size buffer b is the start of, and its
// class, or -1 when b's capacity is not one the pool hands out. Buffers
// reach Free and Reallocate only from their allocator (arrow-go's contract,
// which Checked verifies in tests), so b's class is the class of its
// capacity, and the memory up to the class size is b's own.
func whole(b []byte) ([]byte, int) {
	idx, csize := classOf(cap(b))
	if idx < 0 || cap(b) == 0 {
		return nil, -1
	}
	return unsafe.Slice(unsafe.SliceData(b), csize), idx
}

// Reallocate resizes b to size bytes, keeping its contents up to the
// smaller of the two lengths; bytes beyond b's length are zero. Within its
// size class a buffer grows in place.
func (p *Pool) Reallocate(size int, b []byte) []byte {
	if size < 0 {
		panic("arrowpool: negative size")
	}
	if cap(b) == 0 {
		return p.Allocate(size)
	}
	if size <= cap(b) {
		return p.resize(b, size)
	}
	if w, idx := whole(b); idx >= 0 && size <= len(w) {
		return p.resize(w[:len(b):size], size)
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// resize returns b with length size <= cap(b), the bytes beyond its old
// length zeroed.
func (p *Pool) resize(b []byte, size int) []byte {
	old := len(b)
	b = b[:size]
	if size > old {
		clear(b[old:])
	}
	return b
}

// Free returns b to its class for reuse; buffers beyond MaxRetained or
// MaxPooledSize are left to the garbage collector.
func (p *Pool) Free(b []byte) {
	w, idx := whole(b)
	if idx < 0 {
		return
	}
	if p.retained.Add(int64(len(w))) > p.maxRetained {
		p.retained.Add(-int64(len(w)))
		return
	}
	c := &p.classes[idx]
	c.mu.Lock()
	c.free = append(c.free, w)
	c.mu.Unlock()
}

var _ memory.Allocator = (*Pool)(nil)
