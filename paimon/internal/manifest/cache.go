package manifest

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
)

// Cache keeps decoded manifests and manifest lists for the readers that
// share it. Paimon never rewrites one of these files under its name (each
// carries a fresh UUID), so what was decoded and checked once stays true;
// readers that plan the same snapshots (the slots of one consumer-group
// replica, each planning every snapshot for its own share of the files)
// then decode each file once instead of once per reader. Entries are kept
// least-recently-used within a byte budget estimated from their contents.
// Safe for concurrent use; a file that several readers want at once is
// decoded by one of them while the others wait.
type Cache struct {
	mu     sync.Mutex
	max    int64
	used   int64
	items  map[cacheKey]*cacheItem
	lru    list.List // of *cacheItem, most recent first; only completed items
	hits   atomic.Int64
	misses atomic.Int64
}

// NewCache returns a cache that holds at most maxBytes (estimated) of
// decoded metadata; maxBytes <= 0 caches nothing.
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, items: map[cacheKey]*cacheItem{}}
}

// Stats returns how many reads were answered from the cache and how many
// decoded their file.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// cacheKey is the file and the size its parent records (0 when none
// does), so a parent that records another size still reaches the file
// and its check.
type cacheKey struct {
	path string
	size int64
}

type cacheItem struct {
	key     cacheKey
	ready   chan struct{} // closed once entries/metas/err are set
	entries []Entry
	metas   []FileMeta
	err     error
	weight  int64
	elem    *list.Element
}

// get returns the cached decode of key, or decodes it with load (once for
// all concurrent callers). A failed decode is not kept: the next reader
// tries again.
func (c *Cache) get(ctx context.Context, key cacheKey, load func(*cacheItem) error) (*cacheItem, error) {
	if c.max <= 0 {
		it := &cacheItem{key: key}
		return it, load(it)
	}
	for {
		c.mu.Lock()
		it, ok := c.items[key]
		if !ok {
			it = &cacheItem{key: key, ready: make(chan struct{})}
			c.items[key] = it
			c.mu.Unlock()
			c.misses.Add(1)
			c.finish(it, load(it))
			return it, it.err
		}
		if it.elem != nil {
			c.lru.MoveToFront(it.elem)
		}
		c.mu.Unlock()
		select {
		case <-it.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if it.err == nil {
			c.hits.Add(1)
			return it, nil
		}
		// The loader failed (and removed the item): decode it ourselves,
		// so one reader's cancelled context never fails another's read.
	}
}

func (c *Cache) finish(it *cacheItem, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it.err = err
	close(it.ready)
	if err != nil {
		delete(c.items, it.key)
		return
	}
	it.weight = itemWeight(it)
	if it.weight > c.max {
		delete(c.items, it.key)
		return
	}
	it.elem = c.lru.PushFront(it)
	c.used += it.weight
	for c.used > c.max {
		old := c.lru.Back().Value.(*cacheItem)
		c.lru.Remove(old.elem)
		delete(c.items, old.key)
		c.used -= old.weight
	}
}

// itemWeight estimates the memory an item holds: the byte slices it
// references plus a fixed cost per record for its fields and headers.
func itemWeight(it *cacheItem) int64 {
	const perRecord = 256
	w := int64(len(it.key.path)) + 64
	for i := range it.entries {
		e := &it.entries[i]
		f := &e.File
		w += perRecord + int64(len(e.Partition)+len(f.FileName)+len(f.MinKey)+len(f.MaxKey)+len(f.EmbeddedIndex)) +
			statsWeight(&f.KeyStats) + statsWeight(&f.ValueStats)
		for _, s := range f.ExtraFiles {
			w += int64(len(s)) + 16
		}
		for _, s := range f.ValueStatsCols {
			w += int64(len(s)) + 16
		}
		if f.ExternalPath != nil {
			w += int64(len(*f.ExternalPath))
		}
	}
	for i := range it.metas {
		m := &it.metas[i]
		w += perRecord + int64(len(m.FileName)) + statsWeight(&m.PartitionStats)
	}
	return w
}

func statsWeight(s *SimpleStats) int64 {
	return int64(len(s.MinValues)+len(s.MaxValues)) + 16*int64(len(s.NullCounts))
}
