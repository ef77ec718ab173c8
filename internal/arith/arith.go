// Package arith holds the small integer, decimal and time-unit helpers that
// the readers and encoders share, with Java's semantics where they differ
// from Go's. It imports nothing of the module, so every package of it can
// use it.
package arith

import (
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// FloorDiv is Java's Math.floorDiv: the quotient rounded toward negative
// infinity, where Go's / truncates toward zero. Kept this small so it
// inlines into the per-value loops that call it.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Pow10 is 10^n as a new big.Int, for scaling unscaled decimals.
func Pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// UnitsPerSecond is the number of ticks of u in one second.
func UnitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1_000
	case arrow.Microsecond:
		return 1_000_000
	}
	return 1_000_000_000
}

// CompareDouble is Java's Double.compare: a total order with -0.0 < 0.0 and
// NaN (any payload) equal to itself and above +Inf, which Paimon's
// comparators and statistics follow where Go's < does not.
func CompareDouble(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	// Equal numerically: only ±0 differ.
	sa, sb := math.Signbit(a), math.Signbit(b)
	switch {
	case sa == sb:
		return 0
	case sa:
		return -1
	}
	return 1
}

// SpecialFloat spells the floats whose text Java's Double.toString and
// Python's float repr (with JSON-safe infinities) agree on and that no digit
// algorithm produces: NaN, ±Infinity and the signed zeros. ok is false for
// every other value.
func SpecialFloat(v float64) (s string, ok bool) {
	switch {
	case math.IsNaN(v):
		return "NaN", true
	case math.IsInf(v, 1):
		return "Infinity", true
	case math.IsInf(v, -1):
		return "-Infinity", true
	case v == 0 && math.Signbit(v):
		return "-0.0", true
	case v == 0:
		return "0.0", true
	}
	return "", false
}

// SignedInt widens a Go value of one of Paimon's integer types (TINYINT to
// BIGINT: int8, int16, int32, int64) to int64; ok is false for any other.
func SignedInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// FormatUnscaled renders unscaled × 10^-scale in plain notation.
func FormatUnscaled(u *big.Int, scale int) string {
	s := new(big.Int).Abs(u).String()
	neg := u.Sign() < 0
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	} else if scale < 0 {
		s += strings.Repeat("0", -scale)
	}
	if neg {
		s = "-" + s
	}
	return s
}
