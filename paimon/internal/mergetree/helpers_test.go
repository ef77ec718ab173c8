package mergetree

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func decimalNum(u int64) decimal128.Num { return decimal128.FromI64(u) }
func negZero() float64                  { return math.Copysign(0, -1) }
func nan() float64                      { return math.NaN() }
func inf() float64                      { return math.Inf(1) }
