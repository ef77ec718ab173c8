package predicate

import (
	"math"
	"testing"
)

func TestToInt64GoIntegers(t *testing.T) {
	for _, v := range []any{int(7), int8(7), int16(7), int32(7), int64(7), uint8(7), uint16(7), uint32(7), uint(7), uint64(7), float64(7)} {
		if got, err := toInt64(v); err != nil || got != 7 {
			t.Errorf("toInt64(%T 7) = %d, %v", v, got, err)
		}
	}
	for _, v := range []any{uint64(math.MaxInt64 + 1), uint(math.MaxUint64), 7.5, "7", true} {
		if got, err := toInt64(v); err == nil {
			t.Errorf("toInt64(%T %v) = %d, want an error", v, v, got)
		}
	}
	if got, err := toInt64(uint64(math.MaxInt64)); err != nil || got != math.MaxInt64 {
		t.Errorf("toInt64(MaxInt64 as uint64) = %d, %v", got, err)
	}
}
