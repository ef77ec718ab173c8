package datafile

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Partition columns are built by ConstArray from binrow-decoded values; every
// partition type must come out as the Arrow type arrowconv promises, with the
// value repeated and no leak.
func TestConstArray(t *testing.T) {
	mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		typ  types.DataType
		v    any
		want string // array String() of 3 copies
	}{
		{types.DataType{Root: types.Boolean}, true, "[true true true]"},
		{types.DataType{Root: types.TinyInt}, int8(-3), "[-3 -3 -3]"},
		{types.DataType{Root: types.SmallInt}, int16(300), "[300 300 300]"},
		{types.DataType{Root: types.Int}, int32(7), "[7 7 7]"},
		{types.DataType{Root: types.BigInt}, int64(1) << 40, "[1099511627776 1099511627776 1099511627776]"},
		{types.DataType{Root: types.Double}, 2.5, "[2.5 2.5 2.5]"},
		{types.DataType{Root: types.VarChar, Length: types.MaxLength}, "eu/west", `["eu/west" "eu/west" "eu/west"]`},
		{types.DataType{Root: types.VarChar, Length: types.MaxLength}, "", `["" "" ""]`},
		{types.DataType{Root: types.VarChar, Length: types.MaxLength}, "+I", `["+I" "+I" "+I"]`},
		{types.DataType{Root: types.Date}, types.DateValue(19723), "[2024-01-01 2024-01-01 2024-01-01]"},
		{types.DataType{Root: types.Decimal, Precision: 10, Scale: 3}, types.DecimalValue{Unscaled: decimal128.FromI64(1230), Precision: 10, Scale: 2}, "[12.3 12.3 12.3]"},
		{types.DataType{Root: types.Timestamp, Precision: 6}, types.TimestampValue{Millis: 1000, NanoOfMilli: 5000}, "[1970-01-01 00:00:01.000005 1970-01-01 00:00:01.000005 1970-01-01 00:00:01.000005]"},
		{types.DataType{Root: types.Int}, nil, "[(null) (null) (null)]"},
	}
	for _, c := range cases {
		arr, err := ConstArray(mem, c.v, c.typ, 3)
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		if err := array.ValidateFull(arr); err != nil {
			t.Fatalf("%s: invalid array: %v", c.typ, err)
		}
		got := arr.String()
		if ts, ok := arr.(*array.Timestamp); ok {
			unit := ts.DataType().(*arrow.TimestampType).Unit
			got = "["
			for i := 0; i < ts.Len(); i++ {
				if i > 0 {
					got += " "
				}
				got += ts.Value(i).ToTime(unit).Format("2006-01-02 15:04:05.999999")
			}
			got += "]"
		}
		if d, ok := arr.(*array.Decimal128); ok {
			got = "["
			for i := 0; i < d.Len(); i++ {
				if i > 0 {
					got += " "
				}
				got += d.Value(i).ToString(3)
			}
			got += "]"
			c.want = "[12.300 12.300 12.300]"
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.typ, got, c.want)
		}
		arr.Release()
	}
	empty, err := ConstArray(mem, "eu", types.DataType{Root: types.VarChar, Length: types.MaxLength}, 0)
	if err != nil || empty.Len() != 0 || array.ValidateFull(empty) != nil {
		t.Fatalf("zero copies: %v %v", empty, err)
	}
	empty.Release()
	if _, err := ConstArray(mem, "x", types.DataType{Root: types.Int}, 1); err == nil {
		t.Error("a string value for an INT column must be an error")
	}
}
