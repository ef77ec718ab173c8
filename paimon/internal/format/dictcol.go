package format

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A top-level string or binary column whose every chunk is
// dictionary-encoded throughout (dictionaryOnly) is read here as Arrow
// dictionary arrays when Options.Dictionary asks for it, in lockstep with
// the pqarrow batches of the other columns (as INT96 columns are). pqarrow
// has a read-dictionary mode, but it inserts every decoded dictionary
// entry into a hash memo table (arrow-go 18.9 BinaryDictionaryBuilder);
// on bench.wide's 50,000-entry dictionaries that cost more than the plain
// read it was meant to save (BenchmarkReadWide, issue 16). Here the
// dictionary page becomes the dictionary array in one pass, and each data
// page's RLE/bit-packed indices are copied into the batch's indices: no
// value is hashed or copied per row, and every batch of a row group shares
// one dictionary (so internal/rowjson renders each entry once).
//
// A top-level DECIMAL column stored as FIXED_LEN_BYTE_ARRAY and
// dictionary-encoded throughout is read here too, with or without the
// option, since it comes back as the plain Decimal128 array pqarrow
// returns: each dictionary entry is converted from its big-endian bytes
// once, and a row costs one 16-byte copy. pqarrow instead gathers the entries' bytes per row, converts each
// row's bytes, and grows its dictionary copy batch by batch; on bench.wide
// (whose dec column is such a column) that path was about a sixth of the
// read (issue 16).
//
// A top-level INT32, INT64, FLOAT or DOUBLE column whose Arrow type is the
// direct one of its Parquet type (numericType: the bits pqarrow copies
// unchanged) and whose data pages are dictionary-encoded or PLAIN is read
// here as well, into plain arrays of that type. PLAIN pages are where
// parquet-java and parquet-cpp fall back once a chunk's dictionary is full,
// and the encoding of writers that turn dictionaries off. A dictionary
// entry is a 4- or 8-byte copy per row, a PLAIN run one copy; pqarrow
// allocated a new decoded dictionary for every chunk it met (its
// dictionary converters, a twelfth of what the binary allocated per row on
// bench.wide4, issue 16), and its own column reader per batch.

// dictColumn reads one such column of one row group.
type dictColumn struct {
	field  int // index into Options.Fields
	leaf   int // parquet leaf column index
	dt     *arrow.DictionaryType
	maxDef int16
	pr     file.PageReader
	dict   arrow.Array // the row group's dictionary (String or Binary)

	// dec, when set, makes this a DECIMAL column of FIXED_LEN_BYTE_ARRAY
	// values of width bytes: decDict is the row group's dictionary and read
	// gathers it into plain Decimal128 arrays (dt is then nil).
	dec      *arrow.Decimal128Type
	width    int
	decDict  []decimal128.Num
	decBuf   scratch[decimal128.Num]
	haveDict bool

	// num, when set, makes this a fixed-width numeric column of width (4
	// or 8) bytes read into plain arrays of type num: numDict holds the
	// row group's dictionary entries as their little-endian bytes; when
	// the current data page is PLAIN (isPlain), plain holds its values, in
	// the page reader's buffer, valid until its next page.
	num     arrow.DataType
	numDict []byte
	numBuf  scratch[byte]
	plain   []byte
	isPlain bool
	// isDelta: the current data page of a decimal column is
	// DELTA_BYTE_ARRAY (parquet-java's v2 fallback), decoded whole into
	// pageDec when it starts (its values are prefix-coded, so they cannot
	// be read from the middle).
	isDelta    bool
	pageDec    []decimal128.Num
	pageDecBuf scratch[decimal128.Num]

	// The current data page, decoded as its rows are read (a page can hold
	// hundreds of thousands of rows; decoded whole, its levels and indices
	// were megabytes of scratch per column of every open file): defH and
	// idxH resume its definition levels (when the column is optional) and
	// its dictionary indices; defs holds the levels of the rows being
	// read, idx the indices of their values, the page's values idxBase on.
	// idxSrc is the page's index data, its bit width not yet read when
	// idxH is unset.
	defH, idxH     hybrid
	idxSrc         []byte
	idxSet         bool
	idxBase        int
	defs, idx      []int32
	defBuf, idxBuf scratch[int32]
	// scratchMem allocates decBuf, defBuf and idxBuf (Options.Scratch):
	// they never reach the caller.
	scratchMem memory.Allocator
	rows, pos  int // rows of the page, next row
	vpos, done int // next index; rows of the row group returned so far
	total      int // rows of the row group, as its footer records
}

func (c *dictColumn) open(pf *file.Reader, g int) error {
	c.close()
	pr, err := pf.RowGroup(g).GetColumnPageReader(c.leaf)
	if err != nil {
		return err
	}
	c.pr = pr
	c.maxDef = pf.MetaData().Schema.Column(c.leaf).MaxDefinitionLevel()
	c.rows, c.pos, c.vpos, c.done = 0, 0, 0, 0
	c.total = int(pf.MetaData().RowGroup(g).NumRows())
	return nil
}

// end checks, once the row group's rows are read, that its column chunk
// holds no more: a footer recording fewer rows than the chunk holds would
// otherwise drop the rest without an error when every column of a read is
// decoded here (pqarrow's batches catch it beside them).
func (c *dictColumn) end() error {
	if c.pos < c.rows {
		return corruptf("column chunk holds %d rows beyond the %d of its row group", c.rows-c.pos, c.total)
	}
	for c.pr.Next() {
		if dp, ok := c.pr.Page().(file.DataPage); !ok || dp.NumValues() > 0 {
			return corruptf("column chunk holds pages beyond the %d rows of its row group", c.total)
		}
	}
	return c.pr.Err()
}

func (c *dictColumn) close() {
	if c.pr != nil {
		c.pr.Close()
		c.pr = nil
	}
	if c.dict != nil {
		c.dict.Release()
		c.dict = nil
	}
	c.decDict, c.numDict, c.plain, c.isPlain, c.haveDict = nil, nil, nil, false, false
	c.pageDec, c.isDelta = nil, false
}

// free returns the column's scratch to its allocator once the file is done.
func (c *dictColumn) free() {
	c.close()
	c.defs, c.idx = nil, nil
	c.defBuf.free()
	c.idxBuf.free()
	c.decBuf.free()
	c.numBuf.free()
	c.pageDecBuf.free()
}

// scratch is a reusable slice of T held in a buffer of the read's
// allocator. A dictColumn lives as long as its file, so with a pooling
// allocator (arrowpool, as the input reads) the dictionary and page scratch
// one file grew serve the next file's instead of becoming garbage: on
// bench.wide4 they were a quarter of what the read side allocated (issue 16).
type scratch[T any] struct {
	buf *memory.Buffer
}

// get returns n elements of T (size bytes each, viewed by cast), their
// contents undefined.
func (s *scratch[T]) get(mem memory.Allocator, n, size int, cast func([]byte) []T) []T {
	if s.buf == nil {
		s.buf = memory.NewResizableBuffer(mem)
	}
	s.buf.ResizeNoShrink(n * size)
	return cast(s.buf.Bytes())[:n]
}

func (s *scratch[T]) free() {
	if s.buf != nil {
		s.buf.Release()
		s.buf = nil
	}
}

// dictLen is the number of entries of the row group's dictionary.
func (c *dictColumn) dictLen() int {
	switch {
	case c.dec != nil:
		return len(c.decDict)
	case c.num != nil:
		return len(c.numDict) / c.width
	}
	return c.dict.Len()
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), types.ErrCorrupt)
}

// read returns the next n rows: a dictionary array over the row group's
// dictionary, or for a decimal or numeric column a plain array.
func (c *dictColumn) read(n int, mem memory.Allocator) (arrow.Array, error) {
	switch {
	case c.dec != nil:
		return readRows(c, n, mem, c.dec, arrow.Decimal128SizeBytes, arrow.Decimal128Traits.CastFromBytes,
			func(out []decimal128.Num, lo, hi int) {
				switch {
				case c.isDelta:
					copy(out, c.pageDec[lo:hi])
				case c.isPlain:
					plainDecimals(out[:hi-lo], c.plain[lo*c.width:], c.width)
				default:
					for k, x := range c.indices(lo, hi) {
						out[k] = c.decDict[x]
					}
				}
			})
	case c.num != nil && c.width == 4:
		return readRows(c, n, mem, c.num, 4, arrow.Uint32Traits.CastFromBytes,
			putFixed(c, arrow.Uint32Traits.CastFromBytes, arrow.Uint32Traits.CastToBytes))
	case c.num != nil:
		return readRows(c, n, mem, c.num, 8, arrow.Uint64Traits.CastFromBytes,
			putFixed(c, arrow.Uint64Traits.CastFromBytes, arrow.Uint64Traits.CastToBytes))
	}
	return readRows(c, n, mem, c.dt, arrow.Int32SizeBytes, arrow.Int32Traits.CastFromBytes,
		func(out []int32, lo, hi int) { copy(out, c.indices(lo, hi)) })
}

// putFixed is readRows' put for a numeric column, its values viewed as the
// unsigned integers of their width (a float's bits are copied, never
// converted, so NaN payloads and -0 survive): a PLAIN page's run is one
// copy of its bytes, a dictionary page's a gather of its entries.
func putFixed[T uint32 | uint64](c *dictColumn, from func([]byte) []T, to func([]T) []byte) func(out []T, lo, hi int) {
	return func(out []T, lo, hi int) {
		if c.isPlain {
			copy(to(out), c.plain[lo*c.width:hi*c.width])
			return
		}
		dict := from(c.numDict)
		for k, x := range c.indices(lo, hi) {
			out[k] = dict[x]
		}
	}
}

// readRows is the one walk over the column's pages for every kind of
// dictColumn: it gathers the next n rows into a buffer of T (size bytes
// each, viewed by cast), put writing the values of a run of non-null rows,
// the page's values lo to hi (their dictionary indices c.indices(lo, hi),
// or a PLAIN page's values); a null row is T's zero value. dt is the
// array's type (a dictionary type is given the row group's dictionary).
// put is called once per run, not per row, so the walk costs no call per
// value.
func readRows[T any](c *dictColumn, n int, mem memory.Allocator, dt arrow.DataType, size int, cast func([]byte) []T, put func(out []T, lo, hi int)) (arrow.Array, error) {
	valBuf := memory.NewResizableBuffer(mem)
	valBuf.Resize(n * size)
	out := cast(valBuf.Bytes())
	var valid *memory.Buffer
	var bits []byte
	if c.maxDef > 0 {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		bits = valid.Bytes()
		clear(bits)
	}
	release := func() {
		valBuf.Release()
		if valid != nil {
			valid.Release()
		}
	}
	var zero T
	nulls := 0
	for i := 0; i < n; {
		if c.pos == c.rows {
			err := c.nextPage(mem)
			if err == io.EOF {
				err = corruptf("dictionary-encoded column chunk ended after %d rows, the row group has more", c.done+i)
			}
			if err != nil {
				release()
				return nil, err
			}
			continue
		}
		take := min(n-i, c.rows-c.pos)
		if err := c.decodeRows(take); err != nil {
			release()
			return nil, err
		}
		if c.maxDef == 0 {
			put(out[i:i+take], c.vpos, c.vpos+take)
			c.vpos += take
		} else {
			// Runs of non-null rows go to put together; a null row between
			// them is zeroed and left out of the validity bitmap.
			run := 0
			for k, d := range c.defs {
				if d == int32(c.maxDef) {
					bitutil.SetBit(bits, i+k)
					run++
					continue
				}
				if run > 0 {
					put(out[i+k-run:i+k], c.vpos, c.vpos+run)
					c.vpos += run
					run = 0
				}
				out[i+k] = zero
				nulls++
			}
			if run > 0 {
				put(out[i+take-run:i+take], c.vpos, c.vpos+run)
				c.vpos += run
			}
		}
		c.pos += take
		i += take
	}
	c.done += n
	if c.done == c.total {
		if err := c.end(); err != nil {
			release()
			return nil, err
		}
	}
	if valid != nil && nulls == 0 {
		valid.Release()
		valid = nil
	}
	var data *array.Data
	if d, ok := dt.(*arrow.DictionaryType); ok {
		data = array.NewDataWithDictionary(d, n, []*memory.Buffer{valid, valBuf}, nulls, 0, c.dict.Data().(*array.Data))
	} else {
		data = array.NewData(dt, n, []*memory.Buffer{valid, valBuf}, nil, nulls, 0)
	}
	release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// nextPage decodes the chunk's next data page (reading the dictionary page
// first); io.EOF after the last.
func (c *dictColumn) nextPage(mem memory.Allocator) error {
	for c.pr.Next() {
		switch p := c.pr.Page().(type) {
		case *file.DictionaryPage:
			if c.haveDict {
				return corruptf("a second dictionary page in one column chunk")
			}
			if enc := parquet.Encoding(p.Encoding()); enc != parquet.Encodings.Plain && enc != parquet.Encodings.PlainDict {
				return corruptf("dictionary page of encoding %s", enc)
			}
			switch n := int(p.NumValues()); {
			case c.dec != nil:
				if err := checkDecimalPage(p.Data(), n, c.width); err != nil {
					return err
				}
				c.decDict = plainDecimals(c.decBuf.get(c.scratchMem, n, arrow.Decimal128SizeBytes, arrow.Decimal128Traits.CastFromBytes), p.Data(), c.width)
			case c.num != nil:
				if n < 0 || n > len(p.Data())/c.width {
					return corruptf("dictionary page of %d bytes cannot hold %d values of %d bytes", len(p.Data()), n, c.width)
				}
				// Copied: the page's buffer is the page reader's, reused
				// by its next page.
				c.numDict = c.numBuf.get(c.scratchMem, n*c.width, 1, func(b []byte) []byte { return b })
				copy(c.numDict, p.Data())
			default:
				d, err := plainByteArrays(p.Data(), int(p.NumValues()), c.dt.ValueType, mem)
				if err != nil {
					return err
				}
				c.dict = d
			}
			c.haveDict = true
		case *file.DataPageV1:
			data, n := p.Data(), int(p.NumValues())
			if c.maxDef > 0 {
				if p.DefinitionLevelEncoding() != parquet.Encodings.RLE {
					return fmt.Errorf("definition levels of encoding %s: %w", p.DefinitionLevelEncoding(), types.ErrUnsupported)
				}
				if len(data) < 4 {
					return corruptf("data page of %d bytes has no definition levels", len(data))
				}
				l := binary.LittleEndian.Uint32(data)
				if uint64(l) > uint64(len(data)-4) {
					return corruptf("definition levels of %d bytes in a data page of %d", l, len(data))
				}
				c.defH.reset(data[4:4+l], 1) // maxDef is 1 (dictionaryLeaf)
				data = data[4+l:]
			}
			return c.startValues(parquet.Encoding(p.Encoding()), data, n)
		case *file.DataPageV2:
			data, n := p.Data(), int(p.NumValues())
			rl, dl := int(p.RepetitionLevelByteLen()), int(p.DefinitionLevelByteLen())
			if rl < 0 || dl < 0 || rl+dl > len(data) {
				return corruptf("levels of %d+%d bytes in a data page of %d", rl, dl, len(data))
			}
			if c.maxDef > 0 {
				c.defH.reset(data[rl:rl+dl], 1)
			}
			return c.startValues(parquet.Encoding(p.Encoding()), data[rl+dl:], n)
		}
	}
	if err := c.pr.Err(); err != nil {
		return err
	}
	return io.EOF
}

// startValues starts a data page of n rows whose values, after their
// levels, are src in encoding enc.
func (c *dictColumn) startValues(enc parquet.Encoding, src []byte, n int) error {
	c.plain, c.isPlain, c.isDelta, c.idxSrc, c.idxSet = nil, false, false, nil, false
	switch {
	case enc == parquet.Encodings.Plain && (c.num != nil || c.dec != nil):
		c.plain, c.isPlain = src, true
	case enc == parquet.Encodings.DeltaByteArray && c.dec != nil:
		dst := c.pageDecBuf.get(c.scratchMem, n, arrow.Decimal128SizeBytes, arrow.Decimal128Traits.CastFromBytes)
		m, err := deltaByteArrays(src, n, func(i int, v []byte) error {
			if len(v) != c.width {
				return corruptf("DELTA_BYTE_ARRAY value %d of %d bytes in a column of %d-byte decimals", i, len(v), c.width)
			}
			dst[i] = bigEndianDecimal(v)
			return nil
		})
		if err != nil {
			return err
		}
		c.pageDec, c.isDelta = dst[:m], true
	case enc != parquet.Encodings.RLEDict && enc != parquet.Encodings.PlainDict:
		// The footer said every data page is dictionary-encoded (or PLAIN).
		return corruptf("data page of encoding %s in a column chunk whose footer says it is dictionary-encoded throughout", enc)
	case !c.haveDict:
		return corruptf("data page before the dictionary page")
	default:
		c.idxSrc = src
	}
	c.rows, c.pos, c.vpos = n, 0, 0
	return nil
}

// decodeRows decodes the definition levels of the page's next take rows
// into c.defs and readies their values: a PLAIN page's are checked to be
// in it, a dictionary page's indices decoded into c.idx and checked
// against the dictionary, so a corrupt index is an error, never another
// row's value.
func (c *dictColumn) decodeRows(take int) error {
	nv := take
	if c.maxDef > 0 {
		c.defs = c.defBuf.get(c.scratchMem, take, arrow.Int32SizeBytes, arrow.Int32Traits.CastFromBytes)
		if err := c.defH.decode(c.defs); err != nil {
			return fmt.Errorf("definition levels: %w", err)
		}
		nv = 0
		for _, d := range c.defs {
			if d == int32(c.maxDef) {
				nv++
			}
		}
	}
	if c.isPlain {
		if end := c.vpos + nv; end > len(c.plain)/c.width {
			return corruptf("PLAIN data page of %d bytes cannot hold %d values of %d bytes", len(c.plain), end, c.width)
		}
		return nil
	}
	if c.isDelta {
		if end := c.vpos + nv; end > len(c.pageDec) {
			return corruptf("DELTA_BYTE_ARRAY data page of %d values read for %d", len(c.pageDec), end)
		}
		return nil
	}
	if nv == 0 {
		return nil
	}
	if !c.idxSet {
		if len(c.idxSrc) < 1 {
			return corruptf("data page has no index bit width")
		}
		bw := int(c.idxSrc[0])
		if bw > 32 {
			return corruptf("dictionary index bit width %d", bw)
		}
		c.idxH.reset(c.idxSrc[1:], bw)
		c.idxSet = true
	}
	c.idx = c.idxBuf.get(c.scratchMem, nv, arrow.Int32SizeBytes, arrow.Int32Traits.CastFromBytes)
	c.idxBase = c.vpos
	if err := c.idxH.decode(c.idx); err != nil {
		return fmt.Errorf("dictionary indices: %w", err)
	}
	size := uint32(c.dictLen())
	for _, k := range c.idx {
		if uint32(k) >= size {
			return corruptf("dictionary index %d outside the dictionary of %d entries", uint32(k), size)
		}
	}
	return nil
}

// indices returns the dictionary indices of the page's values lo to hi,
// which decodeRows decoded.
func (c *dictColumn) indices(lo, hi int) []int32 {
	return c.idx[lo-c.idxBase : hi-c.idxBase]
}

// decodeHybrid decodes len(out) values of Parquet's RLE / bit-packing
// hybrid encoding (definition levels, dictionary indices) of bit width bw.
func decodeHybrid(src []byte, bw int, out []int32) error {
	var h hybrid
	h.reset(src, bw)
	return h.decode(out)
}

// hybrid decodes Parquet's RLE / bit-packing hybrid encoding of bit width
// bw from src, resuming where its last decode stopped: inside a run of
// one repeated value (rle, val) or of bit-packed values (packed, the
// run's bytes, from value first on), left values of which are unread.
type hybrid struct {
	src    []byte
	bw     int
	rle    bool
	val    int32
	packed []byte
	first  int
	left   int
	done   int // values decoded so far, for errors
}

func (h *hybrid) reset(src []byte, bw int) {
	*h = hybrid{src: src, bw: bw}
}

// decode fills out with the next len(out) values.
func (h *hybrid) decode(out []int32) error {
	for i := 0; i < len(out); {
		if h.left == 0 {
			if err := h.run(); err != nil {
				return err
			}
			continue
		}
		take := min(h.left, len(out)-i)
		if h.rle {
			for j := range out[i : i+take] {
				out[i+j] = h.val
			}
		} else {
			unpackBits(h.packed, h.bw, h.first, out[i:i+take])
			h.first += take
		}
		h.left -= take
		h.done += take
		i += take
	}
	return nil
}

// run reads the next run's header (and an RLE run's value).
func (h *hybrid) run() error {
	hd, k := binary.Uvarint(h.src)
	if k <= 0 {
		return corruptf("RLE/bit-packed run header truncated after %d values", h.done)
	}
	h.src = h.src[k:]
	if hd&1 == 0 { // a run of one repeated value
		byteW := (h.bw + 7) / 8
		if len(h.src) < byteW {
			return corruptf("RLE run value truncated")
		}
		var v uint32
		for b := 0; b < byteW; b++ {
			v |= uint32(h.src[b]) << (8 * b)
		}
		h.src = h.src[byteW:]
		if h.bw < 32 && v>>h.bw != 0 {
			// A definition level of 2 for a column whose maximum is 1
			// would otherwise read as a null.
			return corruptf("RLE run value %d is wider than %d bits", v, h.bw)
		}
		h.rle, h.val, h.left = true, int32(v), int(min(hd>>1, math.MaxInt32))
		return nil
	}
	groups := hd >> 1 // groups of 8 bit-packed values
	// Width 0 (a one-entry dictionary) packs groups into no bytes:
	// parquet-java writes such runs.
	if h.bw > 0 && (groups > uint64(len(h.src)) || groups*uint64(h.bw) > uint64(len(h.src))) {
		return corruptf("bit-packed run of %d groups of width %d in %d bytes", groups, h.bw, len(h.src))
	}
	groups = min(groups, math.MaxInt32/8)
	nbytes := int(groups) * h.bw
	h.rle, h.packed, h.first, h.left = false, h.src[:nbytes], 0, int(groups)*8
	h.src = h.src[nbytes:]
	return nil
}

// unpackBits reads len(out) values of bw bits, least significant bit
// first, from the first-th value of src on; src holds at least
// (first+len(out))*bw bits.
func unpackBits(src []byte, bw, first int, out []int32) {
	if bw == 0 {
		clear(out)
		return
	}
	mask := uint64(1)<<bw - 1
	j := 0
	// Each value is one 8-byte load at its first byte, shifted by its bit
	// offset (at most 7 + 32 bits: inside the load); the byte-at-a-time
	// accumulator this replaced was a fifth of a dictionary column's read.
	for ; j < len(out); j++ {
		off := (first + j) * bw
		p := off >> 3
		if p+8 > len(src) {
			break
		}
		out[j] = int32(binary.LittleEndian.Uint64(src[p:]) >> (off & 7) & mask)
	}
	// The last values, within 8 bytes of the end: their bytes one by one.
	for ; j < len(out); j++ {
		off := (first + j) * bw
		var w uint64
		for b, p := 0, off>>3; b < 8 && p+b < len(src); b++ {
			w |= uint64(src[p+b]) << (8 * b)
		}
		out[j] = int32(w >> (off & 7) & mask)
	}
}

// plainByteArrays decodes n PLAIN byte arrays (a 4-byte little-endian
// length, then the bytes) into an Arrow array of type t (String or Binary).
func plainByteArrays(src []byte, n int, t arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	if n < 0 || n > len(src)/4 {
		return nil, corruptf("dictionary page of %d bytes cannot hold %d entries", len(src), n)
	}
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize((n + 1) * arrow.Int32SizeBytes)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	valBuf := memory.NewResizableBuffer(mem)
	valBuf.Resize(len(src) - 4*n)
	vals := valBuf.Bytes()
	pos, end := 0, 0
	for k := 0; k < n; k++ {
		if len(src)-pos < 4 {
			offBuf.Release()
			valBuf.Release()
			return nil, corruptf("dictionary page truncated at entry %d of %d", k, n)
		}
		l := binary.LittleEndian.Uint32(src[pos:])
		pos += 4
		if uint64(l) > uint64(len(src)-pos) {
			offBuf.Release()
			valBuf.Release()
			return nil, corruptf("dictionary entry %d of %d bytes overruns the page", k, l)
		}
		offs[k] = int32(end)
		end += copy(vals[end:], src[pos:pos+int(l)])
		pos += int(l)
	}
	offs[n] = int32(end)
	valBuf.Resize(end)
	data := array.NewData(t, n, []*memory.Buffer{nil, offBuf, valBuf}, nil, 0, 0)
	offBuf.Release()
	valBuf.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// checkDecimalPage checks that a dictionary page of src holds n values of
// width bytes, so a short page is refused rather than read past.
func checkDecimalPage(src []byte, n, width int) error {
	if width < 1 || width > 16 || n < 0 || n > len(src)/width {
		return corruptf("dictionary page of %d bytes cannot hold %d decimals of %d bytes", len(src), n, width)
	}
	return nil
}

// plainDecimals fills dst with the len(dst) PLAIN FIXED_LEN_BYTE_ARRAY
// values of width bytes at the start of src (checkDecimalPage checked it
// holds them) and returns dst.
func plainDecimals(dst []decimal128.Num, src []byte, width int) []decimal128.Num {
	for k := range dst {
		dst[k] = bigEndianDecimal(src[k*width : (k+1)*width])
	}
	return dst
}

// bigEndianDecimal sign-extends a big-endian two's-complement integer of 1
// to 16 bytes to 128 bits.
func bigEndianDecimal(b []byte) decimal128.Num {
	var buf [16]byte
	if b[0]&0x80 != 0 {
		for i := range buf[:16-len(b)] {
			buf[i] = 0xff
		}
	}
	copy(buf[16-len(b):], b)
	return decimal128.New(int64(binary.BigEndian.Uint64(buf[:8])), binary.BigEndian.Uint64(buf[8:]))
}
