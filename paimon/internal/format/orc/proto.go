package orc

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The ORC file tail is protobuf (orc_proto.proto). Only the messages and
// fields a reader needs are decoded, by hand with protowire: generated code
// would add a second copy of the schema for a dozen messages, and decoding
// by field number keeps unknown fields (encryption, future additions)
// harmlessly skipped.

// Compression kinds of PostScript.compression.
const (
	compNone   = 0
	compZlib   = 1
	compSnappy = 2
	compLZO    = 3
	compLZ4    = 4
	compZstd   = 5
)

var compressionNames = map[uint64]string{compNone: "NONE", compZlib: "ZLIB", compSnappy: "SNAPPY", compLZO: "LZO", compLZ4: "LZ4", compZstd: "ZSTD"}

// Type kinds of Type.kind.
const (
	kBoolean = iota
	kByte
	kShort
	kInt
	kLong
	kFloat
	kDouble
	kString
	kBinary
	kTimestamp
	kList
	kMap
	kStruct
	kUnion
	kDecimal
	kDate
	kVarchar
	kChar
	kTimestampInstant
)

var kindNames = []string{"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "binary", "timestamp", "array", "map", "struct", "uniontype", "decimal", "date", "varchar", "char", "timestamp with local time zone"}

func kindName(k uint64) string {
	if k < uint64(len(kindNames)) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// Stream kinds of Stream.kind.
const (
	sPresent        = 0
	sData           = 1
	sLength         = 2
	sDictionaryData = 3
	sSecondary      = 5
	sRowIndex       = 6
)

// Column encodings of ColumnEncoding.kind.
const (
	encDirect       = 0
	encDictionary   = 1
	encDirectV2     = 2
	encDictionaryV2 = 3
)

type postScript struct {
	footerLength   uint64
	compression    uint64
	blockSize      uint64
	version        []uint64
	metadataLength uint64
	magic          string
}

type orcType struct {
	kind       uint64
	subtypes   []uint64
	fieldNames []string
	maxLength  uint64
	precision  uint64
	scale      uint64
	attrs      map[string]string
}

type stripeInfo struct {
	offset, indexLength, dataLength, footerLength, numRows uint64
}

type footer struct {
	stripes   []stripeInfo
	types     []orcType
	numRows   uint64
	stats     []colStats
	rowStride uint64
}

type stream struct {
	kind, column, length uint64
}

type encoding struct {
	kind, dictSize uint64
}

type stripeFooter struct {
	streams   []stream
	encodings []encoding
	timezone  string
}

// colStats is a decoded ColumnStatistics; the has* flags say which optional
// fields the writer set (an absent bound is unknown, never zero).
type colStats struct {
	numValues    uint64
	hasNumValues bool
	hasNull      *bool

	hasInt         bool
	intMin, intMax int64
	hasIntMin      bool
	hasIntMax      bool

	hasDouble            bool
	dblMin, dblMax       float64
	hasDblMin, hasDblMax bool

	hasString              bool
	strMin, strMax         *string
	strLower, strUpper     *string
	hasBucket              bool
	bucket                 []uint64
	hasDecimal             bool
	decMin, decMax         *string
	hasDate                bool
	dateMin, dateMax       *int32
	hasTimestamp           bool
	tsMin, tsMax           *int64
	tsMinUTC, tsMaxUTC     *int64
	tsMinNanos, tsMaxNanos *int32
}

var errTruncated = errors.New("truncated protobuf")

// fields calls fn for every field of message b. fn gets the field number,
// wire type and the field's value bytes (for varint/fixed: the raw value
// in v). Unknown fields are skipped by the caller's default branch.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("protobuf tag: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var raw []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.BytesType:
			raw, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("protobuf field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, v, raw); err != nil {
			return err
		}
	}
	return nil
}

// uints appends a repeated uint field, packed or not.
func uints(dst []uint64, typ protowire.Type, v uint64, raw []byte) ([]uint64, error) {
	if typ == protowire.VarintType {
		return append(dst, v), nil
	}
	if typ != protowire.BytesType {
		return dst, fmt.Errorf("repeated integer field with wire type %d", typ)
	}
	for len(raw) > 0 {
		x, n := protowire.ConsumeVarint(raw)
		if n < 0 {
			return dst, errTruncated
		}
		dst = append(dst, x)
		raw = raw[n:]
	}
	return dst, nil
}

// A setter stores one occurrence of a message field: v is the value of a
// varint or fixed field, raw the bytes of a length-delimited one.
type setter func(typ protowire.Type, v uint64, raw []byte) error

// decode decodes message b, handing field n to set[n-1]. Fields without a
// setter (nil or beyond set) are skipped, as unknown fields must be.
func decode(b []byte, set ...setter) error { return fields(b, setters(set).field) }

// setters hands field n to its n-th element.
type setters []setter

func (set setters) field(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
	if num < 1 || int(num) > len(set) || set[num-1] == nil {
		return nil
	}
	return set[num-1](typ, v, raw)
}

// The setters of the field types the ORC tail uses.

func u64(p *uint64) setter {
	return func(_ protowire.Type, v uint64, _ []byte) error { *p = v; return nil }
}

func str(p *string) setter {
	return func(_ protowire.Type, _ uint64, raw []byte) error { *p = string(raw); return nil }
}

func strPtr(p **string) setter {
	return func(_ protowire.Type, _ uint64, raw []byte) error { s := string(raw); *p = &s; return nil }
}

func repeatedU64(p *[]uint64) setter {
	return func(typ protowire.Type, v uint64, raw []byte) (err error) {
		*p, err = uints(*p, typ, v, raw)
		return err
	}
}

// sint64 stores a zigzag-encoded sint64 and marks it present.
func sint64(p *int64, has *bool) setter {
	return func(_ protowire.Type, v uint64, _ []byte) error {
		*p, *has = protowire.DecodeZigZag(v), true
		return nil
	}
}

// sintPtr stores a zigzag-encoded sint32 or sint64 as a present value.
func sintPtr[T int32 | int64](p **T) setter {
	return func(_ protowire.Type, v uint64, _ []byte) error {
		x := T(protowire.DecodeZigZag(v))
		*p = &x
		return nil
	}
}

// int32Ptr stores a plain (not zigzag) int32 as a present value.
func int32Ptr(p **int32) setter {
	return func(_ protowire.Type, v uint64, _ []byte) error {
		x := int32(v)
		*p = &x
		return nil
	}
}

// double stores a double and marks it present; a double in any other wire
// type is ignored.
func double(p *float64, has *bool) setter {
	return func(typ protowire.Type, v uint64, _ []byte) error {
		if typ == protowire.Fixed64Type {
			*p, *has = math.Float64frombits(v), true
		}
		return nil
	}
}

// message marks a sub-message field present in has and decodes it with set.
func message(has *bool, set ...setter) setter {
	return func(_ protowire.Type, _ uint64, raw []byte) error {
		*has = true
		return decode(raw, set...)
	}
}

// appendParsed appends each occurrence of a repeated message field, decoded
// with parse; what, when set, names the n-th occurrence in its error.
func appendParsed[T any](p *[]T, parse func([]byte) (T, error), what func(n int) string) setter {
	return func(_ protowire.Type, _ uint64, raw []byte) error {
		x, err := parse(raw)
		if err != nil {
			if what == nil {
				return err
			}
			return fmt.Errorf("%s: %w", what(len(*p)), err)
		}
		*p = append(*p, x)
		return nil
	}
}

func named(s string) func(int) string { return func(int) string { return s } }

// refuse fails on a field this reader cannot honour.
func refuse(msg string) setter {
	return func(protowire.Type, uint64, []byte) error { return errors.New(msg) }
}

func parsePostScript(b []byte) (ps postScript, err error) {
	head := setters{u64(&ps.footerLength), u64(&ps.compression), u64(&ps.blockSize), repeatedU64(&ps.version), u64(&ps.metadataLength)}
	err = fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		// The magic "ORC" is field 8000, far from the others.
		if num == 8000 {
			ps.magic = string(raw)
			return nil
		}
		return head.field(num, typ, v, raw)
	})
	return ps, err
}

func parseFooter(b []byte) (f footer, err error) {
	err = decode(b, nil, nil,
		appendParsed(&f.stripes, parseStripeInfo, named("stripe information")),
		appendParsed(&f.types, parseType, func(n int) string { return fmt.Sprintf("type %d", n) }),
		nil, u64(&f.numRows),
		appendParsed(&f.stats, parseColStats, named("column statistics")),
		u64(&f.rowStride), nil,
		refuse("encrypted ORC files are not supported"))
	return f, err
}

func parseStripeInfo(b []byte) (s stripeInfo, err error) {
	err = decode(b, u64(&s.offset), u64(&s.indexLength), u64(&s.dataLength), u64(&s.footerLength), u64(&s.numRows))
	return s, err
}

func parseType(b []byte) (t orcType, err error) {
	fieldName := func(_ protowire.Type, _ uint64, raw []byte) error {
		t.fieldNames = append(t.fieldNames, string(raw))
		return nil
	}
	attr := func(_ protowire.Type, _ uint64, raw []byte) error {
		var k, val string
		err := decode(raw, str(&k), str(&val))
		if t.attrs == nil {
			t.attrs = map[string]string{}
		}
		t.attrs[k] = val
		return err
	}
	err = decode(b, u64(&t.kind), repeatedU64(&t.subtypes), fieldName, u64(&t.maxLength), u64(&t.precision), u64(&t.scale), attr)
	return t, err
}

func parseStripeFooter(b []byte) (sf stripeFooter, err error) {
	err = decode(b,
		appendParsed(&sf.streams, parseStream, named("stream")),
		appendParsed(&sf.encodings, parseEncoding, named("column encoding")),
		str(&sf.timezone),
		refuse("encrypted ORC stripes are not supported"))
	return sf, err
}

func parseStream(b []byte) (s stream, err error) {
	err = decode(b, u64(&s.kind), u64(&s.column), u64(&s.length))
	return s, err
}

func parseEncoding(b []byte) (e encoding, err error) {
	err = decode(b, u64(&e.kind), u64(&e.dictSize))
	return e, err
}

// parseMetadata returns the per-stripe column statistics.
func parseMetadata(b []byte) (out [][]colStats, err error) {
	stripe := func(b []byte) (cs []colStats, err error) {
		err = decode(b, appendParsed(&cs, parseColStats, nil))
		return cs, err
	}
	err = decode(b, appendParsed(&out, stripe, named("stripe statistics")))
	return out, err
}

func parseColStats(b []byte) (s colStats, err error) {
	numValues := func(_ protowire.Type, v uint64, _ []byte) error {
		s.numValues, s.hasNumValues = v, true
		return nil
	}
	hasNull := func(_ protowire.Type, v uint64, _ []byte) error {
		h := v != 0
		s.hasNull = &h
		return nil
	}
	err = decode(b, numValues,
		message(&s.hasInt, sint64(&s.intMin, &s.hasIntMin), sint64(&s.intMax, &s.hasIntMax)),
		message(&s.hasDouble, double(&s.dblMin, &s.hasDblMin), double(&s.dblMax, &s.hasDblMax)),
		message(&s.hasString, strPtr(&s.strMin), strPtr(&s.strMax), nil, strPtr(&s.strLower), strPtr(&s.strUpper)),
		message(&s.hasBucket, repeatedU64(&s.bucket)),
		message(&s.hasDecimal, strPtr(&s.decMin), strPtr(&s.decMax)),
		message(&s.hasDate, sintPtr(&s.dateMin), sintPtr(&s.dateMax)),
		nil, // binary statistics: only a total length
		message(&s.hasTimestamp, sintPtr(&s.tsMin), sintPtr(&s.tsMax), sintPtr(&s.tsMinUTC), sintPtr(&s.tsMaxUTC),
			int32Ptr(&s.tsMinNanos), int32Ptr(&s.tsMaxNanos)),
		hasNull)
	return s, err
}

// rowIndexEntry is one row group of a column's ROW_INDEX stream: where each
// of the column's streams stood when the group began, and the group's
// statistics.
type rowIndexEntry struct {
	positions []uint64
	stats     colStats
	hasStats  bool
}

// parseRowIndex decodes a RowIndex message.
func parseRowIndex(b []byte) (out []rowIndexEntry, err error) {
	entry := appendParsed(&out, parseRowIndexEntry, func(n int) string { return fmt.Sprintf("row index entry %d", n) })
	err = decode(b, func(typ protowire.Type, v uint64, raw []byte) error {
		if typ != protowire.BytesType {
			return fmt.Errorf("row index entry with wire type %d", typ)
		}
		return entry(typ, v, raw)
	})
	return out, err
}

func parseRowIndexEntry(b []byte) (e rowIndexEntry, err error) {
	stats := func(_ protowire.Type, _ uint64, raw []byte) (err error) {
		e.stats, err = parseColStats(raw)
		e.hasStats = err == nil
		return err
	}
	err = decode(b, repeatedU64(&e.positions), stats)
	return e, err
}
