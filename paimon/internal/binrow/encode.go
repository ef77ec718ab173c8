package binrow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Encode serializes values as Java's BinaryRowWriter does, with the 4-byte
// big-endian arity prefix of SerializationUtils.serializeBinaryRow. The bytes
// are identical to Java's, which matters because partition rows are compared
// and hashed byte-wise (partition identity, bucket assignment).
//
// values must hold the Go value types of package types (nil for NULL) and
// have one entry per field type. The row kind byte is Insert.
func Encode(values []any, fields []types.DataType) ([]byte, error) {
	return EncodeWithKind(values, fields, Insert)
}

// EncodeWithKind is Encode with an explicit row kind in the header byte.
func EncodeWithKind(values []any, fields []types.DataType, kind RowKind) ([]byte, error) {
	if len(values) != len(fields) {
		return nil, fmt.Errorf("encode binary row: %d values for %d field types", len(values), len(fields))
	}
	if kind > Delete {
		return nil, fmt.Errorf("encode binary row: invalid row kind %d", kind)
	}
	arity := len(fields)
	w := nullBitsWidth(arity)
	buf := make([]byte, 4+w+8*arity, 4+w+8*arity+64)
	binary.BigEndian.PutUint32(buf, uint32(arity))
	e := encoder{buf: buf, w: w}
	e.buf[4] = byte(kind)
	for i, t := range fields {
		if err := e.field(i, t, values[i]); err != nil {
			return nil, fmt.Errorf("encode binary row field %d (%s): %w", i, t, err)
		}
	}
	return e.buf, nil
}

type encoder struct {
	buf []byte // includes the 4-byte prefix
	w   int
}

func (e *encoder) slot(i int) []byte {
	off := 4 + e.w + 8*i
	return e.buf[off : off+8]
}

func (e *encoder) setNull(i int) {
	bit := i + 8
	e.buf[4+bit/8] |= 1 << (bit % 8)
}

// cursor is the current end of the row, i.e. the next variable-part offset.
func (e *encoder) cursor() int { return len(e.buf) - 4 }

// appendVar appends data padded to a multiple of 8 (at least n bytes
// reserved) and returns its row offset.
func (e *encoder) appendVar(data []byte, reserve int) int {
	off := e.cursor()
	n := max(len(data), reserve)
	n = (n + 7) &^ 7
	start := len(e.buf)
	e.buf = append(e.buf, make([]byte, n)...)
	copy(e.buf[start:], data)
	return off
}

func (e *encoder) field(i int, t types.DataType, v any) error {
	if v == nil {
		e.setNull(i)
		// Java's writers keep reserving the variable area of a null
		// non-compact decimal/timestamp ("keep the offset for future
		// update"), so the bytes differ from a plain null slot.
		switch {
		case t.Root == types.Decimal && t.Precision > maxCompactDecimalPrecision:
			off := e.appendVar(nil, 16)
			binary.LittleEndian.PutUint64(e.slot(i), uint64(off)<<32)
		case t.IsTimestamp() && t.Precision > maxCompactTimestampPrecision:
			off := e.appendVar(nil, 8)
			binary.LittleEndian.PutUint64(e.slot(i), uint64(off)<<32)
		}
		return nil
	}
	s := e.slot(i)
	bad := func() error { return fmt.Errorf("value %v of Go type %T does not match", v, v) }
	switch t.Root {
	case types.Boolean:
		return put(v, bad, func(x bool) {
			if x {
				s[0] = 1
			}
		})
	case types.TinyInt:
		return put(v, bad, func(x int8) { s[0] = byte(x) })
	case types.SmallInt:
		return put(v, bad, func(x int16) { binary.LittleEndian.PutUint16(s, uint16(x)) })
	case types.Int:
		return put(v, bad, func(x int32) { binary.LittleEndian.PutUint32(s, uint32(x)) })
	case types.Date:
		return put(v, bad, func(x types.DateValue) { binary.LittleEndian.PutUint32(s, uint32(x)) })
	case types.Time:
		return put(v, bad, func(x types.TimeValue) { binary.LittleEndian.PutUint32(s, uint32(x)) })
	case types.BigInt:
		return put(v, bad, func(x int64) { binary.LittleEndian.PutUint64(s, uint64(x)) })
	case types.Float:
		return put(v, bad, func(x float32) { binary.LittleEndian.PutUint32(s, math.Float32bits(x)) })
	case types.Double:
		return put(v, bad, func(x float64) { binary.LittleEndian.PutUint64(s, math.Float64bits(x)) })
	case types.Char, types.VarChar:
		return put(v, bad, func(x string) { e.bytesField(i, []byte(x)) })
	case types.Binary, types.VarBinary:
		return put(v, bad, func(x []byte) { e.bytesField(i, x) })
	case types.Decimal:
		x, ok := v.(types.DecimalValue)
		if !ok {
			return bad()
		}
		return e.decimal(i, t, x)
	case types.Timestamp, types.TimestampLTZ:
		x, ok := v.(types.TimestampValue)
		if !ok {
			return bad()
		}
		if x.NanoOfMilli < 0 || x.NanoOfMilli > 999999 {
			return fmt.Errorf("nano-of-millisecond %d out of range", x.NanoOfMilli)
		}
		if t.Precision <= maxCompactTimestampPrecision {
			binary.LittleEndian.PutUint64(s, uint64(x.Millis))
			return nil
		}
		var m [8]byte
		binary.LittleEndian.PutUint64(m[:], uint64(x.Millis))
		off := e.appendVar(m[:], 8)
		binary.LittleEndian.PutUint64(e.slot(i), uint64(off)<<32|uint64(x.NanoOfMilli))
	default:
		return fmt.Errorf("encoding %s: %w", t, types.ErrUnsupported)
	}
	return nil
}

// put hands v to store when it holds the Go type T of the field's Paimon
// type, and reports bad otherwise.
func put[T any](v any, bad func() error, store func(T)) error {
	x, ok := v.(T)
	if !ok {
		return bad()
	}
	store(x)
	return nil
}

func (e *encoder) bytesField(i int, b []byte) {
	if len(b) <= 7 {
		s := e.slot(i)
		copy(s, b)
		s[7] = 0x80 | byte(len(b))
		return
	}
	off := e.appendVar(b, 0)
	binary.LittleEndian.PutUint64(e.slot(i), uint64(off)<<32|uint64(len(b)))
}

func (e *encoder) decimal(i int, t types.DataType, x types.DecimalValue) error {
	if int(x.Scale) != t.Scale {
		return fmt.Errorf("decimal %s has scale %d, type wants %d", x, x.Scale, t.Scale)
	}
	u := x.Unscaled.BigInt()
	if digits(u) > t.Precision {
		return fmt.Errorf("decimal %s has more than %d digits", x, t.Precision)
	}
	if t.Precision <= maxCompactDecimalPrecision {
		binary.LittleEndian.PutUint64(e.slot(i), uint64(u.Int64()))
		return nil
	}
	b := toByteArray(u)
	off := e.appendVar(b, 16)
	binary.LittleEndian.PutUint64(e.slot(i), uint64(off)<<32|uint64(len(b)))
	return nil
}

// toByteArray is BigInteger.toByteArray: minimal big-endian two's complement.
func toByteArray(u *big.Int) []byte {
	if u.Sign() >= 0 {
		b := u.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -u-1 has the complemented bits of u's two's complement.
	c := new(big.Int).Not(u).Bytes() // = -u-1 >= 0
	for j := range c {
		c[j] = ^c[j]
	}
	if len(c) == 0 || c[0]&0x80 == 0 {
		c = append([]byte{0xff}, c...)
	}
	return c
}
