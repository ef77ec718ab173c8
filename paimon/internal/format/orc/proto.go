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

func parsePostScript(b []byte) (postScript, error) {
	var ps postScript
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		var err error
		switch num {
		case 1:
			ps.footerLength = v
		case 2:
			ps.compression = v
		case 3:
			ps.blockSize = v
		case 4:
			ps.version, err = uints(ps.version, typ, v, raw)
		case 5:
			ps.metadataLength = v
		case 8000:
			ps.magic = string(raw)
		}
		return err
	})
	return ps, err
}

func parseFooter(b []byte) (footer, error) {
	var f footer
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		switch num {
		case 3:
			s, err := parseStripeInfo(raw)
			if err != nil {
				return fmt.Errorf("stripe information: %w", err)
			}
			f.stripes = append(f.stripes, s)
		case 4:
			t, err := parseType(raw)
			if err != nil {
				return fmt.Errorf("type %d: %w", len(f.types), err)
			}
			f.types = append(f.types, t)
		case 6:
			f.numRows = v
		case 7:
			s, err := parseColStats(raw)
			if err != nil {
				return fmt.Errorf("column statistics: %w", err)
			}
			f.stats = append(f.stats, s)
		case 8:
			f.rowStride = v
		case 10:
			return fmt.Errorf("encrypted ORC files are not supported")
		}
		return nil
	})
	return f, err
}

func parseStripeInfo(b []byte) (stripeInfo, error) {
	var s stripeInfo
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		switch num {
		case 1:
			s.offset = v
		case 2:
			s.indexLength = v
		case 3:
			s.dataLength = v
		case 4:
			s.footerLength = v
		case 5:
			s.numRows = v
		}
		return nil
	})
	return s, err
}

func parseType(b []byte) (orcType, error) {
	var t orcType
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		var err error
		switch num {
		case 1:
			t.kind = v
		case 2:
			t.subtypes, err = uints(t.subtypes, typ, v, raw)
		case 3:
			t.fieldNames = append(t.fieldNames, string(raw))
		case 4:
			t.maxLength = v
		case 5:
			t.precision = v
		case 6:
			t.scale = v
		case 7:
			var k, val string
			err = fields(raw, func(num protowire.Number, _ protowire.Type, _ uint64, raw []byte) error {
				switch num {
				case 1:
					k = string(raw)
				case 2:
					val = string(raw)
				}
				return nil
			})
			if t.attrs == nil {
				t.attrs = map[string]string{}
			}
			t.attrs[k] = val
		}
		return err
	})
	return t, err
}

func parseStripeFooter(b []byte) (stripeFooter, error) {
	var sf stripeFooter
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		switch num {
		case 1:
			var s stream
			if err := fields(raw, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					s.kind = v
				case 2:
					s.column = v
				case 3:
					s.length = v
				}
				return nil
			}); err != nil {
				return fmt.Errorf("stream: %w", err)
			}
			sf.streams = append(sf.streams, s)
		case 2:
			var e encoding
			if err := fields(raw, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					e.kind = v
				case 2:
					e.dictSize = v
				}
				return nil
			}); err != nil {
				return fmt.Errorf("column encoding: %w", err)
			}
			sf.encodings = append(sf.encodings, e)
		case 3:
			sf.timezone = string(raw)
		case 4:
			return fmt.Errorf("encrypted ORC stripes are not supported")
		}
		return nil
	})
	return sf, err
}

// parseMetadata returns the per-stripe column statistics.
func parseMetadata(b []byte) ([][]colStats, error) {
	var out [][]colStats
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		if num != 1 {
			return nil
		}
		var cs []colStats
		if err := fields(raw, func(num protowire.Number, _ protowire.Type, _ uint64, raw []byte) error {
			if num != 1 {
				return nil
			}
			s, err := parseColStats(raw)
			if err != nil {
				return err
			}
			cs = append(cs, s)
			return nil
		}); err != nil {
			return fmt.Errorf("stripe statistics: %w", err)
		}
		out = append(out, cs)
		return nil
	})
	return out, err
}

func zigzag64(v uint64) int64 { return protowire.DecodeZigZag(v) }

func strPtr(raw []byte) *string { s := string(raw); return &s }

func parseColStats(b []byte) (colStats, error) {
	var s colStats
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		switch num {
		case 1:
			s.numValues, s.hasNumValues = v, true
		case 2:
			s.hasInt = true
			return fields(raw, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					s.intMin, s.hasIntMin = zigzag64(v), true
				case 2:
					s.intMax, s.hasIntMax = zigzag64(v), true
				}
				return nil
			})
		case 3:
			s.hasDouble = true
			return fields(raw, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
				if typ != protowire.Fixed64Type {
					return nil
				}
				switch num {
				case 1:
					s.dblMin, s.hasDblMin = math.Float64frombits(v), true
				case 2:
					s.dblMax, s.hasDblMax = math.Float64frombits(v), true
				}
				return nil
			})
		case 4:
			s.hasString = true
			return fields(raw, func(num protowire.Number, _ protowire.Type, _ uint64, raw []byte) error {
				switch num {
				case 1:
					s.strMin = strPtr(raw)
				case 2:
					s.strMax = strPtr(raw)
				case 4:
					s.strLower = strPtr(raw)
				case 5:
					s.strUpper = strPtr(raw)
				}
				return nil
			})
		case 5:
			s.hasBucket = true
			return fields(raw, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
				if num == 1 {
					var err error
					s.bucket, err = uints(s.bucket, typ, v, raw)
					return err
				}
				return nil
			})
		case 6:
			s.hasDecimal = true
			return fields(raw, func(num protowire.Number, _ protowire.Type, _ uint64, raw []byte) error {
				switch num {
				case 1:
					s.decMin = strPtr(raw)
				case 2:
					s.decMax = strPtr(raw)
				}
				return nil
			})
		case 7:
			s.hasDate = true
			return fields(raw, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				x := int32(zigzag64(v))
				switch num {
				case 1:
					s.dateMin = &x
				case 2:
					s.dateMax = &x
				}
				return nil
			})
		case 9:
			s.hasTimestamp = true
			return fields(raw, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				x := zigzag64(v)
				switch num {
				case 1:
					s.tsMin = &x
				case 2:
					s.tsMax = &x
				case 3:
					s.tsMinUTC = &x
				case 4:
					s.tsMaxUTC = &x
				case 5:
					n := int32(v)
					s.tsMinNanos = &n
				case 6:
					n := int32(v)
					s.tsMaxNanos = &n
				}
				return nil
			})
		case 10:
			h := v != 0
			s.hasNull = &h
		}
		return nil
	})
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
func parseRowIndex(b []byte) ([]rowIndexEntry, error) {
	var out []rowIndexEntry
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		if num != 1 {
			return nil
		}
		if typ != protowire.BytesType {
			return fmt.Errorf("row index entry with wire type %d", typ)
		}
		var e rowIndexEntry
		if err := fields(raw, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
			var err error
			switch num {
			case 1:
				e.positions, err = uints(e.positions, typ, v, raw)
			case 2:
				e.stats, err = parseColStats(raw)
				e.hasStats = err == nil
			}
			return err
		}); err != nil {
			return fmt.Errorf("row index entry %d: %w", len(out), err)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}
