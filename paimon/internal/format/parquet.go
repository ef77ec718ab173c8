package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

type parquetReader struct {
	path   string
	opts   Options
	f      fileio.File
	pf     *file.Reader
	pre    *chunkPrefetch // the column chunks of the row group being opened
	fr     *pqarrow.FileReader
	schema *arrow.Schema
	// leaves are the parquet leaf column indices of the requested fields.
	leaves []int
	// manifest index of each requested field.
	fieldIdx []int

	// row groups in file order with their first physical row.
	groups []int
	starts []int64
	next   int // index into groups of the next group to open

	cur      pqarrow.RecordReader
	curStart int64 // physical position of the next row of cur
	// countOnly: no columns requested; batches carry only a row count.
	countOnly int64
	closed    bool

	// int96 and dictionary columns decoded outside pqarrow (see int96.go,
	// dictcol.go); when every requested column is one, curLeft counts the
	// rows left in the group.
	int96   []*int96Column
	dicts   []*dictColumn
	curLeft int64
}

// guard turns a panic inside arrow-go's Parquet decoder (it can panic on
// corrupt pages) into an error naming the file. It is used only at the
// boundary calls into arrow-go.
func guard(path string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("read parquet file %s: corrupt file (decoder panic: %v)", path, r)
	}
}

func (r *parquetReader) open(f fileio.File, path string, opts Options) (err error) {
	r.f, r.path, r.opts = f, path, opts
	defer guard(path, &err)

	// Column chunks and pages never reach the caller: opts.Scratch.
	props := parquet.NewReaderProperties(opts.Scratch)
	r.pre = &chunkPrefetch{src: f, got: map[[2]int64][]byte{}}
	r.pf, err = file.NewParquetReader(io.NewSectionReader(r.pre, 0, f.Size()), file.WithReadProps(props))
	if err != nil {
		return fmt.Errorf("read parquet footer of %s: %w", path, err)
	}
	// Columns are decoded in this goroutine, not in pqarrow's parallel
	// ones: arrow-go panics on some corrupt pages, and only a recover in
	// the decoding goroutine (guard) turns that into an error instead of
	// ending the process. Their chunks are still fetched concurrently
	// (chunkPrefetch), as pqarrow's parallel readers fetched them.
	r.fr, err = pqarrow.NewFileReader(r.pf, pqarrow.ArrowReadProperties{BatchSize: int64(opts.BatchSize)}, opts.Alloc)
	if err != nil {
		return fmt.Errorf("read parquet schema of %s: %w", path, err)
	}
	r.schema, err = arrowconv.Schema(opts.Fields)
	if err != nil {
		return fmt.Errorf("parquet file %s: %w", path, err)
	}
	mf := r.fr.Manifest
	for _, fld := range opts.Fields {
		idx := manifestField(mf.Fields, fld.Name)
		if idx < 0 {
			return fmt.Errorf("column %q is not in parquet file %s", fld.Name, path)
		}
		r.fieldIdx = append(r.fieldIdx, idx)
		leaves := appendLeaves(nil, &mf.Fields[idx])
		if leaf, ok := isTopLevelInt96(r.pf, leaves); ok {
			i := len(r.fieldIdx) - 1
			r.int96 = append(r.int96, &int96Column{field: i, leaf: leaf, wide: i < len(opts.WideTimestamps) && opts.WideTimestamps[i]})
			continue
		}
		if c := r.dictionaryLeaf(len(r.fieldIdx)-1, &mf.Fields[idx]); c != nil {
			c.leaf, c.scratchMem = leaves[0], opts.Scratch
			r.dicts = append(r.dicts, c)
			continue
		}
		r.leaves = append(r.leaves, leaves...)
	}

	md := r.pf.MetaData()
	if err := checkDecodable(md, r.leaves, path); err != nil {
		return err
	}
	var start int64
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		n := rg.NumRows()
		if n < 0 {
			return fmt.Errorf("parquet file %s: row group %d has negative row count %d", path, g, n)
		}
		keep := true
		if opts.RowGroupFilter != nil {
			st, err := r.rowGroupStats(g)
			if err != nil {
				return err
			}
			keep = opts.RowGroupFilter(st)
		}
		if keep && n > 0 {
			r.groups = append(r.groups, g)
			r.starts = append(r.starts, start)
		}
		start += n
	}
	return nil
}

// dictionaryLeaf returns the dictColumn that reads requested field i, or
// nil. It is a top-level optional or required column every chunk of which
// in the file is dictionary-encoded throughout, and either a BYTE_ARRAY
// column of a string or binary type that Options.Dictionary accepts as
// dictionary arrays, or a FIXED_LEN_BYTE_ARRAY DECIMAL of at most 16 bytes
// whose precision and scale are the requested type's. The decimals come
// back as the plain Decimal128 arrays pqarrow would return, so they take
// this path with or without Options.Dictionary. Anything else goes through
// pqarrow and conform.
func (r *parquetReader) dictionaryLeaf(i int, sf *pqarrow.SchemaField) *dictColumn {
	if !sf.IsLeaf() {
		return nil
	}
	md := r.pf.MetaData()
	col := md.Schema.Column(sf.ColIndex)
	if col.MaxRepetitionLevel() != 0 || col.MaxDefinitionLevel() > 1 {
		return nil
	}
	target, err := arrowconv.Type(r.opts.Fields[i].Type)
	if err != nil {
		return nil
	}
	switch col.PhysicalType() {
	case parquet.Types.ByteArray:
		if i >= len(r.opts.Dictionary) || !r.opts.Dictionary[i] {
			return nil
		}
		if (target.ID() == arrow.STRING || target.ID() == arrow.BINARY) && ownEncodings(md, sf.ColIndex, col.MaxDefinitionLevel()) {
			return &dictColumn{field: i, dt: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: target}}
		}
	case parquet.Types.FixedLenByteArray:
		dec, ok := target.(*arrow.Decimal128Type)
		if ok && arrow.TypeEqual(sf.Field.Type, dec) && col.TypeLength() >= 1 && col.TypeLength() <= 16 &&
			ownEncodings(md, sf.ColIndex, col.MaxDefinitionLevel(), parquet.Encodings.Plain, parquet.Encodings.DeltaByteArray) {
			return &dictColumn{field: i, dec: dec, width: col.TypeLength()}
		}
	case parquet.Types.Int32, parquet.Types.Int64, parquet.Types.Float, parquet.Types.Double:
		// The file's own type, as pqarrow would return it: the requested
		// type may differ (a column widened by schema evolution) and is
		// reached by conform, as for pqarrow's arrays.
		dt := numericType(col)
		if dt != nil && arrow.TypeEqual(sf.Field.Type, dt) && ownEncodings(md, sf.ColIndex, col.MaxDefinitionLevel(), parquet.Encodings.Plain) {
			return &dictColumn{field: i, num: dt, width: col.PhysicalType().ByteSize()}
		}
	}
	return nil
}

// numericType is the Arrow type whose values are the bits of a column of
// physical type INT32, INT64, FLOAT or DOUBLE unchanged, or nil when its
// logical type needs a conversion (narrower integers, decimals, the
// deprecated INT96-era converted types) or is one this reader leaves to
// pqarrow. Only a column pqarrow also maps to this type (the file's stored
// Arrow schema can ask for another, such as timestamp[s] over milliseconds)
// is read outside pqarrow.
func numericType(col *schema.Column) arrow.DataType {
	lt := col.LogicalType()
	none := lt == nil || lt.Equals(schema.NoLogicalType{})
	switch col.PhysicalType() {
	case parquet.Types.Float:
		if none {
			return arrow.PrimitiveTypes.Float32
		}
	case parquet.Types.Double:
		if none {
			return arrow.PrimitiveTypes.Float64
		}
	case parquet.Types.Int32:
		switch t := lt.(type) {
		case schema.DateLogicalType:
			return arrow.FixedWidthTypes.Date32
		case schema.IntLogicalType:
			if t.BitWidth() == 32 && t.IsSigned() {
				return arrow.PrimitiveTypes.Int32
			}
		default:
			if none {
				return arrow.PrimitiveTypes.Int32
			}
		}
	case parquet.Types.Int64:
		switch t := lt.(type) {
		case schema.TimestampLogicalType:
			unit := map[schema.TimeUnitType]arrow.TimeUnit{
				schema.TimeUnitMillis: arrow.Millisecond, schema.TimeUnitMicros: arrow.Microsecond, schema.TimeUnitNanos: arrow.Nanosecond,
			}
			u, ok := unit[t.TimeUnit()]
			if !ok {
				return nil
			}
			tz := ""
			if t.IsAdjustedToUTC() {
				tz = "UTC"
			}
			return &arrow.TimestampType{Unit: u, TimeZone: tz}
		case schema.IntLogicalType:
			if t.BitWidth() == 64 && t.IsSigned() {
				return arrow.PrimitiveTypes.Int64
			}
		default:
			if none {
				return arrow.PrimitiveTypes.Int64
			}
		}
	}
	return nil
}

// Thrift enum values of the Parquet footer (arrow-go keeps the generated
// package internal).
const (
	pageData   = 0 // PageType.DATA_PAGE
	pageDataV2 = 3 // PageType.DATA_PAGE_V2
)

// ownEncodings reports whether every column chunk of leaf col is encoded
// as dictColumn decodes: dictionary-encoded data pages after a dictionary
// page, or with other data encodings (numeric columns: PLAIN; decimals:
// PLAIN and DELTA_BYTE_ARRAY) those pages as well and the dictionary page
// optional. With encoding statistics (pyarrow and parquet-java write them)
// each data page's encoding is known; without, the chunk's encoding list
// must not contain an encoding dictColumn does not decode, nor PLAIN
// unless other holds it, which a fallback page would add (PLAIN of a v2
// dictionary page is indistinguishable and reads as a fallback: pqarrow's
// arrays, never a wrong row). maxDef is the column's maximum definition
// level: BIT_PACKED levels, which old writers list, are left to pqarrow
// when there are levels to decode.
func ownEncodings(md *metadata.FileMetaData, col int, maxDef int16, other ...parquet.Encoding) bool {
	if md.FileMetaData == nil || len(md.FileMetaData.RowGroups) == 0 {
		return false
	}
	dictOptional := len(other) > 0
	dataEncoding := func(e parquet.Encoding) bool {
		return e == parquet.Encodings.RLEDict || e == parquet.Encodings.PlainDict || slices.Contains(other, e)
	}
	for g, rg := range md.FileMetaData.RowGroups {
		if col >= len(rg.Columns) || rg.Columns[col].MetaData == nil {
			return false // encrypted column metadata
		}
		if cc, err := md.RowGroup(g).ColumnChunk(col); err != nil || !dictOptional && !cc.HasDictionaryPage() {
			return false
		}
		cm := rg.Columns[col].MetaData
		for _, e := range cm.Encodings {
			switch e := parquet.Encoding(e); {
			case e == parquet.Encodings.BitPacked && maxDef == 0, e == parquet.Encodings.RLE:
			case len(cm.EncodingStats) > 0 && e == parquet.Encodings.Plain:
				// A dictionary page's encoding; the statistics below say
				// whether a data page is PLAIN too.
			case !dataEncoding(e):
				return false
			}
		}
		for _, st := range cm.EncodingStats {
			if st.PageType != pageData && st.PageType != pageDataV2 || st.Count == 0 {
				continue
			}
			if !dataEncoding(parquet.Encoding(st.Encoding)) {
				return false
			}
		}
	}
	return true
}

// checkDecodable refuses, before anything is read, a column chunk pqarrow
// would have to decode in an encoding arrow-go has no decoder for at its
// physical type: arrow-go panics there, which would read as a corrupt file
// rather than as what it is. (parquet-java's v2 writer stores FIXED_LEN_BYTE_ARRAY
// values as DELTA_BYTE_ARRAY once dictionaries are off or full; top-level
// decimals of that kind are decoded by dictColumn and never get here.)
func checkDecodable(md *metadata.FileMetaData, leaves []int, path string) error {
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for _, leaf := range leaves {
			cc, err := rg.ColumnChunk(leaf)
			if err != nil {
				return fmt.Errorf("parquet file %s row group %d column %d: %w", path, g, leaf, err)
			}
			col := md.Schema.Column(leaf)
			for _, e := range cc.Encodings() {
				if !decodable(col.PhysicalType(), e) {
					return fmt.Errorf("parquet file %s column %s: %s pages of %s values are not decoded by this reader yet: %w",
						path, col.Path(), e, col.PhysicalType(), types.ErrUnsupported)
				}
			}
		}
	}
	return nil
}

// decodable reports whether arrow-go decodes values of physical type t
// stored in encoding e (its typed decoders' cases; RLE and BIT_PACKED
// also stand for the levels).
func decodable(t parquet.Type, e parquet.Encoding) bool {
	switch e {
	case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict, parquet.Encodings.RLE, parquet.Encodings.BitPacked:
		return true
	case parquet.Encodings.DeltaBinaryPacked:
		return t == parquet.Types.Int32 || t == parquet.Types.Int64
	case parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray:
		return t == parquet.Types.ByteArray
	case parquet.Encodings.ByteStreamSplit:
		return t == parquet.Types.Int32 || t == parquet.Types.Int64 || t == parquet.Types.Float || t == parquet.Types.Double ||
			t == parquet.Types.FixedLenByteArray
	}
	return false
}

func manifestField(fs []pqarrow.SchemaField, name string) int {
	for i := range fs {
		if fs[i].Field.Name == name {
			return i
		}
	}
	for i := range fs {
		if strings.EqualFold(fs[i].Field.Name, name) {
			return i
		}
	}
	return -1
}

func appendLeaves(out []int, f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(out, f.ColIndex)
	}
	for i := range f.Children {
		out = appendLeaves(out, &f.Children[i])
	}
	return out
}

func (r *parquetReader) Next(ctx context.Context) (rec arrow.RecordBatch, err error) {
	if r.closed {
		return nil, fmt.Errorf("read parquet file %s: reader is closed", r.path)
	}
	defer guard(r.path, &err)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(r.opts.Fields) == 0 {
			return r.nextCountOnly()
		}
		if len(r.leaves) == 0 {
			return r.nextOwnOnly(ctx)
		}
		if r.cur == nil {
			if r.next >= len(r.groups) {
				return nil, io.EOF
			}
			g := r.groups[r.next]
			r.pre.fetch(r.pf, g, r.readLeaves())
			r.cur, err = r.fr.GetRecordReader(ctx, r.leaves, []int{g})
			if err != nil {
				return nil, fmt.Errorf("read parquet file %s row group %d: %w", r.path, g, err)
			}
			if err := r.openOwn(g); err != nil {
				return nil, err
			}
			r.curStart = r.starts[r.next]
			r.next++
		}
		g := r.groups[r.next-1]
		left := r.pf.MetaData().RowGroup(g).NumRows() - (r.curStart - r.starts[r.next-1])
		n := min(int64(r.opts.BatchSize), left)
		// The columns decoded outside pqarrow are read for the same n rows
		// while pqarrow decodes its own: run after pqarrow's, they were a
		// serial tail of every batch on the one goroutine that decodes a
		// split, which the JSON encoders waited on (issue 16).
		wait := r.startOwn(max(n, 0))
		more := r.cur.Next()
		own, ownErr := wait()
		if !more {
			releaseAll(own)
			err := r.cur.Err()
			r.cur.Release()
			r.cur = nil
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("read parquet file %s row group %d: %w", r.path, g, err)
			}
			if ownErr != nil {
				return nil, ownErr
			}
			if n > 0 {
				return nil, fmt.Errorf("read parquet file %s row group %d: corrupt file: its columns end %d rows before the %d its footer records", r.path, g, left, r.pf.MetaData().RowGroup(g).NumRows())
			}
			continue
		}
		raw := r.cur.RecordBatch()
		raw.Retain()
		if ownErr != nil {
			raw.Release()
			return nil, ownErr
		}
		if raw.NumRows() != n {
			raw.Release()
			releaseAll(own)
			return nil, fmt.Errorf("read parquet file %s row group %d: corrupt file: a batch of %d rows where the footer leaves %d", r.path, g, raw.NumRows(), n)
		}
		start := r.curStart
		r.curStart += raw.NumRows()
		out, err := r.shape(raw, raw.NumRows(), own)
		if err != nil {
			return nil, err
		}
		out, err = applyDeletes(ctx, out, start, r.opts)
		if err != nil {
			return nil, fmt.Errorf("read parquet file %s: %w", r.path, err)
		}
		if out == nil {
			continue
		}
		return out, nil
	}
}

// nextCountOnly serves reads that project no column (COUNT(*)-style): the
// row count comes from the footer; deleted rows are still subtracted.
func (r *parquetReader) nextCountOnly() (arrow.RecordBatch, error) {
	for r.next < len(r.groups) {
		g := r.groups[r.next]
		total := r.pf.MetaData().RowGroup(g).NumRows()
		start := r.starts[r.next]
		from := r.countOnly
		n := min(int64(r.opts.BatchSize), total-from)
		r.countOnly += n
		if r.countOnly >= total {
			r.next++
			r.countOnly = 0
		}
		kept := n
		if r.opts.Deleted != nil {
			for p := start + from; p < start+from+n; p++ {
				if r.opts.Deleted.IsDeleted(p) {
					kept--
				}
			}
		}
		if kept > 0 {
			return array.NewRecordBatch(r.schema, nil, kept), nil
		}
	}
	return nil, io.EOF
}

// readLeaves lists every leaf column the read decodes, in pqarrow or
// outside it.
func (r *parquetReader) readLeaves() []int {
	out := slices.Clone(r.leaves)
	for _, c := range r.int96 {
		out = append(out, c.leaf)
	}
	for _, c := range r.dicts {
		out = append(out, c.leaf)
	}
	return out
}

// openOwn opens the columns decoded outside pqarrow at row group g.
func (r *parquetReader) openOwn(g int) error {
	for _, c := range r.int96 {
		if err := c.open(r.pf, g); err != nil {
			return fmt.Errorf("read parquet file %s row group %d: %w", r.path, g, err)
		}
	}
	for _, c := range r.dicts {
		if err := c.open(r.pf, g); err != nil {
			return fmt.Errorf("read parquet file %s row group %d column %q: %w", r.path, g, r.opts.Fields[c.field].Name, err)
		}
	}
	return nil
}

// nextOwnOnly serves reads whose every column is decoded outside pqarrow
// (top-level INT96 and dictionary columns): batches are cut by row count
// instead of by a pqarrow reader.
func (r *parquetReader) nextOwnOnly(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if r.curLeft == 0 {
			if r.next >= len(r.groups) {
				return nil, io.EOF
			}
			g := r.groups[r.next]
			r.pre.fetch(r.pf, g, r.readLeaves())
			if err := r.openOwn(g); err != nil {
				return nil, err
			}
			r.curLeft = r.pf.MetaData().RowGroup(g).NumRows()
			r.curStart = r.starts[r.next]
			r.next++
		}
		n := min(int64(r.opts.BatchSize), r.curLeft)
		r.curLeft -= n
		start := r.curStart
		r.curStart += n
		cols, err := r.startOwn(n)()
		if err != nil {
			return nil, err
		}
		out, err := r.shape(nil, n, cols)
		if err != nil {
			return nil, err
		}
		out, err = applyDeletes(ctx, out, start, r.opts)
		if err != nil {
			return nil, fmt.Errorf("read parquet file %s: %w", r.path, err)
		}
		if out != nil {
			return out, nil
		}
	}
}

// hasOwn reports whether some requested columns are decoded outside
// pqarrow.
func (r *parquetReader) hasOwn() bool { return len(r.int96)+len(r.dicts) > 0 }

// startOwn starts decoding the next n rows of the columns decoded outside
// pqarrow (INT96, dictionary arrays), each column on a goroutine of its own
// as pqarrow decodes its columns: each has its own page reader, and read
// one after the other they were the tail of a batch that left a core idle.
// wait returns them at their fields' positions (nil elsewhere, and nil
// when there are none or n is 0); on an error none is left retained.
func (r *parquetReader) startOwn(n int64) (wait func() ([]arrow.Array, error)) {
	if !r.hasOwn() || n == 0 {
		return func() ([]arrow.Array, error) { return nil, nil }
	}
	cols := make([]arrow.Array, len(r.opts.Fields))
	errs := make([]error, len(r.opts.Fields))
	var wg sync.WaitGroup
	run := func(field int, read func() (arrow.Array, error)) {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil { // as guard, on this goroutine
					errs[field] = fmt.Errorf("corrupt file (decoder panic: %v)", p)
				}
			}()
			cols[field], errs[field] = read()
		})
	}
	for _, c := range r.int96 {
		run(c.field, func() (arrow.Array, error) { return c.read(int(n), r.opts.Fields[c.field].Type, r.opts.Alloc) })
	}
	for _, c := range r.dicts {
		if c.num == nil {
			run(c.field, func() (arrow.Array, error) { return c.read(int(n), r.opts.Alloc) })
			continue
		}
		run(c.field, func() (arrow.Array, error) {
			arr, err := c.read(int(n), r.opts.Alloc)
			if err != nil {
				return nil, err
			}
			defer arr.Release()
			return conform(arr, r.opts.Fields[c.field].Type, r.opts.Alloc)
		})
	}
	return func() ([]arrow.Array, error) {
		wg.Wait()
		for field, err := range errs {
			if err != nil {
				releaseAll(cols)
				return nil, fmt.Errorf("read parquet file %s column %q: %w", r.path, r.opts.Fields[field].Name, err)
			}
		}
		return cols, nil
	}
}

// releaseAll releases the non-nil arrays of cols.
func releaseAll(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

// shape picks the requested columns out of a pqarrow batch (nil when every
// column is decoded outside pqarrow) and conforms them to the Paimon types,
// beside own, startOwn's columns of the same n rows. It releases raw, and
// own once the batch holds them.
func (r *parquetReader) shape(raw arrow.RecordBatch, n int64, own []arrow.Array) (arrow.RecordBatch, error) {
	if raw != nil {
		defer raw.Release()
	}
	cols := make([]arrow.Array, len(r.opts.Fields))
	copy(cols, own)
	defer releaseAll(cols)
	for i, fld := range r.opts.Fields {
		if cols[i] != nil {
			continue // INT96 or dictionary, decoded by startOwn
		}
		name := r.fr.Manifest.Fields[r.fieldIdx[i]].Field.Name
		idx := raw.Schema().FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("read parquet file %s: column %q missing from decoded batch", r.path, name)
		}
		c, err := conform(raw.Column(idx[0]), fld.Type, r.opts.Alloc)
		if err != nil {
			return nil, fmt.Errorf("read parquet file %s column %q: %w", r.path, fld.Name, err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(arrowconv.WithColumnTypes(r.schema, cols), cols, n), nil
}

// applyDeletes drops the rows a deletion vector removes. start is the
// physical position of the batch's first row. It returns nil when every row
// is deleted. rec is consumed.
func applyDeletes(ctx context.Context, rec arrow.RecordBatch, start int64, opts Options) (arrow.RecordBatch, error) {
	if opts.Deleted == nil {
		return rec, nil
	}
	n := rec.NumRows()
	var deleted int64
	for i := int64(0); i < n; i++ {
		if opts.Deleted.IsDeleted(start + i) {
			deleted++
		}
	}
	switch deleted {
	case 0:
		return rec, nil
	case n:
		rec.Release()
		return nil, nil
	}
	defer rec.Release()
	b := array.NewBooleanBuilder(opts.Alloc)
	defer b.Release()
	b.Reserve(int(n))
	for i := int64(0); i < n; i++ {
		b.UnsafeAppend(!opts.Deleted.IsDeleted(start + i))
	}
	mask := b.NewArray()
	defer mask.Release()
	if rec.NumCols() == 0 {
		return array.NewRecordBatch(rec.Schema(), nil, n-deleted), nil
	}
	out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, opts.Alloc), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, fmt.Errorf("apply deletion vector: %w", err)
	}
	return out, nil
}

func (r *parquetReader) Close() error {
	for _, c := range r.int96 {
		c.close()
	}
	for _, c := range r.dicts {
		c.free()
	}
	if r.closed {
		return nil
	}
	r.closed = true
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	var errs []error
	// file.Reader.Close would close the SectionReader's source only if it
	// were an io.Closer; the fileio.File is closed here instead.
	if r.f != nil {
		if err := r.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close parquet file %s: %w", r.path, err))
		}
	}
	return errors.Join(errs...)
}

// bothBoundsSet reports whether the footer records both a min and a max of
// column col in row group g, in an order that holds for the column's type.
// arrow-go reports HasMinMax when either is set and leaves the other at its
// zero value: parquet-cpp (pyarrow) drops a binary max longer than its
// statistics size limit (4 KiB) and keeps the min, and an empty string read
// as the max would prune every row group with s >= 'm'. The deprecated
// min/max fields of writers before PARQUET-1025 compare binary values as
// signed bytes, which is no bound for UTF-8 strings; Java ignores them for
// binary columns too.
func bothBoundsSet(md *metadata.FileMetaData, g, col int) bool {
	if md.FileMetaData == nil || g >= len(md.FileMetaData.RowGroups) {
		return false
	}
	cols := md.FileMetaData.RowGroups[g].Columns
	if col >= len(cols) || cols[col].MetaData == nil || cols[col].MetaData.Statistics == nil {
		return false // encrypted column metadata, or no statistics
	}
	st := cols[col].MetaData.Statistics
	if md.Schema.Column(col).ColumnOrder() == parquet.ColumnOrders.TypeDefinedOrder {
		return st.IsSetMinValue() && st.IsSetMaxValue()
	}
	switch md.Schema.Column(col).PhysicalType() {
	case parquet.Types.ByteArray, parquet.Types.FixedLenByteArray:
		return false
	}
	return st.IsSetMin() && st.IsSetMax()
}

// nullCountSet reports whether the footer records the null count of column
// col in row group g. arrow-go reports HasNullCount with a count of 0 when
// the statistics carry no null_count at all — which parquet-java writes for
// a binary column whose values exceed its statistics size limit, nulls or
// not — and IS NULL would then prune a row group holding nulls.
func nullCountSet(md *metadata.FileMetaData, g, col int) bool {
	if md.FileMetaData == nil || g >= len(md.FileMetaData.RowGroups) {
		return false
	}
	cols := md.FileMetaData.RowGroups[g].Columns
	if col >= len(cols) || cols[col].MetaData == nil || cols[col].MetaData.Statistics == nil {
		return false
	}
	return cols[col].MetaData.Statistics.IsSetNullCount()
}

// rowGroupStats decodes the footer statistics of row group g for the
// requested fields into the paimon/types value types.
func (r *parquetReader) rowGroupStats(g int) (RowGroupStats, error) {
	md := r.pf.MetaData()
	rg := md.RowGroup(g)
	st := RowGroupStats{
		Index:      g,
		RowGroup:   -1,
		NumRows:    rg.NumRows(),
		Min:        make([]any, len(r.opts.Fields)),
		Max:        make([]any, len(r.opts.Fields)),
		NullCounts: make([]*int64, len(r.opts.Fields)),
	}
	for i, fld := range r.opts.Fields {
		sf := &r.fr.Manifest.Fields[r.fieldIdx[i]]
		if !sf.IsLeaf() {
			continue
		}
		cc, err := rg.ColumnChunk(sf.ColIndex)
		if err != nil {
			return st, fmt.Errorf("parquet file %s row group %d column %q: %w", r.path, g, fld.Name, err)
		}
		ts, err := cc.Statistics()
		if err != nil || ts == nil {
			// Undecodable statistics only cost pruning, never rows.
			continue
		}
		if ts.HasNullCount() && nullCountSet(md, g, sf.ColIndex) {
			nc := ts.NullCount()
			st.NullCounts[i] = &nc
		}
		if ts.HasMinMax() && bothBoundsSet(md, g, sf.ColIndex) {
			st.Min[i], st.Max[i] = statValues(ts, fld.Type, md.Schema.Column(sf.ColIndex))
		}
	}
	return st, nil
}
