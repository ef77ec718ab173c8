// Package cast converts Arrow arrays between Paimon types with Paimon's cast
// semantics. The split reader uses it to read a data file written under an
// older schema after ALTER TABLE changed a column's type (format §2.4,
// Java's CastExecutors / SchemaEvolutionUtil).
//
// Reference: Java Paimon's cast rules (paimon-common
// org.apache.paimon.casting.*CastRule and DecimalUtils). Where Java consults
// the JVM time zone (TIMESTAMP ↔ TIMESTAMP_LTZ, STRING → TIMESTAMP_LTZ) this
// package uses UTC, the zone a server-side reader should run with; a JVM in
// another zone shifts those values by its offset.
//
// Every cast is one typed loop per array; there is no per-row boxing.
package cast

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func unsupported(from, to types.DataType) error {
	return fmt.Errorf("cast from %s to %s: %w", from, to, types.ErrUnsupported)
}

// Cast converts arr, holding values of Paimon type from in arrowconv's
// representation, to Paimon type to. The result is a new reference (arr is
// retained and returned when nothing changes). Casts Paimon does not allow,
// or that this package cannot reproduce exactly, fail with an error wrapping
// types.ErrUnsupported naming both types. A string that does not parse as
// the target type fails the cast like Java's executor (which throws).
func Cast(ctx context.Context, arr arrow.Array, from, to types.DataType, mem memory.Allocator) (arrow.Array, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	target, err := arrowconv.Type(to)
	if err != nil {
		return nil, err
	}
	if from.Root == types.Row && to.Root == types.Row {
		return EvolveStruct(ctx, arr, from, to, mem)
	}
	if !from.IsComposite() && arrow.TypeEqual(arr.DataType(), target) && sameValueDomain(from, to) {
		arr.Retain()
		return arr, nil
	}
	switch {
	case from.Root == types.Array && to.Root == types.Array:
		l := arr.(*array.List)
		vals, err := Cast(ctx, l.ListValues(), *from.Element, *to.Element, mem)
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		return rebuild(arr, target, []arrow.ArrayData{vals.Data()}), nil
	case from.Root == types.Map && to.Root == types.Map:
		if !from.Key.WithNullable(true).Equal(to.Key.WithNullable(true)) {
			return nil, unsupported(from, to)
		}
		m := arr.(*array.Map)
		items, err := Cast(ctx, m.Items(), *from.Value, *to.Value, mem)
		if err != nil {
			return nil, err
		}
		defer items.Release()
		mt := target.(*arrow.MapType)
		entries := array.NewData(mt.Elem(), m.Keys().Len(), []*memory.Buffer{nil}, []arrow.ArrayData{m.Keys().Data(), items.Data()}, 0, 0)
		defer entries.Release()
		return rebuild(arr, target, []arrow.ArrayData{entries}), nil
	case from.IsComposite() || to.IsComposite():
		if from.Root == to.Root && from.Equal(to.WithNullable(from.Nullable)) {
			arr.Retain()
			return arr, nil
		}
		return nil, unsupported(from, to)
	}
	out, err := castScalar(arr, from, to, target, mem)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sameValueDomain reports whether two types with the same Arrow type also
// hold the same values: CHAR(n)/VARCHAR(n)/BINARY(n) targets truncate or pad,
// DECIMAL and TIMESTAMP precision changes round.
func sameValueDomain(from, to types.DataType) bool {
	switch to.Root {
	case types.Char, types.Binary:
		return from.Root == to.Root && from.Length == to.Length
	case types.VarChar, types.VarBinary:
		return from.Length <= to.Length && (from.IsString() == to.IsString())
	case types.Decimal:
		return from.Root == types.Decimal && from.Precision <= to.Precision && from.Scale == to.Scale
	case types.Timestamp, types.TimestampLTZ:
		return from.Root == to.Root && from.Precision <= to.Precision
	case types.Time:
		return from.Root == types.Time
	}
	return from.Root == to.Root
}

func rebuild(arr arrow.Array, target arrow.DataType, children []arrow.ArrayData) arrow.Array {
	d := arr.Data()
	nd := array.NewData(target, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// EvolveStruct maps a ROW array written under type from to type to by field
// id, recursively, as Java's SchemaEvolutionUtil does: a target field whose id
// is not in from reads as NULL (added column), from's fields with ids not in
// to are dropped, renamed fields are found by id, and changed field types are
// cast with Cast. The struct's own validity is kept.
func EvolveStruct(ctx context.Context, arr arrow.Array, from, to types.DataType, mem memory.Allocator) (arrow.Array, error) {
	s, ok := arr.(*array.Struct)
	if !ok || from.Root != types.Row || to.Root != types.Row {
		return nil, unsupported(from, to)
	}
	target, err := arrowconv.Type(to)
	if err != nil {
		return nil, err
	}
	st := target.(*arrow.StructType)
	d := s.Data()
	return arrowconv.WithChildren(s, st, func(i int) (arrow.Array, error) {
		tf := to.Fields[i]
		j := typeutil.FieldByID(from.Fields, tf.ID)
		if j < 0 {
			// Children are unsliced: size them like the parent's buffers.
			return array.MakeArrayOfNull(mem, st.Field(i).Type, d.Offset()+d.Len()), nil
		}
		child := array.MakeFromData(d.Children()[j])
		defer child.Release()
		c, err := Cast(ctx, child, from.Fields[j].Type, tf.Type, mem)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", tf.Name, err)
		}
		return c, nil
	})
}

func castScalar(arr arrow.Array, from, to types.DataType, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	switch {
	case to.IsNumeric() && (from.IsNumeric() || from.Root == types.Boolean):
		return numericCast(arr, from, to, target, mem)
	case to.Root == types.Boolean && from.IsNumeric():
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		return fill(b, arr, numericReader(arr, from).nonZero), nil
	case to.IsString():
		return toStringCast(arr, from, to, mem)
	case to.IsBinary() && from.IsBinary():
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		src := arr.(*array.Binary)
		return fill(b, arr, func(i int) []byte {
			v := src.Value(i)
			if len(v) > to.Length {
				v = v[:to.Length]
			}
			if to.Root == types.Binary && len(v) < to.Length {
				// Java's BinaryToBinaryCastRule pads BINARY(n) with zero bytes.
				pad := make([]byte, to.Length)
				copy(pad, v)
				v = pad
			}
			return v
		}), nil
	case from.IsString():
		return fromStringCast(arr, to, target, mem)
	case from.IsTimestamp() && to.IsTimestamp():
		return mapTimestamp(arr, from, to, target, mem)
	case from.IsTimestamp() && to.Root == types.Date:
		b := array.NewDate32Builder(mem)
		defer b.Release()
		millis := timestampMillis(arr)
		return fill(b, arr, func(i int) arrow.Date32 {
			ms := millis(i)
			if from.Root == types.Timestamp {
				// Java's TimestampToDateCastRule divides the millisecond count
				// (int)(ms / MILLIS_PER_DAY): toward zero, so a pre-epoch
				// TIMESTAMP's date is one day later than its calendar date.
				// LTZ goes through LocalDateTime (floor).
				return arrow.Date32(ms / 86_400_000)
			}
			return arrow.Date32(arith.FloorDiv(ms, 86_400_000))
		}), nil
	case from.IsTimestamp() && to.Root == types.Time:
		b := array.NewTime32Builder(mem, &arrow.Time32Type{Unit: arrow.Millisecond})
		defer b.Release()
		millis := timestampMillis(arr)
		return fill(b, arr, func(i int) arrow.Time32 {
			ms := millis(i)
			if from.Root == types.Timestamp {
				// Java's TimestampToTimeCastRule: (int)(ms % MILLIS_PER_DAY),
				// negative for a pre-epoch TIMESTAMP (LTZ: LocalTime, floor).
				return arrow.Time32(ms % 86_400_000)
			}
			return arrow.Time32(ms - arith.FloorDiv(ms, 86_400_000)*86_400_000)
		}), nil
	case from.Root == types.Date && to.IsTimestamp():
		b := array.NewTimestampBuilder(mem, target.(*arrow.TimestampType))
		defer b.Release()
		d := arr.(*array.Date32)
		per := arith.UnitsPerSecond(target.(*arrow.TimestampType).Unit) * 86400
		return fill(b, arr, func(i int) arrow.Timestamp { return arrow.Timestamp(int64(d.Value(i)) * per) }), nil
	case from.Root == types.Time && to.Root == types.Time:
		arr.Retain()
		return arr, nil
	}
	return nil, unsupported(from, to)
}

// valueBuilder is what a cast loop needs of an Arrow builder.
type valueBuilder[T any] interface {
	AppendNull()
	Append(T)
	NewArray() arrow.Array
}

// fill builds the cast of arr: null where arr is null, value(i) elsewhere.
// Every per-value cast has this null handling; only the value differs.
func fill[T any, B valueBuilder[T]](b B, arr arrow.Array, value func(i int) T) arrow.Array {
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(value(i))
	}
	return b.NewArray()
}

// timestampMillis reads the values of a TIMESTAMP array as epoch
// milliseconds, whatever its Arrow unit.
func timestampMillis(arr arrow.Array) func(i int) int64 {
	ts := arr.(*array.Timestamp)
	unit := ts.DataType().(*arrow.TimestampType).Unit
	return func(i int) int64 { return toMillis(int64(ts.Value(i)), unit) }
}

func toMillis(v int64, u arrow.TimeUnit) int64 {
	per := arith.UnitsPerSecond(u)
	if per >= 1000 {
		return arith.FloorDiv(v, per/1000)
	}
	return v * (1000 / per)
}

// mapTimestamp changes precision and zone as Java's
// TimestampToTimestampCastRule does: TIMESTAMP ↔ TIMESTAMP_LTZ keeps the
// value (the zone is UTC), widening is exact, and narrowing is
// DateTimeUtils.truncate (javaTruncate). javaTruncate can keep nanoseconds
// below the Arrow unit of the target (123 ns cast to TIMESTAMP(3) stays
// 123 ns in Java); a floor would be a silently different value, so such a
// value is refused.
func mapTimestamp(arr arrow.Array, from, to types.DataType, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	ts := arr.(*array.Timestamp)
	fu := ts.DataType().(*arrow.TimestampType).Unit
	tt := target.(*arrow.TimestampType)
	narrow := to.Precision < from.Precision
	b := array.NewTimestampBuilder(mem, tt)
	defer b.Release()
	b.Reserve(arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		ms, nano := splitMillis(int64(ts.Value(i)), fu)
		if narrow {
			ms, nano = javaTruncate(ms, nano, to.Precision)
		}
		if err := SubUnitNanos(ms, nano, to, tt.Unit); err != nil {
			return nil, fmt.Errorf("cast %s to %s: %w", from, to, err)
		}
		b.UnsafeAppend(arrow.Timestamp(joinMillis(ms, nano, tt.Unit)))
	}
	return b.NewArray(), nil
}

// SubUnitNanos refuses a timestamp (epoch milliseconds and nanoseconds of
// that millisecond) whose digits go below u, the Arrow unit a column of type
// t is read into (arrowconv.TimeUnitFor). Java's Timestamp keeps such digits
// whatever the declared precision (ORC files store nanoseconds, casts keep
// a short nano-of-second), and Java's reads return them.
func SubUnitNanos(ms, nano int64, t types.DataType, u arrow.TimeUnit) error {
	var lost int64
	switch u {
	case arrow.Second:
		lost = (ms-arith.FloorDiv(ms, 1000)*1000)*1_000_000 + nano
	case arrow.Millisecond:
		lost = nano
	case arrow.Microsecond:
		lost = nano % 1000
	}
	if lost == 0 {
		return nil
	}
	v := time.UnixMilli(ms).UTC().Add(time.Duration(nano))
	return fmt.Errorf("%s value %s carries nanoseconds below the %s unit the column is read into; Java returns them, so the reader refuses rather than floor: %w",
		t, v.Format("2006-01-02T15:04:05.000000000"), unitName(u), types.ErrUnsupported)
}

func unitName(u arrow.TimeUnit) string {
	switch u {
	case arrow.Second:
		return "second"
	case arrow.Millisecond:
		return "millisecond"
	case arrow.Microsecond:
		return "microsecond"
	}
	return "nanosecond"
}

// splitMillis splits an epoch value into Paimon's Timestamp fields: floor
// milliseconds and the nanoseconds within that millisecond (0–999999).
func splitMillis(v int64, u arrow.TimeUnit) (int64, int64) {
	switch u {
	case arrow.Second:
		return v * 1000, 0
	case arrow.Millisecond:
		return v, 0
	case arrow.Microsecond:
		ms := arith.FloorDiv(v, 1000)
		return ms, (v - ms*1000) * 1000
	}
	ms := arith.FloorDiv(v, 1_000_000)
	return ms, v - ms*1_000_000
}

// joinMillis is the epoch value in unit u of (ms, nano), floor for units
// coarser than the value.
func joinMillis(ms, nano int64, u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return arith.FloorDiv(ms, 1000)
	case arrow.Millisecond:
		return ms
	case arrow.Microsecond:
		return ms*1000 + nano/1000
	}
	return ms*1_000_000 + nano
}

// javaTruncate is Java Paimon's DateTimeUtils.truncate(ts, precision),
// quirks included, because a Java reader shows exactly these values:
//   - it does nothing when the nano-of-second, written as a decimal integer
//     without leading zeros, has at most precision digits (5 µs in a
//     TIMESTAMP(9) → TIMESTAMP(4) cast stays 5 µs);
//   - for precision ≤ 3 it drops the sub-millisecond part and then zeroes
//     the last 3 - precision digits of the millisecond count with Java's
//     division, toward zero: a pre-epoch value moves up, -1.5 s becomes
//     -1 s at precision 0 (a floor would give -2 s);
//   - for precision 4–8 it zeroes the last 9 - precision digits of the
//     (non-negative) nano-of-millisecond: a floor.
func javaTruncate(ms, nano int64, precision int) (int64, int64) {
	nanoOfSecond := (ms-arith.FloorDiv(ms, 1000)*1000)*1_000_000 + nano
	if len(strconv.FormatInt(nanoOfSecond, 10)) <= precision {
		return ms, nano
	}
	if precision <= 3 {
		m := pow10(3 - precision)
		return ms / m * m, 0
	}
	m := pow10(9 - precision)
	return ms, nano / m * m
}

// pow10 is 10^n, 1 for n ≤ 0: the step that zeroes the digits a precision
// drops.
func pow10(n int) int64 {
	m := int64(1)
	for ; n > 0; n-- {
		m *= 10
	}
	return m
}

// numeric --------------------------------------------------------------------

type numReader struct {
	arr   arrow.Array
	from  types.DataType
	i64   func(int) int64
	f64   func(int) float64
	dec   func(int) decimal128.Num
	isInt bool
}

func numericReader(arr arrow.Array, from types.DataType) numReader {
	r := numReader{arr: arr, from: from}
	switch a := arr.(type) {
	case *array.Int8:
		r.i64, r.isInt = func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int16:
		r.i64, r.isInt = func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int32:
		r.i64, r.isInt = func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int64:
		r.i64, r.isInt = func(i int) int64 { return a.Value(i) }, true
	case *array.Boolean:
		r.i64, r.isInt = func(i int) int64 {
			if a.Value(i) {
				return 1
			}
			return 0
		}, true
	case *array.Float32:
		r.f64 = func(i int) float64 { return float64(a.Value(i)) }
	case *array.Float64:
		r.f64 = a.Value
	case *array.Decimal128:
		r.dec = a.Value
	}
	return r
}

func (r numReader) nonZero(i int) bool {
	switch {
	case r.isInt:
		return r.i64(i) != 0
	case r.f64 != nil:
		return r.f64(i) != 0
	default:
		return r.dec(i) != (decimal128.Num{})
	}
}

// rescaleHalfUp rescales an unscaled value from scale fs to ts, rounding
// HALF_UP like Java's BigDecimal.setScale(ts, RoundingMode.HALF_UP)
// (DecimalUtils.castToDecimal), and reports false when the result has more
// than p digits (Java returns NULL then).
func rescaleHalfUp(u *big.Int, fs, ts, p int) (decimal128.Num, bool) {
	v := new(big.Int).Set(u)
	if ts >= fs {
		v.Mul(v, arith.Pow10(ts-fs))
	} else {
		d := arith.Pow10(fs - ts)
		q, m := new(big.Int).QuoRem(v, d, new(big.Int))
		m.Abs(m).Mul(m, big.NewInt(2))
		if m.Cmp(d) >= 0 {
			if v.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		v = q
	}
	if new(big.Int).Abs(v).Cmp(arith.Pow10(p)) >= 0 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(v), true
}

func numericCast(arr arrow.Array, from, to types.DataType, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	r := numericReader(arr, from)
	n := arr.Len()
	bld := array.NewBuilder(mem, target)
	defer bld.Release()
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			bld.AppendNull()
			continue
		}
		switch to.Root {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
			var v int64
			switch {
			case r.isInt:
				v = r.i64(i)
			case r.f64 != nil:
				// Java's (int)/(long) cast of a float saturates (NaN -> 0);
				// narrower targets then wrap from int.
				v = javaFloatToInt(r.f64(i), to.Root == types.BigInt)
			default:
				// DecimalUtils.castToIntegral: BigDecimal.longValue(), truncating.
				bi := r.dec(i).BigInt()
				bi.Quo(bi, arith.Pow10(from.Scale))
				v = bi.Int64()
			}
			appendInt(bld, v)
		case types.Float, types.Double:
			var f float64
			switch {
			case r.isInt:
				f = float64(r.i64(i))
			case r.f64 != nil:
				f = r.f64(i)
			default:
				f, _ = new(big.Rat).SetFrac(r.dec(i).BigInt(), arith.Pow10(from.Scale)).Float64()
			}
			if b, ok := bld.(*array.Float32Builder); ok {
				if r.isInt {
					b.UnsafeAppend(float32(r.i64(i)))
				} else {
					b.UnsafeAppend(float32(f))
				}
			} else {
				bld.(*array.Float64Builder).UnsafeAppend(f)
			}
		case types.Decimal:
			var num decimal128.Num
			ok := true
			switch {
			case r.isInt:
				num, ok = rescaleHalfUp(big.NewInt(r.i64(i)), 0, to.Scale, to.Precision)
			case r.f64 != nil:
				f := r.f64(i)
				if math.IsNaN(f) || math.IsInf(f, 0) {
					ok = false
					break
				}
				// Java: BigDecimal.valueOf(double) = the shortest decimal
				// spelling of the double, then HALF_UP to the scale.
				bf, _, err := big.ParseFloat(strconv.FormatFloat(f, 'g', -1, 64), 10, 200, big.ToNearestEven)
				if err != nil {
					ok = false
					break
				}
				rat, _ := bf.Rat(nil)
				scaled := new(big.Rat).Mul(rat, new(big.Rat).SetInt(arith.Pow10(60)))
				u := new(big.Int).Quo(scaled.Num(), scaled.Denom())
				num, ok = rescaleHalfUp(u, 60, to.Scale, to.Precision)
			default:
				num, ok = rescaleHalfUp(r.dec(i).BigInt(), from.Scale, to.Scale, to.Precision)
			}
			if !ok {
				bld.AppendNull()
				continue
			}
			bld.(*array.Decimal128Builder).UnsafeAppend(num)
		}
	}
	return bld.NewArray(), nil
}

func javaFloatToInt(f float64, long bool) int64 {
	lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
	if long {
		lo, hi = float64(math.MinInt64), float64(math.MaxInt64)
	}
	switch {
	case math.IsNaN(f):
		return 0
	case f <= lo:
		if long {
			return math.MinInt64
		}
		return math.MinInt32
	case f >= hi:
		if long {
			return math.MaxInt64
		}
		return math.MaxInt32
	}
	return int64(f)
}

// strings --------------------------------------------------------------------

func toStringCast(arr arrow.Array, from, to types.DataType, mem memory.Allocator) (arrow.Array, error) {
	var str func(i int) string
	switch a := arr.(type) {
	case *array.String:
		str = a.Value
	case *array.Boolean:
		str = func(i int) string { return strconv.FormatBool(a.Value(i)) }
	case *array.Int8:
		str = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int16:
		str = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int32:
		str = func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int64:
		str = func(i int) string { return strconv.FormatInt(a.Value(i), 10) }
	case *array.Float32:
		str = func(i int) string { return typeutil.JavaFloatString(float64(a.Value(i)), 32) }
	case *array.Float64:
		str = func(i int) string { return typeutil.JavaFloatString(a.Value(i), 64) }
	case *array.Decimal128:
		str = func(i int) string { return arith.FormatUnscaled(a.Value(i).BigInt(), from.Scale) }
	case *array.Date32:
		str = func(i int) string { return types.DateValue(a.Value(i)).String() }
	default:
		// TIME/TIMESTAMP/BINARY spellings depend on Java formatting
		// details not reproduced here.
		return nil, unsupported(from, to)
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		s := str(i)
		if utf8.RuneCountInString(s) > to.Length {
			// Java's StringToStringCastRule cuts to the target length in
			// code points.
			k := 0
			for j := range s {
				if k == to.Length {
					s = s[:j]
					break
				}
				k++
			}
		}
		if to.Root == types.Char {
			if c := utf8.RuneCountInString(s); c < to.Length {
				s += strings.Repeat(" ", to.Length-c)
			}
		}
		b.Append(s)
	}
	return b.NewArray(), nil
}

func intBits(r types.Root) int {
	switch r {
	case types.TinyInt:
		return 8
	case types.SmallInt:
		return 16
	case types.Int:
		return 32
	}
	return 64
}

// parseJavaInt parses like BinaryStringUtils.toLong/toInt: an optional sign,
// digits, and a fraction part that is truncated ("12.9" is 12); values out
// of the target range fail.
func parseJavaInt(s string, bits int) (int64, error) {
	if whole, frac, ok := strings.Cut(s, "."); ok {
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("bad fraction")
			}
		}
		if whole == "" || whole == "-" || whole == "+" {
			if frac == "" {
				return 0, fmt.Errorf("no digits")
			}
			return 0, nil
		}
		s = whole
	}
	return strconv.ParseInt(s, 10, bits)
}

// parseJavaBool accepts BinaryStringUtils.toBoolean's spellings.
func parseJavaBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "y", "yes", "1":
		return true, true
	case "f", "false", "n", "no", "0":
		return false, true
	}
	return false, false
}

// appendInt appends v to an integer builder that has room reserved for it,
// narrowed by Go's conversion, which wraps as Java's (byte)/(short)/(int)
// casts do.
func appendInt(b array.Builder, v int64) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.UnsafeAppend(int8(v))
	case *array.Int16Builder:
		b.UnsafeAppend(int16(v))
	case *array.Int32Builder:
		b.UnsafeAppend(int32(v))
	case *array.Int64Builder:
		b.UnsafeAppend(v)
	}
}

func fromStringCast(arr arrow.Array, to types.DataType, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	src := arr.(*array.String)
	bld := array.NewBuilder(mem, target)
	defer bld.Release()
	bld.Reserve(arr.Len())
	bad := func(i int) error {
		return fmt.Errorf("cast string %q to %s: invalid value", src.Value(i), to)
	}
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			bld.AppendNull()
			continue
		}
		s := strings.TrimSpace(src.Value(i))
		switch b := bld.(type) {
		case *array.BooleanBuilder:
			v, ok := parseJavaBool(s)
			if !ok {
				return nil, bad(i)
			}
			b.Append(v)
		case *array.Int8Builder, *array.Int16Builder, *array.Int32Builder, *array.Int64Builder:
			v, err := parseJavaInt(s, intBits(to.Root))
			if err != nil {
				return nil, bad(i)
			}
			appendInt(b, v)
		case *array.Float32Builder:
			v, err := strconv.ParseFloat(s, 32)
			if err != nil {
				return nil, bad(i)
			}
			b.Append(float32(v))
		case *array.Float64Builder:
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, bad(i)
			}
			b.Append(v)
		case *array.Decimal128Builder:
			r, ok := new(big.Rat).SetString(s)
			if !ok {
				return nil, bad(i)
			}
			scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(arith.Pow10(38)))
			u := new(big.Int).Quo(scaled.Num(), scaled.Denom())
			num, ok := rescaleHalfUp(u, 38, to.Scale, to.Precision)
			if !ok {
				b.AppendNull()
				continue
			}
			b.Append(num)
		case *array.Date32Builder:
			d, err := time.Parse("2006-01-02", s)
			if err != nil {
				return nil, bad(i)
			}
			b.Append(arrow.Date32(arith.FloorDiv(d.Unix(), 86400)))
		case *array.TimestampBuilder:
			ts, err := parseTimestamp(s)
			if err != nil {
				return nil, bad(i)
			}
			u := target.(*arrow.TimestampType).Unit
			per := arith.UnitsPerSecond(u)
			v := ts.Unix()*per + int64(ts.Nanosecond())/(1_000_000_000/per)
			keep := max(per/pow10(to.Precision), 1)
			b.Append(arrow.Timestamp(arith.FloorDiv(v, keep) * keep))
		default:
			return nil, unsupported(types.DataType{Root: types.VarChar, Length: types.MaxLength}, to)
		}
	}
	return bld.NewArray(), nil
}

// parseTimestamp accepts "yyyy-MM-dd", "yyyy-MM-dd HH:mm[:ss[.fffffffff]]"
// and the same with 'T', the forms DateTimeUtils.parseTimestampData takes.
func parseTimestamp(s string) (time.Time, error) {
	s = strings.Replace(s, "T", " ", 1)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a timestamp: %q", s)
}
