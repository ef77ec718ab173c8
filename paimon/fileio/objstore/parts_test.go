package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/fileiotest"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// inflight counts the GETs in flight behind the fault handler and remembers
// the most seen at once, and the ranges asked for.
type inflight struct {
	next     http.Handler
	cur, max atomic.Int64
	gets     atomic.Int64
	delay    time.Duration
}

func (h *inflight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
		h.gets.Add(1)
		n := h.cur.Add(1)
		defer h.cur.Add(-1)
		for {
			m := h.max.Load()
			if n <= m || h.max.CompareAndSwap(m, n) {
				break
			}
		}
		// Hold the request a little so parallel parts overlap visibly.
		time.Sleep(h.delay)
	}
	h.next.ServeHTTP(w, r)
}

// partServer is gofakes3 behind an in-flight counter and a fault handler,
// holding one object of n seeded bytes at s3://warehouse/big.bin.
func partServer(t *testing.T, fc fileiotest.FaultConfig, n int) (*inflight, *fileiotest.FaultHandler, objstore.Options, []byte) {
	t.Helper()
	be := s3mem.New()
	if err := be.CreateBucket("warehouse"); err != nil {
		t.Fatal(err)
	}
	in := &inflight{next: gofakes3.New(be).Server(), delay: 20 * time.Millisecond}
	fh := fileiotest.NewFaultHandler(in, fc)
	srv := httptest.NewServer(fh)
	t.Cleanup(srv.Close)
	// The object is put through a second front without faults or counts.
	direct := httptest.NewServer(in.next)
	t.Cleanup(direct.Close)
	opts := objstore.Options{
		Endpoint: direct.URL, ForcePathStyle: true, Region: "us-east-1",
		AccessKeyID: "AKIATEST", SecretAccessKey: "secret",
		RetryBaseDelay: time.Millisecond, RetryMaxDelay: 10 * time.Millisecond,
		RequestTimeout: 2 * time.Second, MaxRetries: 8,
		ReadAhead: 1 << 10, TailCache: -1,
		ReadPartSize: 64 << 10, ReadParallelism: 3,
	}
	data := pseudoBytes(16, n)
	if err := openFIO(t, opts).WriteFileAtomic(context.Background(), "s3://warehouse/big.bin", data, true); err != nil {
		t.Fatal(err)
	}
	opts.Endpoint = srv.URL
	return in, fh, opts, data
}

func openFIO(t *testing.T, opts objstore.Options) fileio.FileIO {
	t.Helper()
	fio, err := objstore.Open(context.Background(), "s3://warehouse", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.(*objstore.Blob).Close() })
	return fio
}

func readRange(t *testing.T, fio fileio.FileIO, size int64, off, n int) ([]byte, error) {
	t.Helper()
	f, err := fio.(*objstore.Blob).OpenSize(context.Background(), "s3://warehouse/big.bin", size)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, n)
	got, err := f.ReadAt(p, int64(off))
	if err == nil && got != n {
		t.Fatalf("ReadAt returned %d bytes and no error, want %d", got, n)
	}
	return p, err
}

// TestParallelPartReads: a read of several parts is split into ranged GETs
// of ReadPartSize, at most ReadParallelism in flight, and returns exactly
// the object's bytes, at an unaligned offset and length too.
func TestParallelPartReads(t *testing.T) {
	const size = 640<<10 + 123
	in, _, opts, data := partServer(t, fileiotest.FaultConfig{}, size)
	fio := openFIO(t, opts)
	for _, c := range []struct{ off, n, parts int }{
		{0, size, 11},                  // 10 full parts + 123 bytes
		{777, 300 << 10, 5},            // unaligned: 4 full parts and a rest
		{100, 100 << 10, 1},            // under two parts: one GET
		{size - 200<<10, 200 << 10, 4}, // up to the end
	} {
		in.gets.Store(0)
		in.max.Store(0)
		got, err := readRange(t, fio, size, c.off, c.n)
		if err != nil {
			t.Fatalf("read [%d, +%d): %v", c.off, c.n, err)
		}
		if !bytes.Equal(got, data[c.off:c.off+c.n]) {
			t.Fatalf("read [%d, +%d): bytes differ from the object", c.off, c.n)
		}
		if g := in.gets.Load(); g != int64(c.parts) {
			t.Errorf("read [%d, +%d): %d GETs, want %d", c.off, c.n, g, c.parts)
		}
		if m := in.max.Load(); m > 3 || (c.parts >= 3 && m < 2) {
			t.Errorf("read [%d, +%d): %d GETs in flight at most, want 2..3 (ReadParallelism 3)", c.off, c.n, m)
		}
	}
	// Disabled: one GET whatever the size.
	opts.ReadPartSize = -1
	in.gets.Store(0)
	got, err := readRange(t, openFIO(t, opts), size, 0, size)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("unsplit read: %v", err)
	}
	if g := in.gets.Load(); g != 1 {
		t.Errorf("ReadPartSize -1: %d GETs, want 1", g)
	}
}

// TestParallelPartReadsUnderFaults: with a third of the GETs failing (5xx,
// throttling, resets, bodies cut with and without a consistent length),
// every part is retried by the Retrier and the read returns the object's
// exact bytes.
func TestParallelPartReadsUnderFaults(t *testing.T) {
	const size = 1<<20 + 4567
	fc := fileiotest.FaultConfig{Rate: 0.35, Seed: 3, Delay: 5 * time.Millisecond, Stall: 3 * time.Second,
		Kinds: []fileiotest.Fault{fileiotest.Fault500, fileiotest.Fault503SlowDown, fileiotest.FaultResetBefore,
			fileiotest.FaultTruncate, fileiotest.FaultShortBody}}
	_, fh, opts, data := partServer(t, fc, size)
	var attempts atomic.Int64
	opts.Metrics = func(op string, _ error, _ time.Duration) {
		if op == "get" {
			attempts.Add(1)
		}
	}
	fio := openFIO(t, opts)
	for i := 0; i < 4; i++ {
		got, err := readRange(t, fio, size, 0, size)
		if err != nil {
			t.Fatalf("read %d under faults: %v", i, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("read %d under faults: bytes differ from the object", i)
		}
	}
	_, _, faults := fh.Stats()
	t.Logf("get attempts %d, faults %v", attempts.Load(), faults)
	for _, k := range fc.Kinds {
		if faults[k] == 0 {
			t.Errorf("fault %v never injected; the test does not cover it", k)
		}
	}
}

// TestParallelPartReadShort: a part that stays short (every GET cut) fails
// the read once the retries run out, with an error naming the file and
// wrapping ErrShortRead; and an object shorter than the size the caller
// opened it with (a manifest's size) is a permanent error naming the file,
// not a short buffer.
func TestParallelPartReadShort(t *testing.T) {
	const size = 512 << 10
	fc := fileiotest.FaultConfig{Rate: 1, Seed: 1, Kinds: []fileiotest.Fault{fileiotest.FaultShortBody}}
	_, _, opts, _ := partServer(t, fc, size)
	opts.MaxRetries = 2
	_, err := readRange(t, openFIO(t, opts), size, 0, size)
	if err == nil || !errors.Is(err, objstore.ErrShortRead) || !strings.Contains(err.Error(), "s3://warehouse/big.bin") ||
		!strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Fatalf("read with every body cut = %v, want ErrShortRead naming the file after 3 attempts", err)
	}

	_, _, opts, _ = partServer(t, fileiotest.FaultConfig{}, size)
	var gets atomic.Int64
	opts.Metrics = func(op string, _ error, _ time.Duration) {
		if op == "get" {
			gets.Add(1)
		}
	}
	_, err = readRange(t, openFIO(t, opts), size+300<<10, 0, size+300<<10)
	if err == nil || !strings.Contains(err.Error(), "s3://warehouse/big.bin") {
		t.Fatalf("read of an object shorter than its recorded size = %v, want a size-mismatch error naming the file", err)
	}
	if objstore.IsTransient(err) {
		t.Errorf("size mismatch is transient: %v", err)
	}
	if g := gets.Load(); g > int64(opts.ReadParallelism) {
		t.Errorf("size mismatch: %d GETs, want at most the parts in flight (%d), no retries", g, opts.ReadParallelism)
	}
}

// pseudoBytes returns n deterministic pseudo-random bytes, so expected
// content is generated independently of the code under test.
func pseudoBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
