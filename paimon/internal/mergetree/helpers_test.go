package mergetree

import (
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func decimalNum(u int64) decimal128.Num { return decimal128.FromI64(u) }
