package mergetree

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/agg"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// rec is one hand-written key-value record of a single key: kind and the
// value of one INT column v (nil = NULL).
type rec struct {
	kind types.RowKind
	v    any
}

// recordsBatch builds a batch holding the records in order (one need
// column of the given type), as the file reader would produce it.
func recordsBatch(t *testing.T, mem memory.Allocator, typ types.DataType, recs []rec) *batch {
	t.Helper()
	dt := arrowType(t, typ)
	vb := array.NewBuilder(mem, dt)
	sb := array.NewInt64Builder(mem)
	kb := array.NewInt8Builder(mem)
	defer vb.Release()
	defer sb.Release()
	defer kb.Release()
	for i, r := range recs {
		sb.Append(int64(i))
		kb.Append(int8(r.kind))
		if r.v == nil {
			vb.AppendNull()
			continue
		}
		if err := appendGo(vb, typ, r.v); err != nil {
			t.Fatal(err)
		}
	}
	// Shaped like a data file's batch: the record owns every column.
	v, seq, kind := vb.NewArray(), sb.NewInt64Array(), kb.NewInt8Array()
	defer v.Release()
	defer seq.Release()
	defer kind.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "v", Type: dt, Nullable: true},
		{Name: SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64}, {Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{v, seq, kind}, int64(len(recs)))
	return &batch{rec: rec, cols: rec.Columns()[:1], seq: rec.Column(1).(*array.Int64), kind: rec.Column(2).(*array.Int8), n: len(recs)}
}

func arrowType(t *testing.T, typ types.DataType) arrow.DataType {
	w, err := newColWriter(typ, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	defer w.release()
	return w.dt
}

// runEngine feeds the records to mf in order and returns the emitted
// value's string form ("<none>" when nothing is emitted), its kind, and the
// error of add/emit.
func runEngine(t *testing.T, mf mergeFunc, typ types.DataType, recs []rec) (string, types.RowKind, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
	defer mem.AssertSize(t, 0)
	b := recordsBatch(t, mem, typ, recs)
	defer func() {
		b.seq.Release()
		b.kind.Release()
		b.release()
	}()
	mf.reset()
	for i := range recs {
		if err := mf.add(rowRef{b, i}); err != nil {
			return "", 0, err
		}
	}
	w, err := newColWriter(typ, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer w.release()
	kind, ok, err := mf.emit([]*colWriter{w}, []int{0})
	if err != nil {
		return "", 0, err
	}
	a, err := w.finish()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if !ok {
		if a.Len() != 0 {
			t.Fatalf("nothing emitted but column has %d values", a.Len())
		}
		return "<none>", 0, nil
	}
	if a.Len() != 1 {
		t.Fatalf("emitted column has %d values", a.Len())
	}
	if a.IsNull(0) {
		return "NULL", kind, nil
	}
	// A string value aliases a's buffer, released on return.
	return strings.Clone(a.ValueStr(0)), kind, nil
}

var (
	intT  = types.DataType{Root: types.Int, Nullable: true}
	strT  = types.DataType{Root: types.VarChar, Length: types.MaxLength, Nullable: true}
	boolT = types.DataType{Root: types.Boolean, Nullable: true}
)

// newPU returns a constructor of the partial-update function of c over
// one nullable INT column v.
func newPU(c *schema.MergeOptions) func() mergeFunc {
	return func() mergeFunc {
		p, err := newPartialUpdate(c, []types.DataField{{ID: 1, Name: "v", Type: intT}})
		if err != nil {
			panic(err)
		}
		return p
	}
}

func TestEngines(t *testing.T) {
	I, UB, UA, D := types.Insert, types.UpdateBefore, types.UpdateAfter, types.Delete
	cases := []struct {
		name    string
		mf      func() mergeFunc
		typ     types.DataType
		recs    []rec
		want    string // value, "<none>", or "error:<substring>"
		kind    types.RowKind
		wantErr string
	}{
		// DeduplicateMergeFunction: the last record in order wins; a
		// retract result is dropped by DropDeleteReader.
		{"dedupe last wins", func() mergeFunc { return &dedupe{} }, intT, []rec{{I, int32(1)}, {UA, int32(2)}}, "2", UA, ""},
		{"dedupe delete last", func() mergeFunc { return &dedupe{} }, intT, []rec{{I, int32(1)}, {D, int32(1)}}, "<none>", 0, ""},
		{"dedupe -U then +U", func() mergeFunc { return &dedupe{} }, intT, []rec{{I, int32(1)}, {UB, int32(1)}, {UA, int32(3)}}, "3", UA, ""},
		{"dedupe null value kept", func() mergeFunc { return &dedupe{} }, intT, []rec{{I, int32(1)}, {I, nil}}, "NULL", I, ""},
		// ignore-delete: retracts are skipped entirely (DeduplicateMergeFunction.add).
		{"dedupe ignore-delete", func() mergeFunc { return &dedupe{ignoreDelete: true} }, intT, []rec{{I, int32(1)}, {D, int32(1)}}, "1", I, ""},
		{"dedupe ignore-delete only deletes", func() mergeFunc { return &dedupe{ignoreDelete: true} }, intT, []rec{{D, int32(1)}}, "<none>", 0, ""},
		// FirstRowMergeFunction: the first add record wins; retracts are
		// an error unless ignore-delete.
		{"first-row", func() mergeFunc { return &firstRow{} }, intT, []rec{{I, int32(1)}, {I, int32(2)}}, "1", I, ""},
		{"first-row delete refused", func() mergeFunc { return &firstRow{} }, intT, []rec{{I, int32(1)}, {D, int32(1)}}, "", 0, "ignore-delete"},
		{"first-row ignore-delete", func() mergeFunc { return &firstRow{ignoreDelete: true} }, intT, []rec{{D, int32(9)}, {I, int32(1)}, {D, int32(1)}}, "1", I, ""},
		// PartialUpdateMergeFunction: non-null fields overwrite, result +I.
		{"partial-update non-null wins", newPU(&schema.MergeOptions{}), intT, []rec{{I, int32(1)}, {UA, nil}}, "1", I, ""},
		{"partial-update all null", newPU(&schema.MergeOptions{}), intT, []rec{{I, nil}}, "NULL", I, ""},
		{"partial-update delete refused", newPU(&schema.MergeOptions{}), intT, []rec{{I, int32(1)}, {D, nil}}, "", 0, "ignore-delete"},
		{"partial-update ignore-delete", newPU(&schema.MergeOptions{IgnoreDelete: true}), intT, []rec{{I, int32(1)}, {D, int32(5)}, {I, int32(2)}}, "2", I, ""},
		{"partial-update only deletes", newPU(&schema.MergeOptions{IgnoreDelete: true}), intT, []rec{{D, int32(5)}}, "<none>", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, kind, err := runEngine(t, c.mf(), c.typ, c.recs)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("want error containing %q, got %v (value %s)", c.wantErr, err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || (got != "<none>" && kind != c.kind) {
				t.Fatalf("got %s %s, want %s %s", kind, got, c.kind, c.want)
			}
		})
	}
}

// TestAggregators: expected values follow the Java FieldAggregator classes
// (paimon-core mergetree/compact/aggregate/*.java): NULL inputs are
// absorbed by sum/min/max/bool_*, last_value's retract is NULL,
// last_non_null's retract of a non-null value is NULL, listagg concatenates
// blanks too.
func TestAggregators(t *testing.T) {
	I, D := types.Insert, types.Delete
	tinyT := types.DataType{Root: types.TinyInt, Nullable: true}
	decT := types.DataType{Root: types.Decimal, Precision: 3, Scale: 1, Nullable: true}
	fltT := types.DataType{Root: types.Float, Nullable: true}
	dec := func(u int64) types.DecimalValue {
		return types.DecimalValue{Unscaled: decimalNum(u), Precision: 3, Scale: 1}
	}
	cases := []struct {
		fn      string
		typ     types.DataType
		ignore  bool
		recs    []rec
		want    string
		wantErr string
	}{
		{"sum", intT, false, []rec{{I, int32(1)}, {I, nil}, {I, int32(5)}}, "6", ""},
		{"sum", intT, false, []rec{{I, nil}}, "NULL", ""},
		{"sum", intT, false, []rec{{I, int32(10)}, {D, int32(3)}}, "7", ""},
		{"sum", intT, false, []rec{{D, int32(3)}}, "-3", ""}, // negative(input) on a NULL accumulator
		{"sum", intT, true, []rec{{I, int32(10)}, {D, int32(3)}}, "10", ""},
		{"sum", tinyT, false, []rec{{I, int8(100)}, {I, int8(100)}}, "-56", ""}, // (byte) wraps
		{"sum", decT, false, []rec{{I, dec(505)}, {I, dec(499)}}, "NULL", ""},   // 100.4 overflows DECIMAL(3,1) → null
		{"sum", decT, false, []rec{{I, dec(15)}, {I, dec(-20)}}, "-0.5", ""},
		{"sum", fltT, false, []rec{{I, float32(0.1)}, {I, float32(0.2)}}, "0.3", ""}, // float32 arithmetic
		{"max", intT, false, []rec{{I, int32(3)}, {I, nil}, {I, int32(9)}, {I, int32(4)}}, "9", ""},
		{"min", strT, false, []rec{{I, "b"}, {I, "ab"}, {I, nil}}, "ab", ""},
		{"min", strT, false, []rec{{I, "b"}, {D, "b"}}, "", "does not support retraction"},
		{"min", strT, true, []rec{{I, "b"}, {D, "a"}}, "b", ""},
		{"last_value", intT, false, []rec{{I, int32(1)}, {I, nil}}, "NULL", ""},
		{"last_value", intT, false, []rec{{I, int32(1)}, {D, int32(1)}}, "NULL", ""},
		{"last_non_null_value", intT, false, []rec{{I, int32(1)}, {I, nil}}, "1", ""},
		{"last_non_null_value", intT, false, []rec{{I, int32(1)}, {D, nil}}, "1", ""},
		{"last_non_null_value", intT, false, []rec{{I, int32(1)}, {D, int32(2)}}, "NULL", ""},
		{"first_value", intT, false, []rec{{I, nil}, {I, int32(2)}}, "NULL", ""},
		{"first_non_null_value", intT, false, []rec{{I, nil}, {I, int32(2)}, {I, int32(3)}}, "2", ""},
		{"first_value", intT, false, []rec{{I, int32(2)}, {D, int32(2)}}, "", "does not support retraction"},
		// Java 1.3.1's FieldListaggAgg concatenates blanks (pk_pu_seqgrp's " ,l1,lz").
		{"listagg", strT, false, []rec{{I, "a"}, {I, " "}, {I, nil}, {I, "b"}}, "a; ;b", ""},
		{"listagg", strT, false, []rec{{I, "  "}, {I, "b"}}, "  ;b", ""},
		{"bool_and", boolT, false, []rec{{I, true}, {I, nil}, {I, false}}, "false", ""},
		{"bool_or", boolT, false, []rec{{I, false}, {I, nil}}, "false", ""},
		{"bool_or", boolT, false, []rec{{I, false}, {I, true}}, "true", ""},
	}
	for _, c := range cases {
		t.Run(c.fn, func(t *testing.T) {
			mo := &schema.MergeOptions{IgnoreRetract: map[string]bool{"c": c.ignore}, ListaggDelimiter: map[string]string{"c": ";"}}
			g, err := agg.New(c.fn, types.DataField{Name: "c", Type: c.typ}, mo)
			if err != nil {
				t.Fatal(err)
			}
			got, kind, err := runEngine(t, &aggregate{aggs: []agg.Aggregator{g}, nullable: []bool{true}}, c.typ, c.recs)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("%v: want error %q, got %v (%s)", c.recs, c.wantErr, err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || kind != types.Insert {
				t.Fatalf("%s %v: got %s %s, want +I %s", c.fn, c.recs, kind, got, c.want)
			}
		})
	}
}
