// Package compare orders the values of Paimon scalar types the way Java's
// generated RecordComparator does: the order of primary keys, sequence
// fields and the min/max aggregates of the merge tree.
package compare

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Func compares value i of a with value j of b, two arrays of the same
// Arrow type. NULL sorts first: primary keys are never NULL, and Java's
// generated sequence-field comparator uses nullIsLast=false
// (UserDefinedSeqComparator, CodeGeneratorImpl).
type Func func(a arrow.Array, i int, b arrow.Array, j int) int

// For returns the natural-order comparator of a Paimon scalar type
// as Java's RecordComparator orders it: integers and dates numerically,
// floating point with Float.compare/Double.compare (-0.0 < 0.0, NaN
// largest), strings and binaries as unsigned bytes (BinaryString.compareTo),
// decimals numerically, timestamps by (millis, nanos of milli) — which is
// the order of the single-unit Arrow value.
func For(t types.DataType) (Func, error) {
	var f Func
	switch t.Root {
	case types.Boolean:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			x, y := a.(*array.Boolean).Value(i), b.(*array.Boolean).Value(j)
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	case types.TinyInt:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return cmp.Compare(a.(*array.Int8).Value(i), b.(*array.Int8).Value(j))
		}
	case types.SmallInt:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return cmp.Compare(a.(*array.Int16).Value(i), b.(*array.Int16).Value(j))
		}
	case types.Int:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return cmp.Compare(a.(*array.Int32).Value(i), b.(*array.Int32).Value(j))
		}
	case types.BigInt:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return cmp.Compare(a.(*array.Int64).Value(i), b.(*array.Int64).Value(j))
		}
	case types.Float:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return arith.CompareDouble(float64(a.(*array.Float32).Value(i)), float64(b.(*array.Float32).Value(j)))
		}
	case types.Double:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return arith.CompareDouble(a.(*array.Float64).Value(i), b.(*array.Float64).Value(j))
		}
	case types.Decimal:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return a.(*array.Decimal128).Value(i).Cmp(b.(*array.Decimal128).Value(j))
		}
	case types.Char, types.VarChar:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			// Go compares strings bytewise as unsigned bytes.
			return cmp.Compare(a.(*array.String).Value(i), b.(*array.String).Value(j))
		}
	case types.Binary, types.VarBinary:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return bytes.Compare(a.(*array.Binary).Value(i), b.(*array.Binary).Value(j))
		}
	case types.Date:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return cmp.Compare(a.(*array.Date32).Value(i), b.(*array.Date32).Value(j))
		}
	case types.Time:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return cmp.Compare(a.(*array.Time32).Value(i), b.(*array.Time32).Value(j))
		}
	case types.Timestamp, types.TimestampLTZ:
		f = func(a arrow.Array, i int, b arrow.Array, j int) int {
			return cmp.Compare(a.(*array.Timestamp).Value(i), b.(*array.Timestamp).Value(j))
		}
	default:
		return nil, fmt.Errorf("cannot order values of type %s: %w", t, types.ErrUnsupported)
	}
	return func(a arrow.Array, i int, b arrow.Array, j int) int {
		an, bn := a.IsNull(i), b.IsNull(j)
		switch {
		case an && bn:
			return 0
		case an:
			return -1
		case bn:
			return 1
		}
		return f(a, i, b, j)
	}, nil
}

// Values orders two decoded Go values of one scalar Paimon type
// (the value types of binrow.Decode), with NULL first. It is used for
// file min/max keys from manifests. ok is false for values it cannot
// order.
func Values(x, y any) (c int, ok bool) {
	switch {
	case x == nil && y == nil:
		return 0, true
	case x == nil:
		return -1, true
	case y == nil:
		return 1, true
	}
	return typeutil.CompareValues(x, y)
}
