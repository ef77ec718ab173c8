// Package binrow decodes and encodes Paimon's BinaryRow in the serialized
// form manifests store it in (partition values, min/max keys, SimpleStats
// min/max rows): a 4-byte big-endian arity followed by the row memory.
//
// Layout (Java BinaryRow / BinaryRowWriter): one header byte (the RowKind),
// null bits (bit i+8 for field i, LSB first) padded to a multiple of 8 bytes,
// one 8-byte little-endian slot per field, then a variable part holding
// values too long for a slot, each padded to 8 bytes. Offsets stored in
// slots are relative to the start of the row (after the arity prefix).
package binrow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// RowKind is the change kind of a row; it is types.RowKind.
type RowKind = types.RowKind

// The row kinds, as in package types.
const (
	Insert       = types.Insert
	UpdateBefore = types.UpdateBefore
	UpdateAfter  = types.UpdateAfter
	Delete       = types.Delete
)

// maxCompactDecimalPrecision and maxCompactTimestampPrecision mirror
// Decimal.isCompact / Timestamp.isCompact: up to these precisions the value
// lives in the slot itself.
const (
	maxCompactDecimalPrecision   = 18
	maxCompactTimestampPrecision = 3
)

// nullBitsWidth is Java's calculateBitSetWidthInBytes: the header byte plus
// one bit per field, rounded up to whole 8-byte words.
func nullBitsWidth(arity int) int {
	return ((arity + 63 + 8) / 64) * 8
}

// Decode decodes a serialized BinaryRow (arity prefix + row) into values of
// the Go types documented in package types (nil for NULL).
//
// The null-bit width comes from the arity prefix, not from len(fields),
// because dense stats rows may cover fewer columns than the caller knows
// about. The result has exactly arity values, decoded with fields[:arity];
// a caller that needs one value per field must check the length (an arity-0
// stats row, for instance, means "no stats"). An arity larger than
// len(fields) is an error: the row holds values of unknown type.
func Decode(b []byte, fields []types.DataType) ([]any, error) {
	vals, _, err := DecodeWithKind(b, fields)
	return vals, err
}

// DecodeWithKind is Decode that also returns the row kind of the header byte.
func DecodeWithKind(b []byte, fields []types.DataType) ([]any, RowKind, error) {
	if len(b) < 4 {
		return nil, 0, fmt.Errorf("binary row: %d bytes, shorter than the 4-byte arity prefix", len(b))
	}
	arity32 := int32(binary.BigEndian.Uint32(b))
	if arity32 < 0 {
		return nil, 0, fmt.Errorf("binary row: negative arity %d", arity32)
	}
	arity := int(arity32)
	if arity > len(fields) {
		return nil, 0, fmt.Errorf("binary row: arity %d is larger than the %d field types given", arity, len(fields))
	}
	row := b[4:]
	w := nullBitsWidth(arity)
	// int64 so that a huge arity cannot overflow on 32-bit platforms.
	if fixed := int64(w) + 8*int64(arity); fixed > int64(len(row)) {
		return nil, 0, fmt.Errorf("binary row: arity %d needs a %d-byte fixed part, row has %d bytes", arity, fixed, len(row))
	}
	kind := RowKind(row[0])
	if kind > Delete {
		return nil, 0, fmt.Errorf("binary row: invalid row kind byte %d", row[0])
	}
	r := reader{row: row, w: w}
	out := make([]any, arity)
	for i := 0; i < arity; i++ {
		if r.isNull(i) {
			continue
		}
		v, err := r.field(i, fields[i])
		if err != nil {
			return nil, 0, fmt.Errorf("binary row field %d (%s): %w", i, fields[i], err)
		}
		out[i] = v
	}
	return out, kind, nil
}

type reader struct {
	row []byte
	w   int
}

func (r reader) isNull(i int) bool {
	bit := i + 8
	return r.row[bit/8]&(1<<(bit%8)) != 0
}

func (r reader) slotOff(i int) int { return r.w + 8*i }

func (r reader) slot(i int) uint64 {
	return binary.LittleEndian.Uint64(r.row[r.slotOff(i):])
}

// region returns row[off:off+n] after checking it lies inside the row.
func (r reader) region(off, n uint64) ([]byte, error) {
	if off > uint64(len(r.row)) || n > uint64(len(r.row))-off {
		return nil, fmt.Errorf("variable-length data [%d, %d+%d) outside the %d-byte row", off, off, n, len(r.row))
	}
	return r.row[off : off+n], nil
}

// bytesField reads a CHAR/VARCHAR/BINARY/VARBINARY value: inline in the slot
// when the slot's top bit is set, else (offset<<32 | length).
func (r reader) bytesField(i int) ([]byte, error) {
	s := r.slot(i)
	if s&(1<<63) != 0 {
		n := int((s >> 56) & 0x7f)
		if n > 7 {
			return nil, fmt.Errorf("inline length %d larger than 7", n)
		}
		off := r.slotOff(i)
		return r.row[off : off+n], nil
	}
	return r.region(s>>32, s&0xffffffff)
}

func (r reader) field(i int, t types.DataType) (any, error) {
	off := r.slotOff(i)
	slot := r.row[off : off+8]
	switch t.Root {
	case types.Boolean:
		return slot[0] != 0, nil
	case types.TinyInt:
		return int8(slot[0]), nil
	case types.SmallInt:
		return int16(binary.LittleEndian.Uint16(slot)), nil
	case types.Int:
		return int32(binary.LittleEndian.Uint32(slot)), nil
	case types.Date:
		return types.DateValue(int32(binary.LittleEndian.Uint32(slot))), nil
	case types.Time:
		return types.TimeValue(int32(binary.LittleEndian.Uint32(slot))), nil
	case types.BigInt:
		return int64(binary.LittleEndian.Uint64(slot)), nil
	case types.Float:
		return math.Float32frombits(binary.LittleEndian.Uint32(slot)), nil
	case types.Double:
		return math.Float64frombits(binary.LittleEndian.Uint64(slot)), nil
	case types.Char, types.VarChar:
		b, err := r.bytesField(i)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case types.Binary, types.VarBinary:
		b, err := r.bytesField(i)
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), b...), nil
	case types.Decimal:
		return r.decimal(i, t)
	case types.Timestamp, types.TimestampLTZ:
		if t.Precision <= maxCompactTimestampPrecision {
			return types.TimestampValue{Millis: int64(binary.LittleEndian.Uint64(slot))}, nil
		}
		s := r.slot(i)
		nano := s & 0xffffffff
		if nano > 999999 {
			return nil, fmt.Errorf("nano-of-millisecond %d out of range", nano)
		}
		m, err := r.region(s>>32, 8)
		if err != nil {
			return nil, err
		}
		return types.TimestampValue{Millis: int64(binary.LittleEndian.Uint64(m)), NanoOfMilli: int32(nano)}, nil
	}
	return nil, fmt.Errorf("non-null value of type %s: %w", t, types.ErrUnsupported)
}

func (r reader) decimal(i int, t types.DataType) (any, error) {
	if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
		return nil, fmt.Errorf("invalid decimal type %s", t)
	}
	dv := types.DecimalValue{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	s := r.slot(i)
	if t.Precision <= maxCompactDecimalPrecision {
		dv.Unscaled = decimal128.FromI64(int64(s))
		return dv, nil
	}
	n := s & 0xffffffff
	if n > 16 {
		return nil, fmt.Errorf("decimal byte length %d larger than 16", n)
	}
	b, err := r.region(s>>32, n)
	if err != nil {
		return nil, err
	}
	u := twosComplement(b)
	// Java's Decimal.fromUnscaledBytes → fromBigDecimal yields null when the
	// value has more digits than the declared precision; so do we.
	if digits(u) > t.Precision {
		return nil, nil
	}
	dv.Unscaled = decimal128.FromBigInt(u)
	return dv, nil
}

// twosComplement decodes big-endian two's-complement bytes
// (BigInteger.toByteArray); an empty slice is zero.
func twosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// digits is BigDecimal.precision of an unscaled value (1 for zero).
func digits(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(u).String())
}
