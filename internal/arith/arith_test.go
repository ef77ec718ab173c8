package arith

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestFloorDiv(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{7, 2, 3}, {-7, 2, -4}, {7, -2, -4}, {-7, -2, 3}, {-6, 2, -3}, {0, 5, 0}, {-1, 1000, -1},
		{math.MinInt64, 1000, math.MinInt64/1000 - 1},
	} {
		if got := FloorDiv(c.a, c.b); got != c.want {
			t.Errorf("FloorDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestPow10(t *testing.T) {
	if Pow10(0).Int64() != 1 || Pow10(3).Int64() != 1000 || Pow10(38).String() != "1"+strings.Repeat("0", 38) {
		t.Error("Pow10 is not 10^n")
	}
	// Callers mutate the result: each call is a new value.
	a := Pow10(2)
	a.SetInt64(7)
	if Pow10(2).Int64() != 100 {
		t.Error("Pow10 results are shared")
	}
}

func TestUnitsPerSecond(t *testing.T) {
	want := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}
	for u, w := range want {
		if got := UnitsPerSecond(u); got != w {
			t.Errorf("UnitsPerSecond(%s) = %d, want %d", u, got, w)
		}
	}
}

func TestCompareDouble(t *testing.T) {
	negZero, nan, inf := math.Copysign(0, -1), math.NaN(), math.Inf(1)
	otherNaN := math.Float64frombits(0x7ff0000000000001)
	for _, c := range []struct {
		a, b float64
		want int
	}{
		{negZero, 0, -1}, {0, negZero, 1}, {nan, inf, 1}, {inf, nan, -1}, {nan, nan, 0}, {nan, otherNaN, 0},
		{1, 2, -1}, {2, 1, 1}, {-inf, -1, -1}, {3, 3, 0},
	} {
		if got := CompareDouble(c.a, c.b); got != c.want {
			t.Errorf("CompareDouble(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
