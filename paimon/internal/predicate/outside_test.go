package predicate

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// A literal outside the column type compares like SQL numbers, the same in
// row evaluation, Arrow evaluation and on stats, and NOT of it is exact.
// The oracle here compares exact rationals (FLOAT/DOUBLE: the literal as
// the nearest double, the value widened, NaN above everything) and shares
// no code with the rewrite.
func TestOutsideLiteralsCompareLikeSQL(t *testing.T) {
	f32 := func(f float32) any { return f }
	cols := []struct {
		typ  string
		vals []any
	}{
		{"TINYINT", []any{int8(-128), int8(-127), int8(-1), int8(0), int8(1), int8(126), int8(127)}},
		{"SMALLINT", []any{int16(math.MinInt16), int16(0), int16(math.MaxInt16)}},
		{"INT", []any{int32(math.MinInt32), int32(-1), int32(0), int32(1), int32(math.MaxInt32)}},
		{"BIGINT", []any{int64(math.MinInt64), int64(-1), int64(0), int64(1), int64(math.MaxInt64)}},
		{"DECIMAL(5, 2)", []any{decV(-99999, 2), decV(-100, 2), decV(0, 2), decV(100, 2), decV(101, 2), decV(99999, 2)}},
		{"FLOAT", []any{f32(float32(math.Inf(-1))), f32(-math.MaxFloat32), f32(-1), f32(float32(math.Copysign(0, -1))), f32(0),
			f32(0.1), f32(0.7), f32(1), f32(math.MaxFloat32), f32(float32(math.Inf(1))), f32(float32(math.NaN()))}},
		{"DOUBLE", []any{math.Inf(-1), -1.0, math.Copysign(0, -1), 0.0, 0.1, 0.7, 1e300, math.Inf(1), math.NaN()}},
	}
	lits := []string{"1000", "-1000", "0.5", "-0.5", "127", "128", "-129", "1.005", "999.99", "1000.0", "99999",
		"1e400", "-1e400", "0.1", "0.7", "1e3", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "3.4e38", "3.5e38"}
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	for _, col := range cols {
		ft := typ(t, col.typ)
		fs := []types.DataField{{ID: 1, Name: "c", Type: ft}}
		rec := oneColumnRecord(t, fs, col.vals)
		defer rec.Release()
		for _, lit := range lits {
			for _, op := range ops {
				for _, neg := range []bool{false, true} {
					expr := "c " + op + " " + lit
					if neg {
						expr = "NOT (" + expr + ")"
					}
					p, err := Parse(expr, fs)
					if err != nil {
						t.Errorf("%s %s: %v", col.typ, expr, err)
						continue
					}
					sel, err := Filter(p, rec)
					if err != nil {
						t.Fatalf("%s %s: %v", col.typ, expr, err)
					}
					for i, v := range col.vals {
						want := sqlCompare(t, v, lit, op)
						if neg {
							want = !want
						}
						if got := p.Test([]any{v}); got != want {
							t.Errorf("%s %s on %v: Test %v, want %v (rewritten %s)", col.typ, expr, v, got, want, p)
						}
						if sel[i] != want {
							t.Errorf("%s %s on %v: Filter %v, want %v (rewritten %s)", col.typ, expr, v, sel[i], want, p)
						}
						z := int64(0)
						if want && !p.TestStats(1, []any{v}, []any{v}, []*int64{&z}) {
							t.Errorf("%s %s: stats min=max=%v pruned a matching row (rewritten %s)", col.typ, expr, v, p)
						}
					}
					if p.Test([]any{nil}) {
						t.Errorf("%s %s holds on NULL", col.typ, expr)
					}
					if sel[len(col.vals)] {
						t.Errorf("%s %s: Filter holds on NULL", col.typ, expr)
					}
				}
			}
			// IN and NOT IN drop the literals no value equals.
			for _, neg := range []bool{false, true} {
				expr := "c IN (" + lit + ", 1)"
				if neg {
					expr = "c NOT IN (" + lit + ", 1)"
				}
				p, err := Parse(expr, fs)
				if err != nil {
					t.Errorf("%s %s: %v", col.typ, expr, err)
					continue
				}
				for _, v := range col.vals {
					want := sqlCompare(t, v, lit, "=") || sqlCompare(t, v, "1", "=")
					if neg {
						want = !want
					}
					if got := p.Test([]any{v}); got != want {
						t.Errorf("%s %s on %v: Test %v, want %v", col.typ, expr, v, got, want)
					}
				}
			}
		}
	}
}

func decV(u int64, scale int32) types.DecimalValue {
	return types.DecimalValue{Unscaled: decimal128.FromI64(u), Precision: 5, Scale: scale}
}

// sqlCompare is the oracle: v op lit with exact numbers.
func sqlCompare(t *testing.T, v any, lit, op string) bool {
	t.Helper()
	var c int
	switch x := v.(type) {
	case float32, float64:
		var f float64
		if y, ok := x.(float32); ok {
			f = float64(y)
		} else {
			f = x.(float64)
		}
		d, err := strconv.ParseFloat(lit, 64)
		if err != nil && !math.IsInf(d, 0) {
			t.Fatal(err)
		}
		switch {
		case math.IsNaN(f):
			c = 1
		case f < d:
			c = -1
		case f > d:
			c = 1
		}
	default:
		var vr *big.Rat
		switch y := x.(type) {
		case int8:
			vr = new(big.Rat).SetInt64(int64(y))
		case int16:
			vr = new(big.Rat).SetInt64(int64(y))
		case int32:
			vr = new(big.Rat).SetInt64(int64(y))
		case int64:
			vr = new(big.Rat).SetInt64(y)
		case types.DecimalValue:
			vr, _ = new(big.Rat).SetString(y.String())
		}
		lr, ok := new(big.Rat).SetString(lit)
		if !ok {
			t.Fatalf("literal %s", lit)
		}
		c = vr.Cmp(lr)
	}
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// oneColumnRecord builds a record of one column holding vals then a NULL.
func oneColumnRecord(t *testing.T, fs []types.DataField, vals []any) arrow.RecordBatch {
	sch, err := arrowconv.Schema(fs)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for _, v := range vals {
		switch fb := b.Field(0).(type) {
		case *array.Int8Builder:
			fb.Append(v.(int8))
		case *array.Int16Builder:
			fb.Append(v.(int16))
		case *array.Int32Builder:
			fb.Append(v.(int32))
		case *array.Int64Builder:
			fb.Append(v.(int64))
		case *array.Float32Builder:
			fb.Append(v.(float32))
		case *array.Float64Builder:
			fb.Append(v.(float64))
		case *array.Decimal128Builder:
			fb.Append(v.(types.DecimalValue).Unscaled)
		default:
			t.Fatalf("builder %T", fb)
		}
	}
	b.Field(0).AppendNull()
	return b.NewRecordBatch()
}

// IS [NOT] NULL works on nested columns in every evaluation.
func TestIsNullOnNestedColumns(t *testing.T) {
	for _, ty := range []string{"ARRAY<INT>", "MAP<STRING, INT>", "ROW<a INT, b STRING>", "MULTISET<INT>"} {
		fs := []types.DataField{{ID: 1, Name: "x", Type: typ(t, ty)}, {ID: 2, Name: "i", Type: typ(t, "INT")}}
		for _, expr := range []string{"x IS NULL", "x IS NOT NULL", "NOT (x IS NULL) AND i > 0"} {
			p, err := Parse(expr, fs)
			if err != nil {
				t.Errorf("%s %s: %v", ty, expr, err)
				continue
			}
			want := expr == "x IS NULL"
			if got := p.Test([]any{nil, int32(1)}); got != want {
				t.Errorf("%s %s on NULL: %v", ty, expr, got)
			}
			n := int64(1)
			if !p.TestStats(2, []any{nil, int32(1)}, []any{nil, int32(1)}, []*int64{nil, &n}) {
				t.Errorf("%s %s: unknown stats pruned", ty, expr)
			}
		}
		if _, err := Parse("x = 1", fs); err == nil {
			t.Errorf("%s: comparison accepted", ty)
		}
	}
}

var _ = fmt.Sprint
