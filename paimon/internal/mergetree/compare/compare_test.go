package compare

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

var strT = types.DataType{Root: types.VarChar, Length: types.MaxLength, Nullable: true}

func decimalNum(u int64) decimal128.Num { return decimal128.FromI64(u) }
func negZero() float64                  { return math.Copysign(0, -1) }
func nan() float64                      { return math.NaN() }
func inf() float64                      { return math.Inf(1) }

func TestCompareOrder(t *testing.T) {
	mem := memory.NewGoAllocator()
	// Strings as unsigned bytes: "é" (0xC3 0xA9) sorts after "z".
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"z", "é", ""}, nil)
	sb.AppendNull()
	s := sb.NewArray()
	defer s.Release()
	c, _ := For(strT)
	if c(s, 0, s, 1) >= 0 || c(s, 2, s, 0) >= 0 || c(s, 3, s, 2) >= 0 {
		t.Error("string order: want NULL < \"\" < \"z\" < \"é\"")
	}
	// Double.compare: -0.0 < 0.0, NaN largest and equal to itself.
	if arith.CompareDouble(negZero(), 0) >= 0 || arith.CompareDouble(nan(), inf()) <= 0 || arith.CompareDouble(nan(), nan()) != 0 {
		t.Error("float order differs from Double.compare")
	}
	for _, v := range []struct {
		a, b any
		want int
	}{
		{types.TimestampValue{Millis: 5, NanoOfMilli: 1}, types.TimestampValue{Millis: 5}, 1},
		{types.DecimalValue{Unscaled: decimalNum(-1), Scale: 2}, types.DecimalValue{Unscaled: decimalNum(0), Scale: 2}, -1},
		{[]byte{0xff}, []byte{0x01, 0x02}, 1},
		{nil, int32(1), -1},
	} {
		if got, ok := Values(v.a, v.b); !ok || got != v.want {
			t.Errorf("Values(%v, %v) = %d %v, want %d", v.a, v.b, got, ok, v.want)
		}
	}
}
