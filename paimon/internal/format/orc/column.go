package orc

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// column decodes one ORC column of a stripe into an Arrow builder.
type column interface {
	// read appends n rows to b. parent, when not nil, is the enclosing
	// struct's validity: rows where it is false are null here too and
	// consume nothing from this column's streams (ORC stores children
	// only for present parents).
	read(b array.Builder, n int, parent []bool) error
	// seek moves every stream of the column and its children to the start
	// of a row group (see seek.go).
	seek(s *seeker) error
}

// presence is the PRESENT stream of a column (nil when the writer wrote
// none: every row present).
type presence struct {
	col     uint64 // the ORC column id, for its row index
	present *boolRLE
	valid   []bool
}

// rows returns the validity of n rows (nil when all are valid) and the
// number of non-null values to decode.
func (p *presence) rows(n int, parent []bool) ([]bool, int, error) {
	if p.present == nil && parent == nil {
		return nil, n, nil
	}
	if cap(p.valid) < n {
		p.valid = make([]bool, n)
	}
	v := p.valid[:n]
	switch {
	case p.present == nil:
		copy(v, parent)
	case parent == nil:
		if err := p.present.next(v); err != nil {
			return nil, 0, fmt.Errorf("PRESENT: %w", err)
		}
	default:
		for i := range v {
			v[i] = false
			if parent[i] {
				if err := p.present.next(v[i : i+1]); err != nil {
					return nil, 0, fmt.Errorf("PRESENT: %w", err)
				}
			}
		}
	}
	nn := 0
	for _, x := range v {
		if x {
			nn++
		}
	}
	if nn == n {
		return nil, n, nil
	}
	return v, nn, nil
}

// spread moves the nn decoded values at the front of vals to the rows
// valid marks, zeroing null rows, in place (vals has n elements).
func spread[T any](vals []T, valid []bool) {
	if valid == nil {
		return
	}
	var zero T
	j := 0
	for _, x := range valid {
		if x {
			j++
		}
	}
	j--
	for i := len(valid) - 1; i >= 0; i-- {
		if valid[i] {
			vals[i] = vals[j]
			j--
		} else {
			vals[i] = zero
		}
	}
}

// decoder is a stream that decodes values of type T: an RLE or a reader
// of integers.
type decoder[T any] interface {
	next(dst []T) error
}

// readSpread reads the validity of n rows and, from d, the values of the
// present ones into *vals, spread to their rows (nulls zero).
func readSpread[T any](p *presence, d decoder[T], vals *[]T, n int, parent []bool) ([]bool, error) {
	valid, nn, err := p.rows(n, parent)
	if err != nil {
		return nil, err
	}
	*vals = grow(*vals, n)
	if err := d.next((*vals)[:nn]); err != nil {
		return nil, err
	}
	spread(*vals, valid)
	return valid, nil
}

// binaryRows starts a batch of a string column: the validity of n rows,
// the builder, and in *ints the integers r holds for the present rows
// (lengths or dictionary indexes), errors from r prefixed with stream when
// it is not empty.
func (p *presence) binaryRows(b array.Builder, n int, parent []bool, r intReader, ints *[]int64, stream string) (*array.BinaryBuilder, []bool, error) {
	valid, nn, err := p.rows(n, parent)
	if err != nil {
		return nil, nil, err
	}
	bb, err := binaryBuilder(b)
	if err != nil {
		return nil, nil, err
	}
	*ints = grow(*ints, nn)
	if err := r.next(*ints); err != nil {
		if stream != "" {
			err = fmt.Errorf("%s: %w", stream, err)
		}
		return nil, nil, err
	}
	return bb, valid, nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// boolColumn: BOOLEAN.
type boolColumn struct {
	presence
	data boolRLE
	vals []bool
}

func (c *boolColumn) read(b array.Builder, n int, parent []bool) error {
	valid, err := readSpread(&c.presence, &c.data, &c.vals, n, parent)
	if err != nil {
		return err
	}
	b.(*array.BooleanBuilder).AppendValues(c.vals, valid)
	return nil
}

// byteColumn: TINYINT (byte RLE).
type byteColumn struct {
	presence
	data  byteRLE
	bytes []byte
	vals  []int8
}

func (c *byteColumn) read(b array.Builder, n int, parent []bool) error {
	valid, nn, err := c.rows(n, parent)
	if err != nil {
		return err
	}
	c.bytes = grow(c.bytes, nn)
	if err := c.data.next(c.bytes); err != nil {
		return err
	}
	c.vals = grow(c.vals, n)
	for i, x := range c.bytes {
		c.vals[i] = int8(x)
	}
	spread(c.vals, valid)
	b.(*array.Int8Builder).AppendValues(c.vals, valid)
	return nil
}

// intColumn: SMALLINT, INT, BIGINT, DATE and TIME (ORC int of
// milliseconds of the day): integer RLE into the builder's width.
type intColumn struct {
	presence
	data intReader
	vals []int64
	i16  []int16
	i32  []int32
	d32  []arrow.Date32
	t32  []arrow.Time32
}

func convertInts[T ~int16 | ~int32](dst []T, src []int64) []T {
	dst = grow(dst, len(src))
	for i, v := range src {
		dst[i] = T(v)
	}
	return dst
}

func (c *intColumn) read(b array.Builder, n int, parent []bool) error {
	valid, err := readSpread(&c.presence, c.data, &c.vals, n, parent)
	if err != nil {
		return err
	}
	switch bb := b.(type) {
	case *array.Int64Builder:
		bb.AppendValues(c.vals, valid)
	case *array.Int32Builder:
		c.i32 = convertInts(c.i32, c.vals)
		bb.AppendValues(c.i32, valid)
	case *array.Int16Builder:
		c.i16 = convertInts(c.i16, c.vals)
		bb.AppendValues(c.i16, valid)
	case *array.Date32Builder:
		c.d32 = convertInts(c.d32, c.vals)
		bb.AppendValues(c.d32, valid)
	case *array.Time32Builder:
		c.t32 = convertInts(c.t32, c.vals)
		bb.AppendValues(c.t32, valid)
	default:
		return fmt.Errorf("integer column into %T", b)
	}
	return nil
}

// floatColumn: FLOAT and DOUBLE, little-endian IEEE 754.
type floatColumn struct {
	presence
	data   *inStream
	double bool
	f32    []float32
	f64    []float64
}

func (c *floatColumn) read(b array.Builder, n int, parent []bool) error {
	valid, nn, err := c.rows(n, parent)
	if err != nil {
		return err
	}
	if c.double {
		raw, err := c.data.bytes(8 * nn)
		if err != nil {
			return err
		}
		c.f64 = grow(c.f64, n)
		for i := 0; i < nn; i++ {
			c.f64[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		spread(c.f64, valid)
		b.(*array.Float64Builder).AppendValues(c.f64, valid)
		return nil
	}
	raw, err := c.data.bytes(4 * nn)
	if err != nil {
		return err
	}
	c.f32 = grow(c.f32, n)
	for i := 0; i < nn; i++ {
		c.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	spread(c.f32, valid)
	b.(*array.Float32Builder).AppendValues(c.f32, valid)
	return nil
}

// adjustString applies what ORC's Java reader does to CHAR (right-trim
// spaces, truncate to the length) and VARCHAR (truncate) values, so the
// strings are the ones Java Paimon reads from the same file.
type adjustString struct {
	kind   uint64
	maxLen int
}

func (a adjustString) apply(v []byte) []byte {
	switch a.kind {
	case kChar:
		for len(v) > 0 && v[len(v)-1] == ' ' {
			v = v[:len(v)-1]
		}
		return truncateChars(v, a.maxLen)
	case kVarchar:
		return truncateChars(v, a.maxLen)
	}
	return v
}

func truncateChars(v []byte, n int) []byte {
	if n <= 0 || len(v) <= n {
		return v
	}
	i, chars := 0, 0
	for i < len(v) && chars < n {
		_, sz := utf8.DecodeRune(v[i:])
		i += sz
		chars++
	}
	return v[:i]
}

func binaryBuilder(b array.Builder) (*array.BinaryBuilder, error) {
	switch bb := b.(type) {
	case *array.BinaryBuilder:
		return bb, nil
	case *array.StringBuilder:
		return bb.BinaryBuilder, nil
	}
	return nil, fmt.Errorf("string column into %T", b)
}

// stringColumn: STRING, VARCHAR, CHAR, BINARY with DIRECT encoding.
type stringColumn struct {
	presence
	adjust  adjustString
	lengths intReader
	data    *inStream
	lens    []int64
}

func (c *stringColumn) read(b array.Builder, n int, parent []bool) error {
	bb, valid, err := c.binaryRows(b, n, parent, c.lengths, &c.lens, "LENGTH")
	if err != nil {
		return err
	}
	total := int64(0)
	for _, l := range c.lens {
		if l < 0 || l > math.MaxInt32 {
			return corruptf("string length %d", l)
		}
		total += l
	}
	if total > math.MaxInt32 {
		return corruptf("%d bytes of strings in one batch", total)
	}
	data, err := c.data.bytes(int(total))
	if err != nil {
		return err
	}
	bb.Reserve(n)
	bb.ReserveData(int(total))
	j, off := 0, int64(0)
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			bb.AppendNull()
			continue
		}
		l := c.lens[j]
		bb.Append(c.adjust.apply(data[off : off+l]))
		off += l
		j++
	}
	return nil
}

// dictColumn: strings with DICTIONARY encoding; the dictionary is read
// whole when the stripe opens.
type dictColumn struct {
	presence
	adjust adjustString
	index  intReader
	dict   []byte
	offs   []int64 // len(dict entries)+1
	idx    []int64
}

func (c *dictColumn) read(b array.Builder, n int, parent []bool) error {
	bb, valid, err := c.binaryRows(b, n, parent, c.index, &c.idx, "")
	if err != nil {
		return err
	}
	entries := int64(len(c.offs) - 1)
	bb.Reserve(n)
	j := 0
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			bb.AppendNull()
			continue
		}
		k := c.idx[j]
		j++
		if k < 0 || k >= entries {
			return corruptf("dictionary index %d of %d entries", k, entries)
		}
		bb.Append(c.adjust.apply(c.dict[c.offs[k]:c.offs[k+1]]))
	}
	return nil
}

// decimalColumn: DECIMAL, unbounded zigzag varints with a scale per value.
type decimalColumn struct {
	presence
	data      *inStream
	scales    intReader
	precision int32
	scale     int32
	sc        []int64
	vals      []decimal128.Num
	ok        []bool
	big       big.Int
}

var maxUnscaled [39]decimal128.Num

func init() {
	v := decimal128.FromI64(1)
	for p := 0; p <= 38; p++ {
		maxUnscaled[p] = v // 10^p: |unscaled| must be below it
		v = v.Mul(decimal128.FromI64(10))
	}
}

// readUnscaled decodes one varint of unbounded length. ok is false when
// the value does not fit 128 bits (Java reads it as NULL).
func (c *decimalColumn) readUnscaled() (decimal128.Num, bool, error) {
	var lo uint64
	shift := uint(0)
	for {
		b, err := c.data.readByte()
		if err != nil {
			return decimal128.Num{}, false, err
		}
		if shift < 63 || (shift == 63 && b <= 1) {
			lo |= uint64(b&0x7f) << shift
			if b < 0x80 {
				return decimal128.FromI64(unzigzag(lo)), true, nil
			}
			shift += 7
			continue
		}
		// Beyond 64 bits: continue in big.Int.
		z := &c.big
		z.SetUint64(lo)
		var t big.Int
		t.SetUint64(uint64(b & 0x7f))
		t.Lsh(&t, shift)
		z.Or(z, &t)
		for b >= 0x80 {
			shift += 7
			if shift > 7*40 {
				return decimal128.Num{}, false, corruptf("decimal varint longer than 40 bytes")
			}
			if b, err = c.data.readByte(); err != nil {
				return decimal128.Num{}, false, err
			}
			t.SetUint64(uint64(b & 0x7f))
			t.Lsh(&t, shift)
			z.Or(z, &t)
		}
		neg := z.Bit(0) == 1
		z.Rsh(z, 1)
		if neg {
			z.Add(z, big.NewInt(1))
			z.Neg(z)
		}
		if z.BitLen() > 127 {
			return decimal128.Num{}, false, nil
		}
		return decimal128.FromBigInt(z), true, nil
	}
}

func (c *decimalColumn) read(b array.Builder, n int, parent []bool) error {
	valid, nn, err := c.rows(n, parent)
	if err != nil {
		return err
	}
	c.sc = grow(c.sc, nn)
	if err := c.scales.next(c.sc); err != nil {
		return fmt.Errorf("SECONDARY: %w", err)
	}
	c.vals = grow(c.vals, n)
	c.ok = grow(c.ok, n)
	for i := 0; i < nn; i++ {
		v, ok, err := c.readUnscaled()
		if err != nil {
			return err
		}
		if ok {
			v, ok = rescale(v, int32(c.sc[i]), c.scale, c.precision)
		}
		c.vals[i], c.ok[i] = v, ok
	}
	// The validity is the presence and the values Java reads as NULL.
	out := valid
	for _, ok := range c.ok[:nn] {
		if !ok {
			out = c.ok
			break
		}
	}
	spread(c.vals, valid)
	spread(c.ok, valid)
	b.(*array.Decimal128Builder).AppendValues(c.vals[:n], out)
	return nil
}

// rescale brings an unscaled value written with scale from to the column's
// scale, as HiveDecimal does when Java reads it (HALF_UP rounding when the
// written scale is larger), and reports false when the result does not
// fit the precision (Java reads such a value as NULL).
func rescale(v decimal128.Num, from, to, precision int32) (decimal128.Num, bool) {
	if from < 0 || from > 38 {
		return v, false
	}
	switch {
	case from < to:
		if !v.Abs().Less(maxUnscaled[38-(to-from)]) {
			return v, false
		}
		v = v.IncreaseScaleBy(to - from)
	case from > to:
		v = v.ReduceScaleBy(from-to, true)
	}
	if precision < 1 || precision > 38 || !v.Abs().Less(maxUnscaled[precision]) {
		return v, false
	}
	return v, true
}

// subUnit is the part of (millis, sub-millisecond nanos) below unit u.
func subUnit(millis, sub int64, u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return (millis-arith.FloorDiv(millis, 1000)*1000)*1_000_000 + sub
	case arrow.Millisecond:
		return sub
	case arrow.Microsecond:
		return sub % 1000
	}
	return 0
}

// timestampColumn: TIMESTAMP and TIMESTAMP_INSTANT, seconds from
// 2015-01-01 in DATA and encoded nanoseconds in SECONDARY.
type timestampColumn struct {
	presence
	secs, nanos intReader
	base        int64          // 2015-01-01 00:00:00 in the writer's zone, epoch seconds
	shift       *time.Location // non-nil: add this zone's offset (see newTimestamp)
	rawOffset   int64          // shift's standard offset in ms, Java's offset before 1900
	unit        arrow.TimeUnit
	wide        bool // into types.WideTimestampType: every value, exactly
	s, ns       []int64
	vals        []arrow.Timestamp
	wvals       []types.TimestampValue
}

func (c *timestampColumn) read(b array.Builder, n int, parent []bool) error {
	valid, nn, err := c.rows(n, parent)
	if err != nil {
		return err
	}
	c.s = grow(c.s, nn)
	c.ns = grow(c.ns, nn)
	if err := c.secs.next(c.s); err != nil {
		return err
	}
	if err := c.nanos.next(c.ns); err != nil {
		return fmt.Errorf("SECONDARY: %w", err)
	}
	if c.wide {
		c.wvals = grow(c.wvals, n)
	} else {
		c.vals = grow(c.vals, n)
	}
	for i := 0; i < nn; i++ {
		nanos := parseNanos(c.ns[i])
		if nanos < 0 || nanos > 999_999_999 {
			return corruptf("timestamp nanoseconds %d", nanos)
		}
		// ORC's TimestampTreeReader.readTimestamp, quirks included.
		millis := (c.s[i]+c.base)*1000 + nanos/1_000_000
		if millis < 0 && nanos > 999_999 {
			millis -= 1000
		}
		if c.shift != nil {
			millis += javaZoneOffset(c.shift, c.rawOffset, millis)
		}
		sub := nanos % 1_000_000
		if c.wide {
			c.wvals[i] = types.TimestampValue{Millis: millis, NanoOfMilli: int32(sub)}
			continue
		}
		// ORC stores nanoseconds whatever the declared precision, and Java's
		// OrcTimestampColumnVector returns them all (a Java writer passes its
		// Timestamp through unchanged): digits below the Arrow unit would be
		// floored, a silently different value, so they are refused.
		if lost := subUnit(millis, sub, c.unit); lost != 0 {
			return fmt.Errorf("timestamp %s carries %d ns below the %s unit the column is read into; Java returns them, so the reader refuses rather than floor: %w",
				time.UnixMilli(millis).UTC().Add(time.Duration(sub)).Format("2006-01-02T15:04:05.000000000"), lost, map[arrow.TimeUnit]string{arrow.Second: "second", arrow.Millisecond: "millisecond", arrow.Microsecond: "microsecond"}[c.unit], types.ErrUnsupported)
		}
		var v int64
		switch c.unit {
		case arrow.Millisecond:
			v = millis
		case arrow.Microsecond:
			if millis > math.MaxInt64/1000 || millis < math.MinInt64/1000 || millis*1000 > math.MaxInt64-sub/1000 {
				return fmt.Errorf("timestamp of %d ms overflows microseconds: %w", millis, types.ErrUnsupported)
			}
			v = millis*1000 + sub/1000
		case arrow.Nanosecond:
			// A wrapped value would be a wrong row: refused, naming the value.
			if v, err = (types.TimestampValue{Millis: millis, NanoOfMilli: int32(sub)}).CheckedNanos(); err != nil {
				return err
			}
		case arrow.Second:
			v = arith.FloorDiv(millis, 1000)
		}
		c.vals[i] = arrow.Timestamp(v)
	}
	if c.wide {
		spread(c.wvals, valid)
		wb := b.(*array.ExtensionBuilder)
		for i, v := range c.wvals[:n] {
			if valid != nil && !valid[i] {
				wb.AppendNull()
				continue
			}
			arrowconv.AppendWideTimestamp(wb, v)
		}
		return nil
	}
	spread(c.vals, valid)
	b.(*array.TimestampBuilder).AppendValues(c.vals, valid)
	return nil
}

func parseNanos(v int64) int64 {
	zeros := v & 7
	r := int64(uint64(v) >> 3)
	if zeros != 0 {
		for k := int64(0); k <= zeros; k++ {
			r *= 10
		}
	}
	return r
}

// offsets is the LENGTH stream of a list or map column, which Arrow wants
// as one offset per row into the child values.
type offsets struct {
	lengths intReader
	lens    []int64
	offs    []int32
}

// read decodes the lengths of the nn present rows among n, fills offs with
// each row's start (the first at start, the child builder's length) and
// returns how many child values the rows hold; kind names the column in
// errors.
func (o *offsets) read(valid []bool, n, nn int, start int64, kind string) (int64, error) {
	o.lens = grow(o.lens, nn)
	if err := o.lengths.next(o.lens); err != nil {
		return 0, fmt.Errorf("LENGTH: %w", err)
	}
	o.offs = grow(o.offs, n)
	total := int64(0)
	j := 0
	for i := 0; i < n; i++ {
		o.offs[i] = int32(start + total)
		if valid == nil || valid[i] {
			l := o.lens[j]
			j++
			if l < 0 || start+total+l > math.MaxInt32 {
				return 0, corruptf("%s length %d", kind, l)
			}
			total += l
		}
	}
	return total, nil
}

// listColumn: ARRAY (and the entries of MAP).
type listColumn struct {
	presence
	offsets
	child column
}

func (c *listColumn) read(b array.Builder, n int, parent []bool) error {
	valid, nn, err := c.rows(n, parent)
	if err != nil {
		return err
	}
	lb := b.(*array.ListBuilder)
	vb := lb.ValueBuilder()
	total, err := c.offsets.read(valid, n, nn, int64(vb.Len()), "list")
	if err != nil {
		return err
	}
	if err := c.child.read(vb, int(total), nil); err != nil {
		return fmt.Errorf("element: %w", err)
	}
	lb.AppendValues(c.offs, validOrAll(valid, n, &c.valid))
	return nil
}

// validOrAll returns valid, or n trues when valid is nil (the builders'
// AppendValues want one entry per offset).
func validOrAll(valid []bool, n int, scratch *[]bool) []bool {
	if valid != nil {
		return valid
	}
	v := grow(*scratch, n)
	for i := range v {
		v[i] = true
	}
	*scratch = v
	return v
}

type mapColumn struct {
	presence
	offsets
	key, value column
}

func (c *mapColumn) read(b array.Builder, n int, parent []bool) error {
	valid, nn, err := c.rows(n, parent)
	if err != nil {
		return err
	}
	mb := b.(*array.MapBuilder)
	total, err := c.offsets.read(valid, n, nn, int64(mb.KeyBuilder().Len()), "map")
	if err != nil {
		return err
	}
	kb := mb.KeyBuilder()
	nulls := kb.NullN()
	if err := c.key.read(kb, int(total), nil); err != nil {
		return fmt.Errorf("map key: %w", err)
	}
	if kb.NullN() != nulls {
		// Java writes and reads them (a MULTISET's NULL element, a NULL
		// key of a map whose key type is nullable); Arrow maps cannot
		// hold them.
		return fmt.Errorf("map key: a NULL key (a MULTISET's NULL element), which Java Paimon reads, cannot be read into an Arrow map: %w", types.ErrUnsupported)
	}
	if err := c.value.read(mb.ItemBuilder(), int(total), nil); err != nil {
		return fmt.Errorf("map value: %w", err)
	}
	mb.AppendValues(c.offs, validOrAll(valid, n, &c.valid))
	return nil
}

type structColumn struct {
	presence
	names    []string
	children []column
	all      []bool
}

func (c *structColumn) read(b array.Builder, n int, parent []bool) error {
	valid, _, err := c.rows(n, parent)
	if err != nil {
		return err
	}
	sb := b.(*array.StructBuilder)
	for i, ch := range c.children {
		if err := ch.read(sb.FieldBuilder(i), n, valid); err != nil {
			return fmt.Errorf("field %q: %w", c.names[i], err)
		}
	}
	sb.AppendValues(validOrAll(valid, n, &c.all))
	return nil
}

// typeMismatch names an ORC column that cannot be read as its Paimon type.
func typeMismatch(t orcType, pt types.DataType) error {
	return fmt.Errorf("ORC type %s cannot be read as Paimon %s", kindName(t.kind), pt)
}

// javaUTC1900 is 1900-01-01T00:00:00Z in epoch milliseconds: Java's legacy
// java.util.TimeZone (sun.util.calendar.ZoneInfo, behind java.sql.Timestamp
// and Paimon's DateTimeUtils) drops the zone's transitions before it.
const javaUTC1900 = -2208988800000

// javaZoneOffset is the offset in milliseconds that Java's legacy TimeZone
// gives loc at the instant millis: the zone database's offset from 1900 on,
// and before 1900 the zone's raw (standard) offset — not local mean time,
// which Go's database keeps (America/Los_Angeles in 1883: Java -8:00, tzdb
// -7:52:58). Java writes and reads ORC timestamps through that TimeZone, so
// its round trip is symmetric in its own offsets only.
func javaZoneOffset(loc *time.Location, rawOffset, millis int64) int64 {
	if millis < javaUTC1900 {
		return rawOffset
	}
	_, off := time.UnixMilli(millis).In(loc).Zone()
	return int64(off) * 1000
}

// zoneRawOffset is loc's standard offset in milliseconds as Java's
// TimeZone.getRawOffset reports it: the offset of whichever of two fixed
// future dates half a year apart is not in daylight saving time.
func zoneRawOffset(loc *time.Location) int64 {
	t := time.Date(2030, 1, 15, 12, 0, 0, 0, time.UTC).In(loc)
	if t.IsDST() {
		t = time.Date(2030, 7, 15, 12, 0, 0, 0, time.UTC).In(loc)
	}
	_, off := t.Zone()
	return int64(off) * 1000
}
