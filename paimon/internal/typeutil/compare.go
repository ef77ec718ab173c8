package typeutil

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// CompareValues orders two non-NULL values of one scalar type in the Go
// representation of package types, as Java orders the type; ok is false when the Go
// types differ or are not ordered. Key ranges of the merge tree and
// statistics pruning of predicates must agree on this order, hence one
// implementation.
func CompareValues(a, b any) (int, bool) {
	switch x := a.(type) {
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		return boolInt(x) - boolInt(y), true
	case int8:
		return compareAs(x, b, cmp.Compare[int8])
	case int16:
		return compareAs(x, b, cmp.Compare[int16])
	case int32:
		return compareAs(x, b, cmp.Compare[int32])
	case int64:
		return compareAs(x, b, cmp.Compare[int64])
	case float32:
		return compareAs(x, b, func(x, y float32) int { return arith.CompareDouble(float64(x), float64(y)) })
	case float64:
		return compareAs(x, b, arith.CompareDouble)
	case string:
		return compareAs(x, b, strings.Compare)
	case []byte:
		return compareAs(x, b, bytes.Compare)
	case types.DecimalValue:
		return compareAs(x, b, func(x, y types.DecimalValue) int {
			if x.Scale == y.Scale {
				return x.Unscaled.Cmp(y.Unscaled)
			}
			return x.Cmp(y)
		})
	case types.DateValue:
		return compareAs(x, b, cmp.Compare[types.DateValue])
	case types.TimeValue:
		return compareAs(x, b, cmp.Compare[types.TimeValue])
	case types.TimestampValue:
		return compareAs(x, b, types.TimestampValue.Compare)
	}
	return 0, false
}

// compareAs orders x against b when b has x's Go type.
func compareAs[T any](x T, b any, order func(T, T) int) (int, bool) {
	y, ok := b.(T)
	if !ok {
		return 0, false
	}
	return order(x, y), true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
