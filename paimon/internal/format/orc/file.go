// Package orc decodes Apache ORC files (the format Paimon wrote by default
// before 0.9) straight into Arrow builders. It reads the file tail, then per
// stripe only the streams of the requested columns, so a read costs the
// footer plus the needed columns of one stripe at a time.
//
// It decodes what Java Paimon's ORC writer (ORC 1.5–2.x, file version
// 0.11/0.12) produces: every primitive type, list, map and struct, RLE v1
// and v2, direct and dictionary strings, and none/zlib/snappy/lz4/zstd
// compression. Union columns, LZO, encrypted files and the unreleased ORC v2
// file version are refused by name. Values come out as Java Paimon reads
// them (CHAR right-trimmed, timestamps through ORC's time-zone rules,
// decimals rescaled to the column's scale); see column.go.
package orc

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// ErrCorrupt is wrapped by every error about bytes that contradict the
// format (truncated file, bad lengths, impossible values).
var ErrCorrupt = errCorrupt

// File is an ORC file whose tail (postscript, footer) has been read.
type File struct {
	r     io.ReaderAt
	size  int64
	ps    postScript
	ft    footer
	d     *decompressor
	names []string // top-level column names
	ids   []uint64 // their column ids

	metaStart   int64 // file offset of the Metadata section (stripe statistics)
	tail        []byte
	tailStart   int64
	stripeStats [][]colStats
	statsErr    error
	statsRead   bool
}

// tailRead is how much of the file's end is fetched first: the postscript,
// footer and stripe statistics of files with up to a few hundred columns fit,
// so opening costs one request.
const tailRead = 64 << 10

// Open reads the tail of an ORC file of the given size.
func Open(r io.ReaderAt, size int64) (*File, error) {
	if size < 4 {
		return nil, corruptf("file of %d bytes is too short for ORC", size)
	}
	n := min(size, tailRead)
	tail := make([]byte, n)
	if _, err := r.ReadAt(tail, size-n); err != nil && !(errors.Is(err, io.EOF) && len(tail) == int(n)) {
		return nil, fmt.Errorf("read ORC tail: %w", err)
	}
	psLen := int64(tail[n-1])
	if psLen == 0 || psLen+1 > n {
		return nil, corruptf("postscript length %d in a file of %d bytes", psLen, size)
	}
	ps, err := parsePostScript(tail[n-1-psLen : n-1])
	if err != nil {
		return nil, fmt.Errorf("%w: postscript: %v", errCorrupt, err)
	}
	if ps.magic != "ORC" {
		return nil, corruptf("postscript magic %q, not ORC", ps.magic)
	}
	if len(ps.version) > 0 && ps.version[0] != 0 {
		return nil, fmt.Errorf("ORC file version %v is not supported (only 0.11 and 0.12 are released)", ps.version)
	}
	need := int64(ps.footerLength) + int64(ps.metadataLength) + psLen + 1
	if ps.footerLength > uint64(size) || ps.metadataLength > uint64(size) || need > size-3 {
		return nil, corruptf("footer %d and metadata %d bytes do not fit a file of %d bytes", ps.footerLength, ps.metadataLength, size)
	}
	f := &File{r: r, size: size, ps: ps}
	if f.d, err = newDecompressor(ps.compression, ps.blockSize); err != nil {
		return nil, err
	}
	if need > n {
		tail = make([]byte, need)
		if _, err := r.ReadAt(tail, size-need); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read ORC footer: %w", err)
		}
		n = need
	}
	f.tail, f.tailStart = tail, size-n
	footStart := size - 1 - psLen - int64(ps.footerLength)
	f.metaStart = footStart - int64(ps.metadataLength)
	raw, err := f.d.decodeAll(tail[footStart-f.tailStart:size-1-psLen-f.tailStart], maxMetadata)
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	if f.ft, err = parseFooter(raw); err != nil {
		return nil, fmt.Errorf("%w: footer: %v", errCorrupt, err)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) check() error {
	ts := f.ft.types
	if len(ts) == 0 {
		return corruptf("footer has no types")
	}
	if ts[0].kind != kStruct {
		return corruptf("root type is %s, not struct", kindName(ts[0].kind))
	}
	if len(ts[0].fieldNames) != len(ts[0].subtypes) {
		return corruptf("root struct has %d names for %d fields", len(ts[0].fieldNames), len(ts[0].subtypes))
	}
	// Column ids are a pre-order numbering: every subtype is a later type,
	// which also rules out cycles.
	for i, t := range ts {
		for _, s := range t.subtypes {
			if s <= uint64(i) || s >= uint64(len(ts)) {
				return corruptf("type %d has subtype %d of %d types", i, s, len(ts))
			}
		}
	}
	f.names, f.ids = ts[0].fieldNames, ts[0].subtypes
	end := uint64(f.metaStart)
	var rows uint64
	for i, s := range f.ft.stripes {
		total := s.indexLength + s.dataLength + s.footerLength
		if s.offset < 3 || total < s.footerLength || s.offset+total > end || s.offset+total < s.offset {
			return corruptf("stripe %d at %d (%d bytes) lies outside the data area (up to %d)", i, s.offset, total, end)
		}
		rows += s.numRows
	}
	if rows != f.ft.numRows && len(f.ft.stripes) > 0 {
		return corruptf("stripes hold %d rows, the footer records %d", rows, f.ft.numRows)
	}
	return nil
}

// Close releases codec state.
func (f *File) Close() { f.d.close() }

// NumRows is the file's row count.
func (f *File) NumRows() int64 { return int64(f.ft.numRows) }

// NumStripes is the number of stripes.
func (f *File) NumStripes() int { return len(f.ft.stripes) }

// StripeRows is the row count of stripe i.
func (f *File) StripeRows(i int) int64 { return int64(f.ft.stripes[i].numRows) }

// Compression names the file's compression codec.
func (f *File) Compression() string { return compressionNames[f.ps.compression] }

// FieldIndex finds a top-level column by name (exactly, else ignoring
// case as Java's ORC schema evolution does), or -1.
func (f *File) FieldIndex(name string) int {
	if i := slices.Index(f.names, name); i >= 0 {
		return i
	}
	for i, n := range f.names {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

// FieldAttribute returns a type attribute of a top-level column (Paimon
// records "paimon.id").
func (f *File) FieldAttribute(i int, key string) (string, bool) {
	v, ok := f.ft.types[f.ids[i]].attrs[key]
	return v, ok
}

// Field is a top-level column to read, and the Paimon type and Arrow type
// its values are returned as.
type Field struct {
	Index int
	Type  types.DataType
	Arrow arrow.DataType
}

// Options change how values are read.
type Options struct {
	// LegacyTimestampLTZ is Paimon's orc.timestamp-ltz.legacy.type (true by
	// default): TIMESTAMP WITH LOCAL TIME ZONE values were written shifted
	// by the writer's zone, and Java reads them back shifted.
	LegacyTimestampLTZ bool
	// KeepRowGroup, when set, is asked for each row group of a stripe that
	// has more than one (orc.row.index.stride rows each, by the row index):
	// false skips the group, whose rows are then neither decoded nor
	// returned. A stripe whose needed columns lack a row index is read
	// whole without asking.
	KeepRowGroup func(RowGroup) bool
}

// RowGroup is one row group of a stripe and its row-index statistics for
// the fields of OpenStripe, in the form StripeStats returns (nil =
// unknown).
type RowGroup struct {
	Stripe, Group int
	Rows          int64
	Min, Max      []any
	Nulls         []*int64
}

// StripeReader decodes the requested columns of one stripe, row group by
// row group when some were skipped.
type StripeReader struct {
	rows    int64 // rows of kept groups not read yet
	cols    []column
	name    []string
	runs    []rowRun // kept rows, in order
	run     int
	pos     int64 // stripe row of the next row read
	stride  int64
	ix      map[uint64][]rowIndexEntry
	skipped int
	stripe  int
}

// rowRun is a range of consecutive kept rows [start, end) of a stripe.
type rowRun struct{ start, end int64 }

// Rows is the number of rows not read yet (of the row groups kept).
func (s *StripeReader) Rows() int64 { return s.rows }

// Pos is the stripe row (0-based) of the next row Read returns: after a
// skipped row group it jumps, so positions in the file stay exact.
func (s *StripeReader) Pos() int64 { return s.pos }

// Contiguous is how many rows Read can return from Pos on before the next
// skipped row group.
func (s *StripeReader) Contiguous() int64 {
	if s.run >= len(s.runs) {
		return 0
	}
	return s.runs[s.run].end - s.pos
}

// SkippedRowGroups is the number of row groups of the stripe that
// KeepRowGroup rejected.
func (s *StripeReader) SkippedRowGroups() int { return s.skipped }

// Read appends n rows of each field to its builder (aligned with the
// fields the reader was opened with). n is at most Contiguous().
func (s *StripeReader) Read(bs []array.Builder, n int) error {
	if n == 0 {
		return nil
	}
	if int64(n) > s.Contiguous() {
		return fmt.Errorf("read of %d rows, %d left before the next skipped row group", n, s.Contiguous())
	}
	for i, c := range s.cols {
		if err := c.read(bs[i], n, nil); err != nil {
			return fmt.Errorf("column %q: %w", s.name[i], err)
		}
	}
	s.rows -= int64(n)
	s.pos += int64(n)
	if s.pos == s.runs[s.run].end {
		s.run++
		if s.run < len(s.runs) {
			return s.seekTo(s.runs[s.run].start)
		}
	}
	return nil
}

// seekTo moves every column to the start of the row group at stripe row
// start (a group boundary).
func (s *StripeReader) seekTo(start int64) error {
	sk := &seeker{ix: s.ix, group: int(start / s.stride)}
	for i, c := range s.cols {
		if err := c.seek(sk); err != nil {
			return fmt.Errorf("stripe %d column %q: row group %d: %w", s.stripe, s.name[i], sk.group, err)
		}
	}
	s.pos = start
	return nil
}

type streamKey struct{ column, kind uint64 }

// maxGap is the largest hole between two needed streams read in one
// request: fewer round trips to object stores for a little more data.
const maxGap = 256 << 10

// OpenStripe reads stripe i's footer and the streams of fields (and their
// row index when o.KeepRowGroup may skip row groups).
func (f *File) OpenStripe(i int, fields []Field, o Options) (*StripeReader, error) {
	si := f.ft.stripes[i]
	fo := int64(si.offset + si.indexLength + si.dataLength)
	raw := make([]byte, si.footerLength)
	if err := f.readAt(raw, fo); err != nil {
		return nil, fmt.Errorf("stripe %d footer: %w", i, err)
	}
	dec, err := f.d.decodeAll(raw, maxMetadata)
	if err != nil {
		return nil, fmt.Errorf("stripe %d footer: %w", i, err)
	}
	sf, err := parseStripeFooter(dec)
	if err != nil {
		return nil, fmt.Errorf("%w: stripe %d footer: %v", errCorrupt, i, err)
	}
	if len(sf.encodings) < len(f.ft.types) {
		return nil, corruptf("stripe %d footer has %d column encodings for %d columns", i, len(sf.encodings), len(f.ft.types))
	}
	need := map[uint64]bool{}
	for _, fl := range fields {
		f.markColumns(f.ids[fl.Index], need)
	}
	stride := f.ft.rowStride
	// The row index is only worth reading when a group can be skipped.
	wantIndex := o.KeepRowGroup != nil && len(fields) > 0 && stride > 0 && si.numRows > stride
	// Streams are laid out back to back from the stripe's start.
	type span struct {
		key      streamKey
		off, len int64
	}
	var spans []span
	data := map[streamKey][]byte{}
	off := int64(si.offset)
	limit := int64(si.offset + si.indexLength + si.dataLength)
	for _, st := range sf.streams {
		if st.length > uint64(limit-off) {
			return nil, corruptf("stripe %d: stream of column %d (%d bytes) runs past the stripe's data", i, st.column, st.length)
		}
		switch st.kind {
		case sPresent, sData, sLength, sDictionaryData, sSecondary, sRowIndex:
			if !need[st.column] || (st.kind == sRowIndex && !wantIndex) {
				break
			}
			if st.length > 0 {
				spans = append(spans, span{streamKey{st.column, st.kind}, off, int64(st.length)})
			} else {
				// Listed but empty: it exists (a PRESENT stream's row
				// index positions depend on that), with no bytes.
				data[streamKey{st.column, st.kind}] = []byte{}
			}
		}
		off += int64(st.length)
	}
	// Coalesce nearby streams into few reads.
	for a := 0; a < len(spans); {
		b := a + 1
		end := spans[a].off + spans[a].len
		for b < len(spans) && spans[b].off >= end && spans[b].off-end <= maxGap {
			end = spans[b].off + spans[b].len
			b++
		}
		buf := make([]byte, end-spans[a].off)
		if err := f.readAt(buf, spans[a].off); err != nil {
			return nil, fmt.Errorf("stripe %d: %w", i, err)
		}
		for _, s := range spans[a:b] {
			data[s.key] = buf[s.off-spans[a].off : s.off-spans[a].off+s.len]
		}
		a = b
	}
	sb := &stripeBuilder{f: f, sf: &sf, data: data, o: o}
	sr := &StripeReader{rows: int64(si.numRows), stripe: i, stride: int64(stride)}
	for _, fl := range fields {
		name := f.names[fl.Index]
		c, err := sb.build(f.ids[fl.Index], fl.Type, fl.Arrow)
		if err != nil {
			return nil, fmt.Errorf("stripe %d column %q: %w", i, name, err)
		}
		sr.cols = append(sr.cols, c)
		sr.name = append(sr.name, name)
	}
	sr.runs = []rowRun{{0, int64(si.numRows)}}
	if wantIndex {
		if err := f.selectRowGroups(sr, i, fields, need, data, o.KeepRowGroup); err != nil {
			return nil, err
		}
	}
	return sr, nil
}

// selectRowGroups reads the row index of the needed columns, asks keep for
// every row group and leaves sr positioned at the first kept one.
func (f *File) selectRowGroups(sr *StripeReader, i int, fields []Field, need map[uint64]bool, data map[streamKey][]byte, keep func(RowGroup) bool) error {
	rows, stride := int64(f.ft.stripes[i].numRows), sr.stride
	groups := int((rows + stride - 1) / stride)
	ix := map[uint64][]rowIndexEntry{}
	for col := range need {
		raw, ok := data[streamKey{col, sRowIndex}]
		if !ok || len(raw) == 0 {
			return nil // no row index (orc.create.index=false): read it all
		}
		dec, err := f.d.decodeAll(raw, maxMetadata)
		if err != nil {
			return fmt.Errorf("stripe %d: row index of column %d: %w", i, col, err)
		}
		e, err := parseRowIndex(dec)
		if err != nil {
			return fmt.Errorf("%w: stripe %d: row index of column %d: %v", errCorrupt, i, col, err)
		}
		if len(e) != groups {
			return corruptf("stripe %d: row index of column %d has %d entries for %d row groups of %d rows", i, col, len(e), groups, stride)
		}
		ix[col] = e
	}
	sr.ix = ix
	var runs []rowRun
	kept := int64(0)
	for g := 0; g < groups; g++ {
		start := int64(g) * stride
		end := min(start+stride, rows)
		rg := RowGroup{Stripe: i, Group: g, Rows: end - start,
			Min: make([]any, len(fields)), Max: make([]any, len(fields)), Nulls: make([]*int64, len(fields))}
		f.fieldStats(func(id uint64) *colStats {
			if e := ix[id]; g < len(e) && e[g].hasStats {
				return &e[g].stats
			}
			return nil
		}, uint64(end-start), fields, rg.Min, rg.Max, rg.Nulls)
		if !keep(rg) {
			sr.skipped++
			continue
		}
		kept += end - start
		if n := len(runs); n > 0 && runs[n-1].end == start {
			runs[n-1].end = end
		} else {
			runs = append(runs, rowRun{start, end})
		}
	}
	sr.runs, sr.rows = runs, kept
	if len(runs) > 0 && runs[0].start > 0 {
		return sr.seekTo(runs[0].start)
	}
	return nil
}

func (f *File) markColumns(id uint64, need map[uint64]bool) {
	need[id] = true
	for _, s := range f.ft.types[id].subtypes {
		f.markColumns(s, need)
	}
}

func (f *File) readAt(p []byte, off int64) error {
	tailEnd := f.tailStart + int64(len(f.tail))
	if off >= f.tailStart && off+int64(len(p)) <= tailEnd {
		copy(p, f.tail[off-f.tailStart:])
		return nil
	}
	// A range that ends inside the tail already read (the last stripe's
	// streams, often) fetches only what lies before it.
	if end := off + int64(len(p)); len(f.tail) > 0 && off < f.tailStart && end > f.tailStart && end <= tailEnd {
		k := f.tailStart - off
		copy(p[k:], f.tail[:end-f.tailStart])
		p = p[:k]
	}
	n, err := f.r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return corruptf("read of %d bytes at %d: file ends after %d", len(p), off, n)
	}
	return err
}

type stripeBuilder struct {
	f    *File
	sf   *stripeFooter
	data map[streamKey][]byte
	o    Options
}

// stream returns a column's stream; a stream the writer omitted reads as
// empty (a column whose values are all NULL needs none).
func (b *stripeBuilder) stream(id, kind uint64) *inStream {
	return newStream(b.f.d, b.data[streamKey{id, kind}])
}

func (b *stripeBuilder) presence(id uint64) presence {
	raw, ok := b.data[streamKey{id, sPresent}]
	if !ok {
		return presence{col: id}
	}
	return presence{col: id, present: &boolRLE{bytes: byteRLE{s: newStream(b.f.d, raw)}}}
}

func isV2(enc uint64) bool { return enc == encDirectV2 || enc == encDictionaryV2 }

func (b *stripeBuilder) build(id uint64, pt types.DataType, at arrow.DataType) (column, error) {
	t := b.f.ft.types[id]
	enc := b.sf.encodings[id].kind
	if enc > encDictionaryV2 {
		return nil, corruptf("column %d has unknown encoding %d", id, enc)
	}
	p := b.presence(id)
	want := func(kinds ...uint64) error {
		if !slices.Contains(kinds, t.kind) {
			return typeMismatch(t, pt)
		}
		return nil
	}
	direct := func() error {
		if enc != encDirect && enc != encDirectV2 {
			return corruptf("%s column with dictionary encoding", kindName(t.kind))
		}
		return nil
	}
	switch pt.Root {
	case types.Boolean:
		if err := want(kBoolean); err != nil {
			return nil, err
		}
		return &boolColumn{presence: p, data: boolRLE{bytes: byteRLE{s: b.stream(id, sData)}}}, nil
	case types.TinyInt:
		if err := want(kByte); err != nil {
			return nil, err
		}
		return &byteColumn{presence: p, data: byteRLE{s: b.stream(id, sData)}}, nil
	case types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
		k := map[types.Root]uint64{types.SmallInt: kShort, types.Int: kInt, types.BigInt: kLong, types.Date: kDate, types.Time: kInt}[pt.Root]
		if err := want(k); err != nil {
			return nil, err
		}
		if err := direct(); err != nil {
			return nil, err
		}
		return &intColumn{presence: p, data: newIntReader(b.stream(id, sData), enc, true)}, nil
	case types.Float, types.Double:
		k := uint64(kFloat)
		if pt.Root == types.Double {
			k = kDouble
		}
		if err := want(k); err != nil {
			return nil, err
		}
		return &floatColumn{presence: p, data: b.stream(id, sData), double: k == kDouble}, nil
	case types.Char, types.VarChar, types.Binary, types.VarBinary:
		if err := want(kString, kVarchar, kChar, kBinary); err != nil {
			return nil, err
		}
		adj := adjustString{kind: t.kind, maxLen: int(t.maxLength)}
		if enc == encDirect || enc == encDirectV2 {
			return &stringColumn{presence: p, adjust: adj, lengths: newIntReader(b.stream(id, sLength), enc, false), data: b.stream(id, sData)}, nil
		}
		if t.kind == kBinary {
			return nil, corruptf("binary column with dictionary encoding")
		}
		return b.dictionary(id, enc, p, adj)
	case types.Decimal:
		if err := want(kDecimal); err != nil {
			return nil, err
		}
		if err := direct(); err != nil {
			return nil, err
		}
		if int(t.scale) != pt.Scale {
			return nil, fmt.Errorf("ORC decimal scale %d, the Paimon type is %s", t.scale, pt)
		}
		return &decimalColumn{presence: p, data: b.stream(id, sData), scales: newIntReader(b.stream(id, sSecondary), enc, true),
			precision: int32(pt.Precision), scale: int32(pt.Scale)}, nil
	case types.Timestamp, types.TimestampLTZ:
		if err := want(kTimestamp, kTimestampInstant); err != nil {
			return nil, err
		}
		if err := direct(); err != nil {
			return nil, err
		}
		return b.timestamp(id, enc, p, t, pt, at)
	case types.Array:
		if err := want(kList); err != nil {
			return nil, err
		}
		if len(t.subtypes) != 1 {
			return nil, corruptf("list column with %d children", len(t.subtypes))
		}
		child, err := b.build(t.subtypes[0], *pt.Element, at.(*arrow.ListType).Elem())
		if err != nil {
			return nil, fmt.Errorf("element: %w", err)
		}
		return &listColumn{presence: p, offsets: offsets{lengths: newIntReader(b.stream(id, sLength), enc, false)}, child: child}, nil
	case types.Map, types.Multiset:
		if err := want(kMap); err != nil {
			return nil, err
		}
		if len(t.subtypes) != 2 {
			return nil, corruptf("map column with %d children", len(t.subtypes))
		}
		kt, vt := pt.Key, pt.Value
		if pt.Root == types.Multiset {
			kt = pt.Element
			v := types.DataType{Root: types.Int}
			vt = &v
		}
		mt := at.(*arrow.MapType)
		key, err := b.build(t.subtypes[0], *kt, mt.KeyType())
		if err != nil {
			return nil, fmt.Errorf("map key: %w", err)
		}
		val, err := b.build(t.subtypes[1], *vt, mt.ItemType())
		if err != nil {
			return nil, fmt.Errorf("map value: %w", err)
		}
		return &mapColumn{presence: p, offsets: offsets{lengths: newIntReader(b.stream(id, sLength), enc, false)}, key: key, value: val}, nil
	case types.Row:
		if err := want(kStruct); err != nil {
			return nil, err
		}
		st := at.(*arrow.StructType)
		if len(t.subtypes) != len(t.fieldNames) {
			return nil, corruptf("struct column with %d names for %d fields", len(t.fieldNames), len(t.subtypes))
		}
		c := &structColumn{presence: p}
		for i, fld := range pt.Fields {
			j := slices.Index(t.fieldNames, fld.Name)
			if j < 0 {
				for k, n := range t.fieldNames {
					if strings.EqualFold(n, fld.Name) {
						j = k
						break
					}
				}
			}
			if j < 0 {
				return nil, fmt.Errorf("field %q of the row is not in the ORC struct %v", fld.Name, t.fieldNames)
			}
			ch, err := b.build(t.subtypes[j], fld.Type, st.Field(i).Type)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", fld.Name, err)
			}
			c.children = append(c.children, ch)
			c.names = append(c.names, fld.Name)
		}
		return c, nil
	}
	return nil, fmt.Errorf("Paimon %s in ORC files: %w", pt, types.ErrUnsupported)
}

func (b *stripeBuilder) dictionary(id, enc uint64, p presence, adj adjustString) (column, error) {
	size := b.sf.encodings[id].dictSize
	dict, err := b.f.d.decodeAll(b.data[streamKey{id, sDictionaryData}], 1<<31-1)
	if err != nil {
		return nil, fmt.Errorf("DICTIONARY_DATA: %w", err)
	}
	// The entries are distinct strings, so at most one is empty and n
	// entries hold at least n-1 bytes. The stripe's row count is no bound:
	// the keys or values of a map (or a list's elements) can have more
	// distinct entries than the stripe has rows, and Java's writer keeps
	// their dictionary while it holds at most 0.8 entries per value. The
	// lengths are decoded in pieces so a corrupt size fails on the stream's
	// end instead of allocating for it.
	if size > uint64(len(dict))+1 {
		return nil, corruptf("dictionary of %d entries in %d bytes", size, len(dict))
	}
	lr := newIntReader(b.stream(id, sLength), enc, false)
	var lens []int64
	for left := size; left > 0; {
		k := min(left, 4096)
		lens = slices.Grow(lens, int(k))
		if err := lr.next(lens[len(lens) : len(lens)+int(k)]); err != nil {
			return nil, fmt.Errorf("dictionary LENGTH: %w", err)
		}
		lens = lens[:len(lens)+int(k)]
		left -= k
	}
	offs := make([]int64, size+1)
	for i, l := range lens {
		if l < 0 {
			return nil, corruptf("dictionary entry length %d", l)
		}
		offs[i+1] = offs[i] + l
	}
	if offs[size] > int64(len(dict)) {
		return nil, corruptf("dictionary of %d bytes, the lengths sum to %d", len(dict), offs[size])
	}
	return &dictColumn{presence: p, adjust: adj, index: newIntReader(b.stream(id, sData), enc, false), dict: dict, offs: offs}, nil
}

// maxMetadata bounds a decompressed footer, stripe footer or statistics
// section: real ones are kilobytes, a corrupt chunk list could claim
// gigabytes.
const maxMetadata = 256 << 20

// utcZones are the writer zones whose rules are UTC's; they need no zone
// database.
var utcZones = map[string]bool{"": true, "UTC": true, "Etc/UTC": true, "GMT": true, "Etc/GMT": true, "UCT": true, "Etc/UCT": true, "Z": true, "Zulu": true, "Universal": true, "Etc/Universal": true, "Etc/Zulu": true, "GMT0": true, "Etc/GMT0": true, "Etc/GMT+0": true, "Etc/GMT-0": true, "Greenwich": true, "Etc/Greenwich": true}

const base2015UTC = 1420070400 // 2015-01-01T00:00:00Z

// timestamp builds a TIMESTAMP or TIMESTAMP_INSTANT reader. Java Paimon
// reads TIMESTAMP columns through ORC's reader (seconds relative to
// 2015-01-01 in the writer's zone, converted to the reader's zone) and then
// DateTimeUtils.toInternal (adds the reader's zone offset): the net value
// is the instant plus the writer zone's offset, whatever the reader's zone.
// TIMESTAMP_INSTANT is UTC-based; Paimon's legacy LTZ mode
// (orc.timestamp-ltz.legacy.type, the default) shifted the value by the
// writer JVM's zone on write and Java shifts it back by its own zone on
// read: reading in the writer's zone (recorded in the stripe footer) gives
// the written value.
func (b *stripeBuilder) timestamp(id, enc uint64, p presence, t orcType, pt types.DataType, at arrow.DataType) (column, error) {
	c := &timestampColumn{presence: p, secs: newIntReader(b.stream(id, sData), enc, true),
		nanos: newIntReader(b.stream(id, sSecondary), enc, false), base: base2015UTC}
	switch at := at.(type) {
	case *arrow.TimestampType:
		c.unit = at.Unit
	case *types.WideTimestampType:
		c.wide = true
	default:
		return nil, fmt.Errorf("timestamp column into Arrow %s", at)
	}
	zone := b.sf.timezone
	shift := t.kind == kTimestamp || (pt.Root == types.TimestampLTZ && b.o.LegacyTimestampLTZ)
	if utcZones[zone] {
		return c, nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("ORC writer time zone %q: %v: %w", zone, err, types.ErrUnsupported)
	}
	if t.kind == kTimestamp {
		c.base = time.Date(2015, 1, 1, 0, 0, 0, 0, loc).Unix()
	}
	if shift {
		c.shift = loc
		c.rawOffset = zoneRawOffset(loc)
	}
	return c, nil
}
