package mergetree

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSameValueIsJavasRowEquality: an incremental diff drops a key whose row did not change,
// by Java's equality of serialized rows: floats by their bits (NaN equals NaN, -0.0 differs
// from 0.0), NULL only equals NULL, nested values element by element.
func TestSameValueIsJavasRowEquality(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	arr := func(typ arrow.DataType, js string) arrow.Array {
		a, _, err := array.FromJSON(mem, typ, strings.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	f64 := array.NewFloat64Builder(mem)
	f64.AppendValues([]float64{math.NaN(), math.NaN(), 0, math.Copysign(0, -1), 1.5, 1.5}, nil)
	f64.AppendNull()
	floats := f64.NewArray()
	f64.Release()
	defer floats.Release()
	lists := arr(arrow.ListOf(arrow.PrimitiveTypes.Float64), `[[1, 2], [1, 2], [1], [1, 2, 3], null, []]`)
	defer lists.Release()
	structs := arr(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}), `[{"a": "x"}, {"a": "x"}, {"a": null}, null]`)
	defer structs.Release()
	for _, tc := range []struct {
		a    arrow.Array
		i, j int
		same bool
	}{
		{floats, 0, 1, true},  // NaN, NaN
		{floats, 2, 3, false}, // 0.0, -0.0
		{floats, 4, 5, true},
		{floats, 4, 6, false}, // 1.5, NULL
		{floats, 6, 6, true},  // NULL, NULL
		{lists, 0, 1, true},
		{lists, 0, 2, false},
		{lists, 0, 3, false},
		{lists, 4, 5, false}, // NULL, []
		{structs, 0, 1, true},
		{structs, 0, 2, false},
		{structs, 2, 3, false}, // {a: NULL}, NULL
	} {
		if got := sameValue(tc.a, tc.i, tc.a, tc.j); got != tc.same {
			t.Errorf("%s values %d and %d: same = %v, want %v", tc.a.DataType(), tc.i, tc.j, got, tc.same)
		}
	}
}
