package format

import (
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// chunkPrefetch fetches a row group's column chunks concurrently, one read
// each, before arrow-go reads them one after another: columns are decoded
// in the reading goroutine (see parquetReader.open), and on an object
// store each chunk is a round trip. arrow-go's read of a chunk then takes
// the fetched bytes; any other read (the footer, a length that differs,
// such as the padding arrow-go adds for files of old parquet-mr writers)
// goes to the file.
type chunkPrefetch struct {
	src io.ReaderAt
	mu  sync.Mutex
	got map[[2]int64][]byte // by offset and length
}

func (p *chunkPrefetch) ReadAt(b []byte, off int64) (int, error) {
	k := [2]int64{off, int64(len(b))}
	p.mu.Lock()
	c, ok := p.got[k]
	delete(p.got, k)
	p.mu.Unlock()
	if ok {
		return copy(b, c), nil
	}
	return p.src.ReadAt(b, off)
}

// fetch reads the column chunks of leaves in row group g, as arrow-go will
// ask for them (RowGroupReader.GetColumnPageReader), dropping what an
// earlier row group left unread. Errors are left to arrow-go's own read.
func (p *chunkPrefetch) fetch(pf *file.Reader, g int, leaves []int) {
	p.mu.Lock()
	clear(p.got)
	p.mu.Unlock()
	if len(leaves) < 2 {
		return
	}
	rg := pf.MetaData().RowGroup(g)
	var wg sync.WaitGroup
	for _, leaf := range leaves {
		col, err := rg.ColumnChunk(leaf)
		if err != nil {
			continue
		}
		start := col.DataPageOffset()
		if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
			start = col.DictionaryPageOffset()
		}
		n := col.TotalCompressedSize()
		if start < 0 || n <= 0 || n > 1<<30 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, n)
			if m, err := p.src.ReadAt(buf, start); err != nil || int64(m) != n {
				return
			}
			p.mu.Lock()
			p.got[[2]int64{start, n}] = buf
			p.mu.Unlock()
		}()
	}
	wg.Wait()
}
