package mergetree

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/connect-paimon/connect-paimon/paimon/internal/mergetree/compare"
	"github.com/connect-paimon/connect-paimon/paimon/internal/roaring64"
	"github.com/connect-paimon/connect-paimon/paimon/schema"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// rowRef points at one record of a batch.
type rowRef struct {
	b *batch
	i int
}

func (r rowRef) kind() RowKind { return r.b.rowKind(r.i) }

// mergeFunc folds the records of one key, oldest first, like Java's
// MergeFunction (reset, add..., getResult).
type mergeFunc interface {
	reset()
	add(r rowRef) error
	// emit appends the merged row to out (one writer per output column,
	// reading need column cols[j]) and returns its kind. ok is false when
	// the key has no row to return.
	emit(out []*colWriter, cols []int) (kind RowKind, ok bool, err error)
}

// dedupe is DeduplicateMergeFunction: the last record wins; a retract
// result makes the key disappear (DropDeleteReader). With ignore-delete
// retracts are skipped, so the previous version survives.
type dedupe struct {
	ignoreDelete bool
	last         rowRef
	has          bool
}

func (d *dedupe) reset() { d.has = false; d.last = rowRef{} }

func (d *dedupe) add(r rowRef) error {
	if d.ignoreDelete && r.kind().IsRetract() {
		return nil
	}
	d.last, d.has = r, true
	return nil
}

func (d *dedupe) emit(out []*colWriter, cols []int) (RowKind, bool, error) {
	if !d.has || d.last.kind().IsRetract() {
		return 0, false, nil
	}
	for j, w := range out {
		w.appendRef(d.last.b.cols[cols[j]], d.last.i)
	}
	return d.last.kind(), true, nil
}

// firstRow is FirstRowMergeFunction: the first (oldest) record wins.
// Retracts are an error unless ignore-delete skips them.
type firstRow struct {
	ignoreDelete bool
	first        rowRef
	has          bool
}

func (f *firstRow) reset() { f.has = false; f.first = rowRef{} }

func (f *firstRow) add(r rowRef) error {
	if r.kind().IsRetract() {
		if f.ignoreDelete {
			return nil
		}
		// Java: "By default, First row merge engine can not accept
		// DELETE/UPDATE_BEFORE records."
		return fmt.Errorf("first-row merge engine got a %s record; set ignore-delete=true to skip DELETE/UPDATE_BEFORE records", r.kind())
	}
	if !f.has {
		f.first, f.has = r, true
	}
	return nil
}

func (f *firstRow) emit(out []*colWriter, cols []int) (RowKind, bool, error) {
	if !f.has {
		return 0, false, nil
	}
	for j, w := range out {
		w.appendRef(f.first.b.cols[cols[j]], f.first.i)
	}
	return f.first.kind(), true, nil
}

// aggregate is AggregateMergeFunction: one field aggregator per column,
// add for +I/+U and retract for -U/-D. With
// aggregation.remove-record-on-delete a -D instead resets the row (only
// its NOT NULL columns keep the -D's values) and, if it is the key's last
// record, removes the key; aggregators keep their other state
// (first_value's "seen a value"), as Java's reset-free GenericRow swap does.
type aggregate struct {
	aggs           []fieldAgg // per need column
	nullable       []bool     // per need column
	removeOnDelete bool
	has            bool
	deleteRow      bool
}

func (a *aggregate) reset() {
	for _, g := range a.aggs {
		g.reset()
	}
	a.has, a.deleteRow = false, false
}

func (a *aggregate) add(r rowRef) error {
	a.has = true
	a.deleteRow = a.removeOnDelete && r.kind() == Delete
	if a.deleteRow {
		for j, g := range a.aggs {
			g.clear()
			if !a.nullable[j] {
				if r.b.cols[j].IsNull(r.i) {
					return fmt.Errorf("NOT NULL column %d is NULL in a %s record", j, r.kind())
				}
				g.setAcc(r.b.cols[j], r.i)
			}
		}
		return nil
	}
	retract := r.kind().IsRetract()
	for j, g := range a.aggs {
		if retract {
			if err := g.retract(r.b.cols[j], r.i); err != nil {
				return err
			}
		} else if err := g.add(r.b.cols[j], r.i); err != nil {
			return err
		}
	}
	return nil
}

func (a *aggregate) emit(out []*colWriter, cols []int) (RowKind, bool, error) {
	if !a.has || a.deleteRow {
		return 0, false, nil
	}
	for j, w := range out {
		if err := a.aggs[cols[j]].emit(w); err != nil {
			return 0, false, err
		}
	}
	return Insert, true, nil
}

// fieldAgg is Java's FieldAggregator for one column.
//
// The accumulator lives inside the aggregator; the methods beyond Java's
// agg/retract let the merge functions do what Java does to the row slot
// directly: clear sets it NULL and setAcc sets it to an input value, both
// leaving other state (first_value's flag) alone.
type fieldAgg interface {
	reset()
	add(a arrow.Array, i int) error
	// addReversed is FieldAggregator.aggReversed = agg(input, acc): a
	// partial-update record older than its sequence group's.
	addReversed(a arrow.Array, i int) error
	retract(a arrow.Array, i int) error
	clear()
	setAcc(a arrow.Array, i int)
	emit(w *colWriter) error
}

// newFieldAgg builds the aggregator of column f: fn is one of the functions
// schema.MergeOptions accepts, or "primary-key"; c holds the per-field
// options (ignore-retract, delimiter, distinct, count-limit).
func newFieldAgg(fn string, f types.DataField, c *schema.MergeOptions) (fieldAgg, error) {
	name, t := f.Name, f.Type
	delim, ok := c.ListaggDelimiter[name]
	if !ok {
		delim = ","
	}
	var g fieldAgg
	switch fn {
	case "primary-key", "last_value", "last_non_null_value", "first_value", "first_non_null_value":
		g = &refAgg{fn: fn, name: name}
	case "min", "max":
		c, err := compare.For(t)
		if err != nil {
			return nil, fmt.Errorf("aggregate %s on column %q: %w", fn, name, err)
		}
		g = &refAgg{fn: fn, name: name, cmp: c}
	case "sum":
		g = &sumAgg{name: name, t: t}
	case "listagg":
		g = &listAgg{name: name, delim: delim}
	case "bool_and", "bool_or":
		g = &boolAgg{and: fn == "bool_and", name: name}
	case "product":
		g = &productAgg{sumAgg: sumAgg{name: name, t: t}}
	case "collect":
		g = &collectAgg{name: name, t: t, distinct: c.Distinct[name]}
	case "merge_map":
		g = &mergeMapAgg{name: name, t: t}
	case "nested_update":
		limit, ok := c.CountLimit[name]
		if !ok {
			limit = math.MaxInt32
		}
		g, err := newNestedUpdate(name, t, limit, c.NestedKey[name])
		if err != nil {
			return nil, err
		}
		return wrapRetract(g, c.IgnoreRetract[name]), nil
	case "rbm32":
		g = &rbmAgg{fn: fn, name: name, merge: mergeRbm32}
	case "rbm64":
		g = &rbmAgg{fn: fn, name: name, merge: roaring64.Merge}
	default:
		return nil, fmt.Errorf("aggregate function %q on column %q: %w", fn, name, types.ErrUnsupported)
	}
	return wrapRetract(g, c.IgnoreRetract[name]), nil
}

func wrapRetract(g fieldAgg, ignore bool) fieldAgg {
	if ignore {
		return ignoreRetractAgg{g}
	}
	return g
}

// errNoRetract is FieldAggregator.retract's default refusal.
func errNoRetract(fn, name string) error {
	return fmt.Errorf("aggregate function %q (column %q) does not support retraction; configure fields.%s.ignore-retract=true to ignore retraction messages", fn, name, name)
}

// ignoreRetractAgg is FieldIgnoreRetractAgg: retracts leave the
// accumulator unchanged.
type ignoreRetractAgg struct{ fieldAgg }

func (ignoreRetractAgg) retract(arrow.Array, int) error { return nil }

// refAgg keeps a reference to one input value: primary-key, last_value,
// last_non_null_value, first_value, first_non_null_value, min, max.
type refAgg struct {
	fn, name string
	cmp      compare.Func
	arr      arrow.Array // nil: NULL accumulator
	idx      int
	init     bool // first_value / first_non_null_value have taken a value
}

func (g *refAgg) reset() { g.arr, g.init = nil, false }

func (g *refAgg) set(a arrow.Array, i int) {
	if a.IsNull(i) {
		g.arr = nil
		return
	}
	g.arr, g.idx = a, i
}

func (g *refAgg) add(a arrow.Array, i int) error {
	null := a.IsNull(i)
	switch g.fn {
	case "primary-key", "last_value":
		g.set(a, i)
	case "last_non_null_value":
		if !null {
			g.set(a, i)
		}
	case "first_value":
		if !g.init {
			g.init = true
			g.set(a, i)
		}
	case "first_non_null_value":
		if !g.init && !null {
			g.init = true
			g.set(a, i)
		}
	case "min", "max":
		// FieldMinAgg/FieldMaxAgg: a NULL side yields the other one.
		if null {
			return nil
		}
		if g.arr == nil {
			g.set(a, i)
			return nil
		}
		c := g.cmp(a, i, g.arr, g.idx)
		if (g.fn == "min" && c < 0) || (g.fn == "max" && c > 0) {
			g.set(a, i)
		}
	}
	return nil
}

func (g *refAgg) clear()                      { g.arr = nil }
func (g *refAgg) setAcc(a arrow.Array, i int) { g.set(a, i) }

// addReversed is agg(input, acc) of each function, spelled out: the
// first_* functions then return the *input* once initialised, which is
// what Java does with an older record.
func (g *refAgg) addReversed(a arrow.Array, i int) error {
	switch g.fn {
	case "primary-key", "last_value":
		// agg(input, acc) = acc.
	case "last_non_null_value":
		if g.arr == nil {
			g.set(a, i)
		}
	case "first_value":
		if !g.init {
			g.init = true // returns acc
		} else {
			g.set(a, i)
		}
	case "first_non_null_value":
		if !g.init && g.arr != nil {
			g.init = true // returns acc
		} else {
			g.set(a, i)
		}
	case "min", "max":
		// Symmetric: ties are equal values.
		return g.add(a, i)
	}
	return nil
}

func (g *refAgg) retract(a arrow.Array, i int) error {
	switch g.fn {
	case "primary-key":
		g.set(a, i)
	case "last_value":
		// FieldLastValueAgg.retract returns null.
		g.arr = nil
	case "last_non_null_value":
		// FieldLastNonNullValueAgg.retract: a non-null retract clears
		// the value, a null one keeps it.
		if !a.IsNull(i) {
			g.arr = nil
		}
	default:
		return errNoRetract(g.fn, g.name)
	}
	return nil
}

func (g *refAgg) emit(w *colWriter) error {
	if g.arr == nil {
		w.appendNull()
	} else {
		w.appendRef(g.arr, g.idx)
	}
	return nil
}

// sumAgg is FieldSumAgg. Integer sums wrap at the column's width like
// Java's (byte)/(short)/int/long arithmetic; FLOAT sums in float32;
// a DECIMAL sum that overflows the precision becomes NULL
// (DecimalUtils.add → Decimal.fromBigDecimal returns null).
type sumAgg struct {
	name string
	t    types.DataType
	acc  any // nil, int64, float64, float32 or *big.Int (unscaled decimal)
}

func (g *sumAgg) reset() { g.acc = nil }

func (g *sumAgg) value(a arrow.Array, i int) (any, error) {
	switch x := a.(type) {
	case *array.Int8:
		return int64(x.Value(i)), nil
	case *array.Int16:
		return int64(x.Value(i)), nil
	case *array.Int32:
		return int64(x.Value(i)), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Float32:
		return x.Value(i), nil
	case *array.Float64:
		return x.Value(i), nil
	case *array.Decimal128:
		return x.Value(i).BigInt(), nil
	}
	return nil, fmt.Errorf("sum on column %q: Arrow type %s: %w", g.name, a.DataType(), types.ErrUnsupported)
}

func (g *sumAgg) wrap(v int64) int64 {
	switch g.t.Root {
	case types.TinyInt:
		return int64(int8(v))
	case types.SmallInt:
		return int64(int16(v))
	case types.Int:
		return int64(int32(v))
	}
	return v
}

func (g *sumAgg) combine(x, y any, neg bool) any {
	switch a := x.(type) {
	case int64:
		b := y.(int64)
		if neg {
			return g.wrap(a - b)
		}
		return g.wrap(a + b)
	case float32:
		b := y.(float32)
		if neg {
			return a - b
		}
		return a + b
	case float64:
		b := y.(float64)
		if neg {
			return a - b
		}
		return a + b
	case *big.Int:
		r := new(big.Int)
		if neg {
			r.Sub(a, y.(*big.Int))
		} else {
			r.Add(a, y.(*big.Int))
		}
		if decimalOverflows(r, g.t.Precision) {
			return nil
		}
		return r
	}
	return nil
}

func negate(v any, wrap func(int64) int64) any {
	switch x := v.(type) {
	case int64:
		return wrap(-x)
	case float32:
		return -x
	case float64:
		return -x
	case *big.Int:
		return new(big.Int).Neg(x)
	}
	return nil
}

func (g *sumAgg) add(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	v, err := g.value(a, i)
	if err != nil {
		return err
	}
	if g.acc == nil {
		g.acc = v
		return nil
	}
	g.acc = g.combine(g.acc, v, false)
	return nil
}

// addReversed: addition commutes (a decimal overflow is NULL either way).
func (g *sumAgg) addReversed(a arrow.Array, i int) error { return g.add(a, i) }
func (g *sumAgg) clear()                                 { g.acc = nil }

func (g *sumAgg) setAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		g.acc, _ = g.value(a, i) // the column's own type: value cannot fail
	}
}

func (g *sumAgg) retract(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	v, err := g.value(a, i)
	if err != nil {
		return err
	}
	if g.acc == nil {
		g.acc = negate(v, g.wrap)
		return nil
	}
	g.acc = g.combine(g.acc, v, true)
	return nil
}

func (g *sumAgg) emit(w *colWriter) error {
	switch x := g.acc.(type) {
	case nil:
		w.appendNull()
		return nil
	case *big.Int:
		return w.appendVal(decimal128.FromBigInt(x))
	case float32:
		return w.appendVal(x)
	case float64:
		if g.t.Root == types.Float {
			return w.appendVal(float32(x))
		}
		return w.appendVal(x)
	}
	return w.appendVal(g.acc)
}

func decimalOverflows(u *big.Int, precision int) bool {
	lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
	return new(big.Int).Abs(u).Cmp(lim) >= 0
}

// listAgg is Java 1.3.1's FieldListaggAgg: a NULL side yields the other
// one, otherwise acc + delimiter + input. Blank strings are concatenated
// like any other (the blank-skipping and distinct of later Paimon
// versions do not exist in 1.3.1; the JavaPkGen table pk_pu_seqgrp
// shows " ,l1,lz").
type listAgg struct {
	name, delim string
	acc         *string
}

func (g *listAgg) reset() { g.acc = nil }
func (g *listAgg) clear() { g.acc = nil }

func (g *listAgg) setAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		v := strings.Clone(a.(*array.String).Value(i))
		g.acc = &v
	}
}

func (g *listAgg) add(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	s := a.(*array.String).Value(i)
	if g.acc == nil {
		v := strings.Clone(s)
		g.acc = &v
		return nil
	}
	v := *g.acc + g.delim + s
	g.acc = &v
	return nil
}

// addReversed is agg(input, acc): input + delimiter + acc.
func (g *listAgg) addReversed(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	s := a.(*array.String).Value(i)
	if g.acc == nil {
		v := strings.Clone(s)
		g.acc = &v
		return nil
	}
	v := s + g.delim + *g.acc
	g.acc = &v
	return nil
}

func (g *listAgg) retract(arrow.Array, int) error { return errNoRetract("listagg", g.name) }

func (g *listAgg) emit(w *colWriter) error {
	if g.acc == nil {
		w.appendNull()
		return nil
	}
	return w.appendVal(*g.acc)
}

// boolAgg is FieldBoolAndAgg / FieldBoolOrAgg: a NULL side yields the
// other one.
type boolAgg struct {
	and  bool
	name string
	acc  *bool
}

func (g *boolAgg) reset() { g.acc = nil }

func (g *boolAgg) add(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	v := a.(*array.Boolean).Value(i)
	if g.acc != nil {
		if g.and {
			v = *g.acc && v
		} else {
			v = *g.acc || v
		}
	}
	g.acc = &v
	return nil
}

// addReversed: AND/OR commute.
func (g *boolAgg) addReversed(a arrow.Array, i int) error { return g.add(a, i) }
func (g *boolAgg) clear()                                 { g.acc = nil }

func (g *boolAgg) setAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		v := a.(*array.Boolean).Value(i)
		g.acc = &v
	}
}

func (g *boolAgg) retract(arrow.Array, int) error {
	if g.and {
		return errNoRetract("bool_and", g.name)
	}
	return errNoRetract("bool_or", g.name)
}

func (g *boolAgg) emit(w *colWriter) error {
	if g.acc == nil {
		w.appendNull()
		return nil
	}
	return w.appendVal(*g.acc)
}
