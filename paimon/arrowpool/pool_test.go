package arrowpool

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestClassOf(t *testing.T) {
	prev := 0
	for size := 0; size <= 1<<20; size += 1 + size/97 {
		idx, cs := classOf(size)
		if idx < 0 || idx >= numClasses {
			t.Fatalf("size %d: class %d out of range", size, idx)
		}
		if cs < size {
			t.Fatalf("size %d: class size %d", size, cs)
		}
		if size > 64 && cs > size+size/4+alignment {
			t.Fatalf("size %d: class size %d wastes more than a quarter", size, cs)
		}
		if cs < prev {
			t.Fatalf("size %d: class size %d below the previous %d", size, cs, prev)
		}
		prev = cs
		if i2, c2 := classOf(cs); i2 != idx || c2 != cs {
			t.Fatalf("class size %d maps to class %d (%d), want %d", cs, i2, c2, idx)
		}
	}
	if idx, _ := classOf(maxPooledSize); idx != numClasses-1 {
		t.Fatalf("MaxPooledSize in class %d, want the last %d", idx, numClasses-1)
	}
	if idx, _ := classOf(maxPooledSize + 1); idx != -1 {
		t.Fatalf("MaxPooledSize+1 pooled in class %d", idx)
	}
}

func TestPoolReusesZeroedAligned(t *testing.T) {
	p := New(Options{})
	b := p.Allocate(1000)
	// arrow-go's compute kernels take a buffer's capacity for its length.
	if len(b) != 1000 || cap(b) != 1000 || addr(b)%alignment != 0 {
		t.Fatalf("len %d, cap %d, address %#x", len(b), cap(b), addr(b))
	}
	for i := range b {
		b[i] = 0xFF
	}
	p.Free(b)
	c := p.Allocate(990)
	if addr(c) != addr(b) {
		t.Fatalf("buffer of the same class not reused")
	}
	if !bytes.Equal(c, make([]byte, 990)) {
		t.Fatal("reused buffer not zeroed")
	}
	// Growing within the capacity exposes bytes written before the Free:
	// they must read as zero too.
	// Growing within the class keeps the buffer in place.
	c = p.Reallocate(1024, c)
	if !bytes.Equal(c, make([]byte, 1024)) || addr(c) != addr(b) || cap(c) != 1024 {
		t.Fatal("bytes beyond the length not zeroed on Reallocate, or moved within its class")
	}
	if st := p.Stats(); st.Reused != 1 || st.Allocations != 2 || st.Retained != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestPoolReallocateKeepsContents(t *testing.T) {
	for _, alloc := range []memory.Allocator{New(Options{}), NewChecked()} {
		b := alloc.Allocate(100)
		for i := range b {
			b[i] = byte(i)
		}
		b = alloc.Reallocate(50, b) // shrink
		b = alloc.Reallocate(5000, b)
		if len(b) != 5000 {
			t.Fatalf("%T: len %d", alloc, len(b))
		}
		for i := 0; i < 50; i++ {
			if b[i] != byte(i) {
				t.Fatalf("%T: byte %d = %d after growth", alloc, i, b[i])
			}
		}
		if !bytes.Equal(b[50:], make([]byte, 4950)) {
			t.Fatalf("%T: grown bytes not zero", alloc)
		}
		alloc.Free(b)
	}
}

func TestPoolMaxRetained(t *testing.T) {
	p := New(Options{MaxRetained: 4096})
	a, b := p.Allocate(4096), p.Allocate(4096)
	p.Free(a)
	p.Free(b) // beyond the bound: left to the collector
	if st := p.Stats(); st.Retained != 4096 {
		t.Fatalf("retained %d, want 4096", st.Retained)
	}
	none := New(Options{MaxRetained: -1})
	none.Free(none.Allocate(100))
	if st := none.Stats(); st.Retained != 0 {
		t.Fatalf("MaxRetained -1 retained %d", st.Retained)
	}
	// Buffers beyond the largest class are never kept.
	p2 := New(Options{})
	p2.Free(p2.Allocate(maxPooledSize + 1))
	if st := p2.Stats(); st.Retained != 0 {
		t.Fatalf("buffer beyond MaxPooledSize retained: %d", st.Retained)
	}
}

// TestPoolConcurrent has goroutines write their own pattern into buffers of
// shared classes and check it before freeing: a buffer handed out twice
// shows up as another goroutine's pattern (and as a race under -race).
func TestPoolConcurrent(t *testing.T) {
	p := New(Options{MaxRetained: 1 << 20})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			var held [][]byte
			for i := 0; i < 2000; i++ {
				b := p.Allocate(1 + r.IntN(20000))
				for j := range b {
					if b[j] != 0 {
						errs <- fmt.Errorf("goroutine %d: allocation not zero", g)
						return
					}
					b[j] = byte(g + 1)
				}
				held = append(held, b)
				if len(held) > 4 || r.IntN(2) == 0 {
					k := r.IntN(len(held))
					if bytes.Count(held[k], []byte{byte(g + 1)}) != len(held[k]) {
						errs <- fmt.Errorf("goroutine %d: buffer overwritten while held", g)
						return
					}
					p.Free(held[k])
					held = append(held[:k], held[k+1:]...)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// buildBatch builds arrays of the kinds a read produces (nulls, strings,
// booleans, lists) with mem, so that arrow-go's builders run on the
// allocator's buffers; it returns their canonical string.
func buildBatch(mem memory.Allocator, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 7))
	n := 3000 + r.IntN(3000)
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	bb := array.NewBooleanBuilder(mem)
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	vb := lb.ValueBuilder().(*array.Int32Builder)
	for i := 0; i < n; i++ {
		if r.IntN(5) == 0 {
			ib.AppendNull()
			sb.AppendNull()
			bb.AppendNull()
			lb.AppendNull()
			continue
		}
		ib.Append(r.Int64())
		sb.Append(strings.Repeat("x", r.IntN(40)))
		bb.Append(r.IntN(2) == 0)
		lb.Append(true)
		for k := r.IntN(4); k > 0; k-- {
			vb.Append(r.Int32())
		}
	}
	var out strings.Builder
	for _, b := range []array.Builder{ib, sb, bb, lb} {
		arr := b.NewArray()
		fmt.Fprintln(&out, arr)
		arr.Release()
		b.Release()
	}
	return out.String()
}

// TestPoolArrowBuildersMatchGoAllocator builds the same arrays with the Go
// allocator and, repeatedly, with a pool whose buffers are reused (and
// dirty): the results must be identical, which they are only if the pool
// hands out memory the builders may assume zeroed.
func TestPoolArrowBuildersMatchGoAllocator(t *testing.T) {
	p := New(Options{})
	for seed := uint64(0); seed < 20; seed++ {
		want := buildBatch(memory.NewGoAllocator(), seed)
		if got := buildBatch(p, seed); got != want {
			t.Fatalf("seed %d: pooled build differs from the Go allocator's", seed)
		}
	}
	if p.Stats().Reused == 0 {
		t.Fatal("the pool reused no buffer: the test proves nothing")
	}
}

var sink byte

// readAfterFree reads b[0] and reports whether the read faulted.
func readAfterFree(p unsafe.Pointer) (faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			faulted = true
		}
	}()
	sink = *(*byte)(p)
	return false
}

// TestCheckedUseAfterReleaseFaults is the checker's own proof: a string
// taken from an Arrow array (it aliases the array's buffer) and read after
// the array's last Release must fault, or read poison where faulting is not
// available.
func TestCheckedUseAfterReleaseFaults(t *testing.T) {
	c := NewChecked()
	sb := array.NewStringBuilder(c)
	sb.Append("kept-after-release")
	arr := sb.NewStringArray()
	sb.Release()
	s := arr.Value(0)
	if s != "kept-after-release" {
		t.Fatalf("value %q", s)
	}
	p := unsafe.Pointer(unsafe.StringData(s))
	if readAfterFree(p) {
		t.Fatal("read of a live buffer faulted")
	}
	arr.Release()
	if faults {
		if !readAfterFree(p) {
			t.Fatal("read of a released Arrow buffer did not fault in checking mode")
		}
	} else if *(*byte)(p) != poisonByte {
		t.Fatal("released Arrow buffer not poisoned in checking mode")
	}
	if c.LiveBytes() != 0 {
		t.Fatalf("%d bytes live after every release", c.LiveBytes())
	}
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}

// TestCheckedReallocateMoves: a reference kept across a buffer's growth is
// a use after free too.
func TestCheckedReallocateMoves(t *testing.T) {
	c := NewChecked()
	b := c.Allocate(10)
	nb := c.Reallocate(20, b)
	if addr(nb) == addr(b) {
		t.Fatal("checked Reallocate kept the buffer in place")
	}
	if faults && !readAfterFree(unsafe.Pointer(unsafe.SliceData(b))) {
		t.Fatal("old buffer readable after Reallocate")
	}
	c.Free(nb)
}

func TestCheckedDetectsBadFrees(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(fmt.Sprint(r), what) {
				t.Fatalf("panic %v, want one naming %q", r, what)
			}
		}()
		f()
	}
	c := NewChecked()
	b := c.Allocate(64)
	c.Free(b)
	mustPanic("double Free", func() { c.Free(b) })
	if c.Err() == nil || !strings.Contains(c.Err().Error(), "double Free") {
		t.Fatalf("Err %v", c.Err())
	}
	c2 := NewChecked()
	mustPanic("did not allocate", func() { c2.Free(make([]byte, 64)) })
	inner := c2.Allocate(128)
	mustPanic("did not allocate", func() { c2.Free(inner[64:]) })
	c2.Free(inner)
	if c2.Err() == nil {
		t.Fatal("foreign Free not kept for Err")
	}
	// Zero-length buffers are not memory: Allocate(0) and its Free are fine.
	c3 := NewChecked()
	c3.Free(c3.Allocate(0))
	if c3.Err() != nil {
		t.Fatal(c3.Err())
	}
}

// TestCheckedQuarantineBounded frees more regions than the quarantine holds:
// the oldest are unmapped instead of exhausting the process's mappings.
func TestCheckedQuarantineBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("maps 20000 regions")
	}
	c := NewChecked()
	for i := 0; i < quarantineRegions+4000; i++ {
		c.Free(c.Allocate(100))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.quarantine) != quarantineRegions || len(c.freed) != quarantineRegions {
		t.Fatalf("quarantine %d, freed %d, want %d", len(c.quarantine), len(c.freed), quarantineRegions)
	}
}

// TestPoolEmptyBuffers: arrow-go frees and grows nil and empty buffers.
func TestPoolEmptyBuffers(t *testing.T) {
	p := New(Options{})
	p.Free(nil)
	p.Free([]byte{})
	p.Free(p.Allocate(0))
	if b := p.Reallocate(10, nil); len(b) != 10 {
		t.Fatalf("Reallocate of nil: len %d", len(b))
	}
	if st := p.Stats(); st.Retained != 0 {
		t.Fatalf("retained %d of empty buffers", st.Retained)
	}
}
