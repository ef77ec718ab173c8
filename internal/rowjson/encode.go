// Package rowjson renders the rows of the paimon library's Arrow records as
// JSON objects, losslessly: the message bodies of the Benthos input and the
// lines of the CLI's tail. It accepts exactly the Arrow types the library
// produces (docs/ARCHITECTURE.md, "Arrow mapping of Paimon types") and
// refuses any other with an error naming the column, so a mapping change in
// the library cannot silently produce a rendering nobody specified.
package rowjson

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Encoder writes the rows of Arrow records as JSON objects. It binds typed
// writers to a record's columns once (Reset) so that encoding a row is a walk
// over pre-resolved closures appending to a caller-owned buffer: no per-row
// maps, interfaces or reflection.
type Encoder struct {
	schema  *arrow.Schema
	keys    [][]byte // `"name":` per body column, with the leading comma where needed
	body    []int    // record column index of each body column
	rowKind int      // record column index of _row_kind, -1 if absent

	writers []valueWriter
	kinds   *array.String
	// dicts caches, per body column, the rendered entries of the last
	// dictionary seen, so batches sharing a dictionary (a Parquet column
	// chunk read as dictionary arrays) render each entry once.
	dicts []dictCache
}

// valueWriter appends the JSON of one value (null included) of a bound array.
type valueWriter func(dst []byte, i int) []byte

// NewEncoder prepares an encoder for records of one schema. It fails on a
// column whose Arrow type has no JSON rendering, naming the column, so a bad
// schema is reported once rather than per row.
func NewEncoder(schema *arrow.Schema) (*Encoder, error) {
	e := &Encoder{schema: schema, rowKind: -1}
	for i, f := range schema.Fields() {
		if f.Name == types.RowKindColumn {
			if f.Type.ID() != arrow.STRING {
				return nil, fmt.Errorf("column %s: want string, got %s", types.RowKindColumn, f.Type)
			}
			e.rowKind = i
			continue
		}
		if err := checkType(f.Type); err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		key := make([]byte, 0, len(f.Name)+4)
		if len(e.body) > 0 {
			key = append(key, ',')
		}
		key = appendJSONString(key, f.Name)
		key = append(key, ':')
		e.keys = append(e.keys, key)
		e.body = append(e.body, i)
	}
	return e, nil
}

// Schema is the schema the encoder was built for.
func (e *Encoder) Schema() *arrow.Schema { return e.schema }

// HasRowKind reports whether records carry the _row_kind column.
func (e *Encoder) HasRowKind() bool { return e.rowKind >= 0 }

// Reset binds the encoder to a record of its schema. The record must stay
// alive (not released) while rows are encoded from it.
//
// A string or binary column may arrive dictionary-encoded
// (paimon.ReadOptions.Dictionary) where the schema has the plain type, and
// batches of one read may mix both: each renders the same JSON.
func (e *Encoder) Reset(rec arrow.RecordBatch) error {
	if rs := rec.Schema(); rs != e.schema && !sameUpToDictionary(rs, e.schema) {
		return fmt.Errorf("record schema %s differs from encoder schema %s", rec.Schema(), e.schema)
	}
	if e.dicts == nil {
		e.dicts = make([]dictCache, len(e.body))
	}
	e.writers = e.writers[:0]
	for j, c := range e.body {
		w, err := bindColumn(rec.Column(c), &e.dicts[j])
		if err != nil {
			return fmt.Errorf("column %q: %w", e.schema.Field(c).Name, err)
		}
		e.writers = append(e.writers, w)
	}
	e.kinds = nil
	if e.rowKind >= 0 {
		e.kinds = rec.Column(e.rowKind).(*array.String)
	}
	return nil
}

// AppendRow appends row i of the bound record as one JSON object. Like
// append it may write anywhere in dst's spare capacity, including a few
// bytes past the end of what it appends.
func (e *Encoder) AppendRow(dst []byte, i int) []byte {
	dst = append(dst, '{')
	for j, w := range e.writers {
		dst = append(dst, e.keys[j]...)
		dst = w(dst, i)
	}
	return append(dst, '}')
}

// AppendRowWithKind appends row i like AppendRow, with the row kind as
// the first key (types.RowKindColumn) when the records carry one: the
// shape of a self-describing JSON line (the CLI's tail), where the Benthos
// input moves the kind to metadata instead.
func (e *Encoder) AppendRowWithKind(dst []byte, i int) []byte {
	if !e.HasRowKind() {
		return e.AppendRow(dst, i)
	}
	dst = append(dst, '{')
	dst = appendJSONString(dst, types.RowKindColumn)
	dst = append(dst, ':')
	if k, ok := e.RowKind(i); ok {
		dst = appendJSONString(dst, k.String())
	} else if e.kinds.IsNull(i) {
		dst = append(dst, "null"...)
	} else {
		dst = appendJSONString(dst, e.kinds.Value(i))
	}
	start := len(dst)
	dst = e.AppendRow(dst, i)
	// AppendRow wrote "{...}": "{}" becomes nothing, "{" a comma.
	if len(dst)-start == 2 {
		return append(dst[:start], '}')
	}
	dst[start] = ','
	return dst
}

// RowKind returns the row kind of row i; ok is false when the record has
// no row kind column or row i's is not one of the four kinds.
func (e *Encoder) RowKind(i int) (k types.RowKind, ok bool) {
	if e.kinds == nil || e.kinds.IsNull(i) {
		return 0, false
	}
	return types.ParseRowKind(e.kinds.Value(i))
}

var errUnsupportedArrow = errors.New("no JSON rendering for Arrow type")

// checkType accepts the Arrow types of the library's mapping and nothing
// else. The row kind column is checked apart.
func checkType(t arrow.DataType) error {
	switch t := t.(type) {
	case *arrow.BooleanType,
		*arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.Decimal128Type,
		*arrow.StringType, *arrow.BinaryType, *arrow.Date32Type:
		return nil
	case *arrow.Time32Type:
		if t.Unit == arrow.Millisecond {
			return nil
		}
	case *arrow.TimestampType:
		// No zone (TIMESTAMP) or UTC (WITH LOCAL TIME ZONE): the renderings
		// are a local date-time and a Z-suffixed UTC one; another zone would
		// be rendered wrongly as UTC.
		if t.Unit != arrow.Second && (t.TimeZone == "" || t.TimeZone == "UTC") {
			return nil
		}
	case *types.WideTimestampType:
		// TIMESTAMP(7..9) read with wide timestamps: every value Java
		// reads, years 0001..9999, rendered as the nanosecond unit is.
		return nil
	case *arrow.DictionaryType:
		// The library returns top-level string and binary columns
		// dictionary-encoded on request (paimon.ReadOptions.Dictionary).
		if arrow.IsInteger(t.IndexType.ID()) && (t.ValueType.ID() == arrow.STRING || t.ValueType.ID() == arrow.BINARY) {
			return nil
		}
	case *arrow.MapType:
		if err := checkType(t.KeyType()); err != nil {
			return fmt.Errorf("map key: %w", err)
		}
		if err := checkType(t.ItemType()); err != nil {
			return fmt.Errorf("map value: %w", err)
		}
		return nil
	case *arrow.ListType:
		return checkType(t.Elem())
	case *arrow.FixedSizeListType:
		return checkType(t.Elem())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if err := checkType(f.Type); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("%w %s (not one the paimon library produces)", errUnsupportedArrow, t)
}

var nullJSON = []byte("null")

// withNulls adds the null check to a writer of non-null values, only when
// the array has nulls: most columns have none, and the validity lookup per
// value showed in the end-to-end profile.
func withNulls(a arrow.Array, w valueWriter) valueWriter {
	if a.NullN() == 0 {
		return w
	}
	return func(dst []byte, i int) []byte {
		if a.IsNull(i) {
			return append(dst, nullJSON...)
		}
		return w(dst, i)
	}
}

// bindColumn binds a top-level column: dictionary arrays use (and refill)
// the column's cache of rendered entries.
func bindColumn(arr arrow.Array, dc *dictCache) (valueWriter, error) {
	if d, ok := arr.(*array.Dictionary); ok {
		return dictWriter(d, dc)
	}
	return bindWriter(arr)
}

func bindWriter(arr arrow.Array) (valueWriter, error) {
	switch a := arr.(type) {
	case *array.Boolean:
		return withNulls(a, func(dst []byte, i int) []byte {
			return strconv.AppendBool(dst, a.Value(i))
		}), nil
	case *array.Int8:
		return signedWriter(a, a.Int8Values()), nil
	case *array.Int16:
		return signedWriter(a, a.Int16Values()), nil
	case *array.Int32:
		return signedWriter(a, a.Int32Values()), nil
	case *array.Int64:
		return signedWriter(a, a.Int64Values()), nil
	case *array.Float32:
		vs := a.Float32Values()
		return withNulls(a, func(dst []byte, i int) []byte {
			return appendFloat(dst, float64(vs[i]), 32)
		}), nil
	case *array.Float64:
		vs := a.Float64Values()
		return withNulls(a, func(dst []byte, i int) []byte {
			return appendFloat(dst, vs[i], 64)
		}), nil
	case *array.Decimal128:
		scale := int(a.DataType().(*arrow.Decimal128Type).Scale)
		return withNulls(a, func(dst []byte, i int) []byte {
			dst = append(dst, '"')
			dst = appendDecimal128(dst, a.Value(i), scale)
			return append(dst, '"')
		}), nil
	case *array.String:
		return withNulls(a, func(dst []byte, i int) []byte {
			return appendJSONString(dst, a.Value(i))
		}), nil
	case *array.Binary:
		return withNulls(a, func(dst []byte, i int) []byte {
			return appendBase64(dst, a.Value(i))
		}), nil
	case *array.Dictionary:
		// Not produced below the top level; rendered exactly all the same.
		return dictWriter(a, new(dictCache))
	case *array.Date32:
		var day dayCache
		vs := a.Date32Values()
		return withNulls(a, func(dst []byte, i int) []byte {
			dst = append(dst, '"')
			dst = day.append(dst, int64(vs[i]))
			return append(dst, '"')
		}), nil
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		vs := a.Time32Values()
		return withNulls(a, func(dst []byte, i int) []byte {
			return appendTimeOfDay(dst, int64(vs[i]), unit)
		}), nil
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		unit, zoned := tt.Unit, tt.TimeZone != ""
		var sc secondCache
		vs := a.TimestampValues()
		return withNulls(a, func(dst []byte, i int) []byte {
			return appendTimestamp(dst, int64(vs[i]), unit, zoned, &sc)
		}), nil
	case *types.WideTimestampArray:
		zoned := a.DataType().(*types.WideTimestampType).LTZ
		var sc secondCache
		return withNulls(a, func(dst []byte, i int) []byte {
			return appendWideTimestamp(dst, a.Value(i), zoned, &sc)
		}), nil
	case *array.Map:
		return mapWriter(a)
	case array.ListLike:
		elem, err := bindWriter(a.ListValues())
		if err != nil {
			return nil, err
		}
		return withNulls(a, func(dst []byte, i int) []byte {
			start, end := a.ValueOffsets(i)
			dst = append(dst, '[')
			for j := start; j < end; j++ {
				if j > start {
					dst = append(dst, ',')
				}
				dst = elem(dst, int(j))
			}
			return append(dst, ']')
		}), nil
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		keys := make([][]byte, st.NumFields())
		fields := make([]valueWriter, st.NumFields())
		for k, f := range st.Fields() {
			w, err := bindWriter(a.Field(k))
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", f.Name, err)
			}
			fields[k] = w
			if k > 0 {
				keys[k] = append(keys[k], ',')
			}
			keys[k] = appendJSONString(keys[k], f.Name)
			keys[k] = append(keys[k], ':')
		}
		return withNulls(a, func(dst []byte, i int) []byte {
			dst = append(dst, '{')
			for k, w := range fields {
				dst = append(dst, keys[k]...)
				dst = w(dst, i)
			}
			return append(dst, '}')
		}), nil
	}
	return nil, fmt.Errorf("%w %s", errUnsupportedArrow, arr.DataType())
}

// signedWriter indexes the column's value slice directly:
// integer columns are in every table, and a getter call per value showed in
// the end-to-end profile. Each integer width gets its own instantiation.
func signedWriter[T int8 | int16 | int32 | int64](a arrow.Array, vs []T) valueWriter {
	return withNulls(a, func(dst []byte, i int) []byte {
		return appendInt(dst, int64(vs[i]))
	})
}

// appendBase64 writes b as a JSON string of its standard base64.
func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// mapWriter renders string-keyed maps as objects (the natural JSON shape) and
// any other key type as a list of {"key","value"} objects, because JSON object
// keys must be strings and stringifying e.g. an INT key would lose its type.
// Duplicate string keys, which Paimon never writes, are emitted as stored.
func mapWriter(a *array.Map) (valueWriter, error) {
	keyType := a.DataType().(*arrow.MapType).KeyType().ID()
	keys, err := bindWriter(a.Keys())
	if err != nil {
		return nil, fmt.Errorf("map key: %w", err)
	}
	items, err := bindWriter(a.Items())
	if err != nil {
		return nil, fmt.Errorf("map value: %w", err)
	}
	if keyType == arrow.STRING {
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return append(dst, nullJSON...)
			}
			start, end := a.ValueOffsets(i)
			dst = append(dst, '{')
			for j := start; j < end; j++ {
				if j > start {
					dst = append(dst, ',')
				}
				// Arrow forbids null map keys; a corrupt one still has to
				// produce a valid object key.
				if a.Keys().IsNull(int(j)) {
					dst = append(dst, `"null"`...)
				} else {
					dst = keys(dst, int(j))
				}
				dst = append(dst, ':')
				dst = items(dst, int(j))
			}
			return append(dst, '}')
		}, nil
	}
	return func(dst []byte, i int) []byte {
		if a.IsNull(i) {
			return append(dst, nullJSON...)
		}
		start, end := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"key":`...)
			dst = keys(dst, int(j))
			dst = append(dst, `,"value":`...)
			dst = items(dst, int(j))
			dst = append(dst, '}')
		}
		return append(dst, ']')
	}, nil
}

// appendFloat writes a float as the shortest JSON number that parses back to
// the same value at its width, and NaN/±Inf, which JSON lacks, as strings.
// The exponent switch points match encoding/json so outputs look familiar.
// Normal doubles take appendShortest (ftoa.go); zero, subnormals and FLOAT
// columns, rare or cheap enough, strconv.
func appendFloat(dst []byte, f float64, bits int) []byte {
	if bits == 64 {
		if out, ok := appendShortest(dst, f, math.Float64bits(f)); ok {
			return out
		}
	}
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		m := len(dst) - n
		if m >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// pow10u64[k] is 10^k.
var pow10u64 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// decimalLen is the number of decimal digits of u (1 for 0).
func decimalLen(u uint64) int {
	// bits.Len64·1233/4096 is floor(log10) of the top bit's value: the
	// digit count or one less.
	t := bits.Len64(u) * 1233 >> 12
	if u >= pow10u64[t] {
		t++
	}
	return max(t, 1)
}

// appendUint writes u in decimal, as strconv.AppendUint(dst, u, 10) does,
// two digits per division straight into dst (strconv formats into a
// scratch array and copies): integer columns are in every table.
func appendUint(dst []byte, u uint64) []byte {
	if u < 10 {
		return append(dst, byte('0'+u))
	}
	if u < 1e8 {
		return appendUpTo8(dst, uint32(u))
	}
	return appendDigits(dst, u, decimalLen(u))
}

// appendUpTo8 writes v < 10^8 in decimal with one 8-byte store. The digit
// count comes from the digits themselves: before '0' is added a leading
// zero digit is a zero byte, so the trailing zero bits of swar8's lanes
// count them, where decimalLen needed a table load and a compare.
func appendUpTo8(dst []byte, v uint32) []byte {
	raw := swar8Lanes(v)
	z := min(bits.TrailingZeros64(raw)>>3, 7) // v = 0 is one digit
	n := len(dst)
	dst = slices.Grow(dst, 8)
	binary.LittleEndian.PutUint64(dst[n:n+8], (raw+0x30303030_30303030)>>(8*z))
	return dst[:n+8-z]
}

// appendInt writes v in decimal, as strconv.AppendInt(dst, v, 10) does.
func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		// -MinInt64 overflows back to itself, which as a uint64 is 2^63.
		return appendUint(append(dst, '-'), uint64(-v))
	}
	return appendUint(dst, uint64(v))
}

// digitPairs is "00" through "99", for writing two digits per division.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// appendDigits writes v zero-padded to exactly width digits; v must be below
// 10^width and width at most 20. Eight digits at a time by swar8, each group
// one 8-byte store: a two-digits-per-division loop is one long chain of
// multiplications, table loads and byte stores (that loop was a fifth of
// the encoder's CPU on bench.wide). The stores may write up to eight bytes
// past the digits, inside the capacity grown for them and beyond len.
func appendDigits(dst []byte, v uint64, width int) []byte {
	if width <= 0 {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, width+8)
	b := dst[n : n+width+8]
	switch {
	case width <= 8:
		binary.LittleEndian.PutUint64(b, swar8(uint32(v))>>(8*(8-width)))
	case width <= 16:
		hi := v / 1e8
		w := width - 8
		binary.LittleEndian.PutUint64(b, swar8(uint32(hi))>>(8*(8-w)))
		binary.LittleEndian.PutUint64(b[w:], swar8(uint32(v-hi*1e8)))
	default:
		top := v / 1e16 // below 1845
		v -= top * 1e16
		mid := v / 1e8
		w := width - 16
		binary.LittleEndian.PutUint64(b, swar8(uint32(top))>>(8*(8-w)))
		binary.LittleEndian.PutUint64(b[w:], swar8(uint32(mid)))
		binary.LittleEndian.PutUint64(b[w+8:], swar8(uint32(v-mid*1e8)))
	}
	return dst[:n+width]
}

// swar8 returns v < 10^8 as eight ASCII digits, the most significant in
// the low byte (so a little-endian store writes them in order, and a right
// shift by 8k bytes drops k leading zeros). The divisions work on all lanes
// of one uint64 at once, each lane small enough that no product carries
// into the next: v/10^4 and v%10^4 in 32-bit lanes, their /100 and %100 in
// 16-bit lanes (n/100 = n·5243>>19 for n < 43699), then /10 and %10 in
// 8-bit lanes (n/10 = n·103>>10 for n < 179).
func swar8(v uint32) uint64 { return swar8Lanes(v) + 0x30303030_30303030 }

// swar8Lanes is swar8 before '0' is added: each byte one digit's value.
func swar8Lanes(v uint32) uint64 {
	hi := v / 10000
	x := uint64(hi) | uint64(v-hi*10000)<<32
	q := (x * 5243 >> 19) & 0x0000007F_0000007F
	y := q | (x-q*100)<<16
	t := (y * 103 >> 10) & 0x000F_000F_000F_000F
	return t | (y-t*10)<<8
}

// appendDecimal128 writes unscaled×10^-scale in plain notation with exactly
// scale fraction digits. Values that fit an int64 (nearly all) avoid big.Int.
func appendDecimal128(dst []byte, n decimal128.Num, scale int) []byte {
	var digits []byte
	var tmp [40]byte
	neg := n.Sign() < 0
	hi, lo := n.HighBits(), n.LowBits()
	if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
		v := int64(lo)
		if v < 0 {
			digits = appendUint(tmp[:0], uint64(-v)) // -MinInt64 wraps to itself, and as uint64 is exact
		} else {
			digits = appendUint(tmp[:0], uint64(v))
		}
	} else {
		b := n.BigInt()
		digits = new(big.Int).Abs(b).Append(tmp[:0], 10)
	}
	if neg {
		dst = append(dst, '-')
	}
	if scale <= 0 {
		dst = append(dst, digits...)
		for k := 0; k < -scale; k++ {
			dst = append(dst, '0')
		}
		return dst
	}
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		for k := len(digits); k < scale; k++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-scale:]...)
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's days_from_civil inverse), avoiding time.Time per value.
func civil(days int64) (y int64, m, d int) {
	z := days + 719468
	era := arith.FloorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func appendPad(dst []byte, v int64, width int) []byte {
	// Date and time fields are almost always small and non-negative: write
	// them straight in, which is what timestamp columns spend most on.
	if v >= 0 && width >= 1 && width <= 9 {
		lim := int64(1)
		for range width {
			lim *= 10
		}
		if v < lim {
			return appendDigits(dst, uint64(v), width)
		}
	}
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for k := len(s); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendDate writes YYYY-MM-DD; years outside 0..9999 keep ISO 8601's sign
// and at least four digits.
func appendDate(dst []byte, days int64) []byte {
	y, m, d := civil(days)
	if y >= 0 && y <= 9999 {
		hi, lo := y/100, y%100
		return append(dst, digitPairs[2*hi], digitPairs[2*hi+1], digitPairs[2*lo], digitPairs[2*lo+1], '-',
			digitPairs[2*m], digitPairs[2*m+1], '-', digitPairs[2*d], digitPairs[2*d+1])
	}
	if y < 0 {
		dst = append(dst, '-')
		y = -y
	}
	dst = appendPad(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPad(dst, int64(m), 2)
	dst = append(dst, '-')
	return appendPad(dst, int64(d), 2)
}

// dayCache remembers the month of the last date a column rendered, as its
// "YYYY-MM-" text: neighbouring rows of date and timestamp columns mostly
// fall in the same month (data is written in time order), and the calendar
// conversion was a large part of their cost. The zero value is ready; each
// bound column writer has its own, so an Encoder is used by one goroutine
// at a time (as Reset already requires).
type dayCache struct {
	first int64 // days of the month's first day
	n     int64 // days in the month; 0: nothing cached
	text  [8]byte
}

// append writes days as appendDate does.
func (c *dayCache) append(dst []byte, days int64) []byte {
	if d := days - c.first; d >= 0 && d < c.n {
		d++
		return append(append(dst, c.text[:]...), digitPairs[2*d], digitPairs[2*d+1])
	}
	y, m, d := civil(days)
	if y < 0 || y > 9999 {
		c.n = 0
		return appendDate(dst, days)
	}
	c.first, c.n = days-int64(d-1), int64(daysInMonth(y, m))
	var tmp [10]byte
	copy(c.text[:], appendDate(tmp[:0], c.first)) // YYYY-MM-01: the first 8 bytes are the month's
	return append(append(dst, c.text[:]...), digitPairs[2*d], digitPairs[2*d+1])
}

// daysInMonth is the length of month m of the proleptic Gregorian year y.
func daysInMonth(y int64, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// secondCache remembers the "YYYY-MM-DDTHH:MM:SS" a timestamp column
// rendered last: rows written in time order mostly share their second with
// the previous row, leaving only the fraction digits to write.
type secondCache struct {
	valid bool
	sec   int64
	n     int
	text  [32]byte // the longest date (19 bytes), 'T' and HH:MM:SS
	day   dayCache
}

// append writes the date and clock of sec (seconds since the epoch) as
// appendTimestamp's prefix.
func (c *secondCache) append(dst []byte, sec int64) []byte {
	if !c.valid || c.sec != sec {
		days := arith.FloorDiv(sec, 86400)
		out := c.day.append(c.text[:0], days)
		out = append(out, 'T')
		out = appendHMS(out, sec-days*86400)
		if len(out) > len(c.text) {
			c.valid = false // cannot happen for int64 seconds; never index past the array
			return append(dst, out...)
		}
		c.n = len(out)
		c.sec, c.valid = sec, true
	}
	return append(dst, c.text[:c.n]...)
}

func unitPerSecond(u arrow.TimeUnit) (perSec int64, digits int) {
	switch u {
	case arrow.Second:
		return 1, 0
	case arrow.Millisecond:
		return 1_000, 3
	case arrow.Microsecond:
		return 1_000_000, 6
	default:
		return 1_000_000_000, 9
	}
}

func appendClock(dst []byte, secOfDay int64, frac int64, digits int) []byte {
	dst = appendHMS(dst, secOfDay)
	if digits > 0 {
		dst = append(dst, '.')
		dst = appendDigits(dst, uint64(frac), digits) // 0 <= frac < 10^digits
	}
	return dst
}

// appendHMS writes HH:MM:SS of a non-negative second count; hours past 99
// (a corrupt TIME) take as many digits as they need.
func appendHMS(dst []byte, secOfDay int64) []byte {
	if secOfDay < 100*3600 {
		h, m, s := secOfDay/3600, secOfDay/60%60, secOfDay%60
		return append(dst, digitPairs[2*h], digitPairs[2*h+1], ':', digitPairs[2*m], digitPairs[2*m+1], ':', digitPairs[2*s], digitPairs[2*s+1])
	}
	return appendClockSlow(dst, secOfDay, 0, 0)
}

// appendClockSlow is the general rendering appendClock's digit-pair paths
// must equal.
func appendClockSlow(dst []byte, secOfDay int64, frac int64, digits int) []byte {
	dst = appendPad(dst, secOfDay/3600, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, secOfDay/60%60, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, secOfDay%60, 2)
	if digits > 0 {
		dst = append(dst, '.')
		dst = appendPad(dst, frac, digits)
	}
	return dst
}

// appendTimeOfDay writes "HH:MM:SS" plus the unit's fraction digits. A value
// outside one day (corrupt data) is still rendered, never wrapped silently
// into another valid time: hours just exceed 23.
func appendTimeOfDay(dst []byte, v int64, unit arrow.TimeUnit) []byte {
	perSec, digits := unitPerSecond(unit)
	sec, frac := arith.FloorDiv(v, perSec), v-arith.FloorDiv(v, perSec)*perSec
	dst = append(dst, '"')
	if sec < 0 {
		dst = append(dst, '-')
		sec = -sec
	}
	dst = appendClock(dst, sec, frac, digits)
	return append(dst, '"')
}

// appendTimestamp writes an ISO 8601 date-time with the unit's fraction
// digits. Zoned (LTZ) values are instants and get "Z"; zone-less ones are
// local date-times and get no offset, because inventing one would change
// their meaning.
func appendTimestamp(dst []byte, v int64, unit arrow.TimeUnit, zoned bool, sc *secondCache) []byte {
	perSec, digits := unitPerSecond(unit)
	sec := arith.FloorDiv(v, perSec)
	return appendDateTime(dst, sec, v-sec*perSec, digits, zoned, sc)
}

// appendWideTimestamp writes a types.WideTimestampType value exactly as
// appendTimestamp writes the nanosecond unit: the same text for the values
// both hold, and the years beyond Arrow's nanosecond range too.
func appendWideTimestamp(dst []byte, v types.TimestampValue, zoned bool, sc *secondCache) []byte {
	sec := arith.FloorDiv(v.Millis, 1000)
	frac := (v.Millis-sec*1000)*1_000_000 + int64(v.NanoOfMilli)
	return appendDateTime(dst, sec, frac, 9, zoned, sc)
}

// appendDateTime writes the quoted date-time of sec (seconds since the
// epoch) and frac, digits fraction digits of the second.
func appendDateTime(dst []byte, sec, frac int64, digits int, zoned bool, sc *secondCache) []byte {
	dst = append(dst, '"')
	dst = sc.append(dst, sec)
	if digits > 0 {
		dst = append(dst, '.')
		dst = appendDigits(dst, uint64(frac), digits) // 0 <= frac < 10^digits
	}
	if zoned {
		dst = append(dst, 'Z')
	}
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD
// (as encoding/json does) so the document stays valid; U+2028/U+2029 are
// escaped so the output is also safe to embed in JavaScript.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// TimestampText is the text a message body holds for a TIMESTAMP (zoned
// false) or TIMESTAMP_LTZ (zoned true) value v in unit, without the JSON
// quotes: metadata that carries the same value (paimon_partition) uses it so
// that the two never disagree on zone or digits.
func TimestampText(v int64, unit arrow.TimeUnit, zoned bool) string {
	b := appendTimestamp(nil, v, unit, zoned, &secondCache{})
	return string(b[1 : len(b)-1])
}
