package manifest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// countingFS counts the metadata files read, optionally slowly, so that
// concurrent readers overlap.
type countingFS struct {
	fileio.FileIO
	reads atomic.Int64
	delay time.Duration
}

func (c *countingFS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.reads.Add(1)
	time.Sleep(c.delay)
	return c.FileIO.ReadFile(ctx, p)
}

type manifestRef struct {
	path string
	want Want
}

// fixtureManifests lists the real manifest lists of testdata and the
// manifests of theirs that the fixtures keep.
func fixtureManifests(t *testing.T) (lists []string, manifests []manifestRef) {
	t.Helper()
	lists, err := filepath.Glob(filepath.Join("testdata", "*", "*", "manifest-list-*"))
	if err != nil || len(lists) == 0 {
		t.Fatalf("no manifest lists under testdata: %v", err)
	}
	for _, l := range lists {
		metas, err := NewDecoder().ReadManifestList(context.Background(), fileio.NewLocal(), l, Want{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range metas {
			p := filepath.Join(filepath.Dir(l), metas[i].FileName)
			if _, err := os.Stat(p); err == nil {
				manifests = append(manifests, manifestRef{p, WantManifest(&metas[i])})
			}
		}
	}
	return lists, manifests
}

func readAll(t *testing.T, d *Decoder, fio fileio.FileIO, m manifestRef) []Entry {
	t.Helper()
	var out []Entry
	if err := d.ReadManifestFunc(context.Background(), fio, m.path, m.want, func(e *Entry) error {
		out = append(out, *e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A caching decoder returns what an uncached one decodes, reads each file
// once, still checks every read against what its parent records, and hands
// each caller entries it may change without changing the cache's.
func TestCacheReadsEachFileOnceAndStillChecks(t *testing.T) {
	ctx := context.Background()
	lists, manifests := fixtureManifests(t)
	if len(manifests) < 10 {
		t.Fatalf("only %d manifests in testdata", len(manifests))
	}
	fio := &countingFS{FileIO: fileio.NewLocal()}
	cache := NewCache(64 << 20)
	a, b := NewCachingDecoder(cache), NewCachingDecoder(cache) // two readers sharing it
	for _, l := range lists {
		want, err := NewDecoder().ReadManifestList(ctx, fileio.NewLocal(), l, Want{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []*Decoder{a, b} {
			got, err := d.ReadManifestList(ctx, fio, l, Want{})
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("manifest list %s through the cache: %v\n%+v\nwant %+v", l, err, got, want)
			}
			if len(got) > 0 {
				got[0].FileName = "changed by the caller"
			}
		}
	}
	for _, m := range manifests {
		want := readAll(t, NewDecoder(), fileio.NewLocal(), m)
		for _, d := range []*Decoder{a, b, a} {
			if got := readAll(t, d, fio, m); !reflect.DeepEqual(got, want) {
				t.Fatalf("manifest %s through the cache differs", m.path)
			}
		}
		// A caller changing its entry changes nobody else's.
		if err := a.ReadManifestFunc(ctx, fio, m.path, m.want, func(e *Entry) error {
			e.Kind, e.Bucket, e.File.Level, e.File.FileName = Delete, 99, 99, "x"
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, b, fio, m); !reflect.DeepEqual(got, want) {
			t.Fatalf("manifest %s: a caller's change reached the cache", m.path)
		}
		// Counts another list records are checked on cached reads too.
		bad := m.want
		bad.Added++
		if err := b.ReadManifestFunc(ctx, fio, m.path, bad, func(*Entry) error { return nil }); !errors.Is(err, types.ErrCorrupt) {
			t.Fatalf("manifest %s read from the cache with wrong counts: want ErrCorrupt, got %v", m.path, err)
		}
		// Another recorded size is another key: read and refused.
		bad = m.want
		bad.Size++
		if err := b.ReadManifestFunc(ctx, fio, m.path, bad, func(*Entry) error { return nil }); !errors.Is(err, types.ErrCorrupt) {
			t.Fatalf("manifest %s with another recorded size: want ErrCorrupt, got %v", m.path, err)
		}
	}
	// Each list and manifest once, plus one refused read per manifest for
	// the wrong size.
	distinct := map[manifestRef]bool{}
	for _, m := range manifests {
		distinct[m] = true // a base list repeats its predecessors' manifests
	}
	if got, want := fio.reads.Load(), int64(len(lists)+len(distinct)+len(manifests)); got != want {
		t.Fatalf("%d files read, want %d", got, want)
	}
	if hits, _ := cache.Stats(); hits == 0 {
		t.Fatal("no read was answered by the cache")
	}
}

// Readers wanting the same manifest at once decode it once between them.
func TestCacheConcurrentReadersDecodeOnce(t *testing.T) {
	_, manifests := fixtureManifests(t)
	m := manifests[0]
	want := readAll(t, NewDecoder(), fileio.NewLocal(), m)
	fio := &countingFS{FileIO: fileio.NewLocal(), delay: 50 * time.Millisecond}
	cache := NewCache(64 << 20)
	var wg sync.WaitGroup
	got := make([][]Entry, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = readAll(t, NewCachingDecoder(cache), fio, m)
		}()
	}
	wg.Wait()
	for i := range got {
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("reader %d got other entries", i)
		}
	}
	if n := fio.reads.Load(); n != 1 {
		t.Fatalf("%d reads of one manifest by 8 concurrent readers, want 1", n)
	}
}

// The budget holds: what does not fit is decoded again, a zero budget
// caches nothing, and a failed read is retried by the next reader.
func TestCacheBudgetAndFailures(t *testing.T) {
	ctx := context.Background()
	_, manifests := fixtureManifests(t)
	m1, m2 := manifests[0], manifests[0]
	for _, m := range manifests {
		if m.path != m1.path {
			m2 = m
			break
		}
	}

	fio := &countingFS{FileIO: fileio.NewLocal()}
	one := NewCachingDecoder(NewCache(1)) // nothing fits
	for range 3 {
		readAll(t, one, fio, m1)
	}
	if n := fio.reads.Load(); n != 3 {
		t.Fatalf("budget 1 byte: %d reads of 3, want 3", n)
	}

	// Room for one of the two: reading them in turns evicts.
	weight := func(m manifestRef) int64 {
		return itemWeight(&cacheItem{key: cacheKey{m.path, m.want.Size}, entries: readAll(t, NewDecoder(), fileio.NewLocal(), m)})
	}
	c := NewCache(max(weight(m1), weight(m2)) + 1)
	fio = &countingFS{FileIO: fileio.NewLocal()}
	d := NewCachingDecoder(c)
	for _, m := range []manifestRef{m1, m1, m2, m1} {
		readAll(t, d, fio, m)
	}
	if n := fio.reads.Load(); n != 3 {
		t.Fatalf("m1, m1, m2, m1 with room for one of them: %d reads, want 3", n)
	}
	if c.used > c.max {
		t.Fatalf("cache holds %d bytes over its budget of %d", c.used, c.max)
	}

	// A manifest that is missing fails and is not remembered as missing.
	dir := t.TempDir()
	p := filepath.Join(dir, "manifest-x")
	d = NewCachingDecoder(NewCache(64 << 20))
	err := d.ReadManifestFunc(ctx, fileio.NewLocal(), p, Want{}, func(*Entry) error { return nil })
	if !fileio.IsNotExist(err) {
		t.Fatalf("missing manifest: %v", err)
	}
	b, err := os.ReadFile(m1.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, d, fileio.NewLocal(), manifestRef{p, m1.want}); len(got) == 0 {
		t.Fatal("manifest written after a failed read: no entries")
	}

	// A cancelled reader does not fail another reader waiting for it.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	d = NewCachingDecoder(NewCache(64 << 20))
	if err := d.ReadManifestFunc(cctx, fileio.NewLocal(), m2.path, m2.want, func(*Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read: %v", err)
	}
	readAll(t, d, fileio.NewLocal(), m2)
}
