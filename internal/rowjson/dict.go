package rowjson

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// dictCache holds the JSON of the entries of one dictionary (string or
// binary values), each rendered the first time a row uses it, so that a
// column read as dictionary arrays costs one escape (or base64 encoding)
// per distinct value and a copy per row.
//
// Consecutive batches of one Parquet column chunk carry the same
// dictionary, but not always the same array: a filter or a deletion vector
// wraps the same buffers in new array data, and the next file may carry the
// same entries again. The cache is therefore kept while the dictionary has
// the same offset, length and bytes (validity, offsets and values) as the
// one it rendered, which it keeps a copy of. Comparing bytes, not buffer
// identity, is what keeps a hit exact whatever reuses memory: a pooled
// allocator (paimon/arrowpool) hands a released dictionary's memory to the
// next one, and arrow-go pools some *memory.Buffer objects itself. The
// comparison costs one memcmp of the dictionary per batch, next to which
// rendering every row's entry again is dear.
//
// The memcmp is skipped when the dictionary is the very array data object
// the cache rendered (paimon's dictionary reader shares one across the
// batches of a row group; the memcmp was 3 % of the binary's CPU on
// bench.wide4): the cache keeps a Go pointer to it, so its address cannot
// be another object's, and an array data object in use has never been
// released, so its buffers were never handed back for reuse, and arrow
// array data is immutable.
type dictCache struct {
	ref            arrow.ArrayData // the data rendered (not retained)
	offset, length int
	binary         bool
	// bufs are copies of the dictionary's buffers (nil for an absent one).
	bufs [3][]byte
	has  [3]bool
	text []byte
	// spans[k] is where entry k's JSON lies in text; end 0 means not
	// rendered yet (every rendering is at least two bytes long).
	spans []dictSpan
}

type dictSpan struct{ start, end int }

// use makes the cache hold the entries of dict, keeping what it holds when
// dict has the bytes of the dictionary it already renders.
func (c *dictCache) use(dict arrow.ArrayData, binary bool) {
	if c.spans != nil && dict == c.ref && binary == c.binary {
		return
	}
	if c.spans != nil && c.holds(dict, binary) {
		c.ref = dict
		return
	}
	c.ref = dict
	c.offset, c.length, c.binary = dict.Offset(), dict.Len(), binary
	for i := range c.bufs {
		c.bufs[i], c.has[i] = c.bufs[i][:0], false
	}
	for i, b := range dict.Buffers() {
		if i < len(c.bufs) && b != nil {
			c.bufs[i], c.has[i] = append(c.bufs[i], b.Bytes()...), true
		}
	}
	c.text = c.text[:0]
	if cap(c.spans) >= c.length {
		c.spans = c.spans[:c.length]
		clear(c.spans)
	} else {
		c.spans = make([]dictSpan, c.length)
	}
}

// holds reports whether dict is, byte for byte, the dictionary the cache
// renders.
func (c *dictCache) holds(dict arrow.ArrayData, binary bool) bool {
	if dict.Offset() != c.offset || dict.Len() != c.length || binary != c.binary || len(dict.Buffers()) > len(c.bufs) {
		return false
	}
	for i, b := range dict.Buffers() {
		if (b != nil) != c.has[i] || (b != nil && !bytes.Equal(b.Bytes(), c.bufs[i])) {
			return false
		}
	}
	for i := len(dict.Buffers()); i < len(c.bufs); i++ {
		if c.has[i] {
			return false
		}
	}
	return true
}

// dictWriter renders a dictionary array of string or binary values by
// copying each row's entry from the cache.
func dictWriter(a *array.Dictionary, c *dictCache) (valueWriter, error) {
	dict := a.Dictionary()
	var entry func(dst []byte, k int) []byte
	switch d := dict.(type) {
	case *array.String:
		entry = func(dst []byte, k int) []byte { return appendJSONString(dst, d.Value(k)) }
	case *array.Binary:
		entry = func(dst []byte, k int) []byte { return appendBase64(dst, d.Value(k)) }
	default:
		return nil, fmt.Errorf("%w %s (dictionary of %s)", errUnsupportedArrow, a.DataType(), dict.DataType())
	}
	c.use(dict.Data(), dict.DataType().ID() == arrow.BINARY)
	r := &dictRenderer{c: c, dict: dict, entry: entry}
	n := dict.Len()
	switch idx := a.Indices().(type) {
	case *array.Int8:
		return indexWriter(a, idx.Int8Values(), n, r)
	case *array.Int16:
		return indexWriter(a, idx.Int16Values(), n, r)
	case *array.Int32:
		return indexWriter(a, idx.Int32Values(), n, r)
	case *array.Int64:
		return indexWriter(a, idx.Int64Values(), n, r)
	case *array.Uint8:
		return indexWriter(a, idx.Uint8Values(), n, r)
	case *array.Uint16:
		return indexWriter(a, idx.Uint16Values(), n, r)
	case *array.Uint32:
		return indexWriter(a, idx.Uint32Values(), n, r)
	case *array.Uint64:
		return indexWriter(a, idx.Uint64Values(), n, r)
	}
	return nil, fmt.Errorf("%w %s (dictionary indices of %s)", errUnsupportedArrow, a.DataType(), a.Indices().DataType())
}

// dictRenderer renders the entries of one bound dictionary into its cache.
type dictRenderer struct {
	c     *dictCache
	dict  arrow.Array
	entry func(dst []byte, k int) []byte
}

// render renders entry k into the cache, the first time a row uses it.
func (r *dictRenderer) render(k int) dictSpan {
	c := r.c
	start := len(c.text)
	if r.dict.IsNull(k) {
		c.text = append(c.text, nullJSON...)
	} else {
		c.text = r.entry(c.text, k)
	}
	c.spans[k] = dictSpan{start, len(c.text)}
	return c.spans[k]
}

// indexWriter checks every non-null index of the batch against the
// dictionary's length once, here, so that a corrupt index is an error at
// Reset instead of a panic or another row's value. The row writer is one
// closure (null check, cached entry, copy): the string columns it serves
// are in most tables.
func indexWriter[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](a *array.Dictionary, vs []T, n int, r *dictRenderer) (valueWriter, error) {
	for i, v := range vs {
		if (v < 0 || uint64(v) >= uint64(n)) && a.IsValid(i) {
			return nil, fmt.Errorf("dictionary index %d of row %d is outside the dictionary of %d entries", v, i, n)
		}
	}
	c := r.c
	nulls := a.NullN() > 0
	return func(dst []byte, i int) []byte {
		if nulls && a.IsNull(i) {
			return append(dst, nullJSON...)
		}
		k := int(vs[i])
		s := c.spans[k]
		if s.end == 0 {
			s = r.render(k)
		}
		return append(dst, c.text[s.start:s.end]...)
	}, nil
}

// sameUpToDictionary reports whether a record schema is the encoder's,
// except that string and binary columns may be dictionary-encoded.
func sameUpToDictionary(rec, enc *arrow.Schema) bool {
	if rec.NumFields() != enc.NumFields() || !rec.Metadata().Equal(enc.Metadata()) {
		return false
	}
	for i, rf := range rec.Fields() {
		ef := enc.Field(i)
		if dt, ok := rf.Type.(*arrow.DictionaryType); ok && ef.Type.ID() != arrow.DICTIONARY {
			rf.Type = dt.ValueType
		}
		if !rf.Equal(ef) {
			return false
		}
	}
	return true
}
