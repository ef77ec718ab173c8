package predicate

import (
	"bytes"
	"context"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Filter evaluates p on every row of rec and returns the selection (true =
// the row matches). Columns are found by the Paimon field id in their
// metadata (arrowconv.FieldIDKey) or, failing that, by name. Each leaf is
// evaluated over its whole column with a loop typed by the Arrow array, so
// no value is boxed per row. A nil p selects every row.
func Filter(p *Predicate, rec arrow.RecordBatch) ([]bool, error) {
	n := int(rec.NumRows())
	sel := make([]bool, n)
	if p == nil {
		for i := range sel {
			sel[i] = true
		}
		return sel, nil
	}
	if err := p.eval(rec, sel); err != nil {
		return nil, err
	}
	return sel, nil
}

// eval writes p's result for every row into out (len = rows).
func (p *Predicate) eval(rec arrow.RecordBatch, out []bool) error {
	switch p.op {
	case AlwaysTrue, AlwaysFalse:
		for i := range out {
			out[i] = p.op == AlwaysTrue
		}
		return nil
	case And, Or:
		if err := p.children[0].eval(rec, out); err != nil {
			return err
		}
		tmp := make([]bool, len(out))
		for _, c := range p.children[1:] {
			if err := c.eval(rec, tmp); err != nil {
				return err
			}
			if p.op == And {
				for i := range out {
					out[i] = out[i] && tmp[i]
				}
			} else {
				for i := range out {
					out[i] = out[i] || tmp[i]
				}
			}
		}
		return nil
	}
	col, err := findColumn(rec.Schema(), p.field)
	if err != nil {
		return err
	}
	if err := p.evalLeaf(rec.Column(col), out); err != nil {
		return fmt.Errorf("filter %s on column %q: %w", p.op, p.field.Name, err)
	}
	return nil
}

func findColumn(s *arrow.Schema, f types.DataField) (int, error) {
	for i, af := range s.Fields() {
		if id, ok := arrowconv.FieldID(af); ok && id == f.ID {
			return i, nil
		}
	}
	idx := s.FieldIndices(f.Name)
	if len(idx) == 1 {
		return idx[0], nil
	}
	return 0, fmt.Errorf("filter column %q (id %d) is not in the record (%d columns named so)", f.Name, f.ID, len(idx))
}

func (p *Predicate) evalLeaf(arr arrow.Array, out []bool) error {
	if arr.Len() != len(out) {
		return fmt.Errorf("column has %d rows, record %d", arr.Len(), len(out))
	}
	if d, ok := arr.(*array.Dictionary); ok {
		return p.evalDictionary(d, out)
	}
	switch p.op {
	case IsNull, IsNotNull:
		want := p.op == IsNull
		for i := range out {
			out[i] = arr.IsNull(i) == want
		}
		return nil
	case StartsWith, EndsWith, Contains, NotStartsWith, NotEndsWith, NotContains:
		pat, ok := asBytes(p.literals[0])
		if !ok {
			return fmt.Errorf("pattern literal %T is not a string", p.literals[0])
		}
		get, err := bytesGetter(arr)
		if err != nil {
			return err
		}
		for i := range out {
			out[i] = arr.IsValid(i) && matchPattern(p.op, get(i), pat)
		}
		return nil
	}
	cmp, nlit, err := comparer(arr, p.field.Type, p.literals)
	if err != nil {
		return err
	}
	switch p.op {
	case In, NotIn:
		hasNull := false
		for _, l := range p.literals {
			hasNull = hasNull || l == nil
		}
		for i := range out {
			if arr.IsNull(i) || (p.op == NotIn && hasNull) {
				out[i] = false
				continue
			}
			found := false
			for k := 0; k < nlit && !found; k++ {
				found = cmp(i, k) == 0
			}
			out[i] = found == (p.op == In)
		}
		return nil
	}
	if nlit == 0 { // the literal is NULL
		for i := range out {
			out[i] = false
		}
		return nil
	}
	for i := range out {
		out[i] = arr.IsValid(i) && opHolds(p.op, cmp(i, 0))
	}
	return nil
}

// evalDictionary evaluates a leaf once per dictionary entry and maps the
// results through the indices. A row with a null index is null whatever
// its entry: only IS NULL holds for it, as for a null in a plain column.
func (p *Predicate) evalDictionary(d *array.Dictionary, out []bool) error {
	dict := d.Dictionary()
	entry := make([]bool, dict.Len())
	if err := p.evalLeaf(dict, entry); err != nil {
		return err
	}
	for i := range out {
		if d.IsNull(i) {
			out[i] = p.op == IsNull
			continue
		}
		k := d.GetValueIndex(i)
		if k < 0 || k >= len(entry) {
			return fmt.Errorf("dictionary index %d of row %d is outside the dictionary of %d entries: %w", k, i, len(entry), types.ErrCorrupt)
		}
		out[i] = entry[k]
	}
	return nil
}

func bytesGetter(arr arrow.Array) (func(int) []byte, error) {
	switch a := arr.(type) {
	case *array.String:
		return func(i int) []byte { return unsafeBytes(a.Value(i)) }, nil
	case *array.LargeString:
		return func(i int) []byte { return unsafeBytes(a.Value(i)) }, nil
	case *array.StringView:
		return func(i int) []byte { return unsafeBytes(a.Value(i)) }, nil
	case *array.Binary:
		return a.Value, nil
	case *array.LargeBinary:
		return a.Value, nil
	case *array.BinaryView:
		return a.Value, nil
	case *array.FixedSizeBinary:
		return a.Value, nil
	}
	return nil, fmt.Errorf("arrow type %s is not a string or binary: %w", arr.DataType(), types.ErrUnsupported)
}

// comparer returns cmp(i, k) = compare(row i, k-th non-NULL literal) in the
// column's native representation, and the number of non-NULL literals.
// Literals are converted once here; the returned closures index typed
// slices directly.
func comparer(arr arrow.Array, t types.DataType, lits []any) (func(i, k int) int, int, error) {
	var nn []any
	for _, l := range lits {
		if l != nil {
			nn = append(nn, l)
		}
	}
	bad := func(l any) error {
		return fmt.Errorf("literal %v (%T) does not match arrow type %s", l, l, arr.DataType())
	}
	switch a := arr.(type) {
	case *array.Boolean:
		ls, err := literals(nn, bad, boolInt)
		if err != nil {
			return nil, 0, err
		}
		return func(i, k int) int { return boolInt(a.Value(i)) - ls[k] }, len(ls), nil
	case *array.Int8:
		return intComparer(a.Int8Values(), nn, bad)
	case *array.Int16:
		return intComparer(a.Int16Values(), nn, bad)
	case *array.Int32:
		return intComparer(a.Int32Values(), nn, bad)
	case *array.Int64:
		return intComparer(a.Int64Values(), nn, bad)
	case *array.Date32:
		return intComparer(a.Date32Values(), nn, bad)
	case *array.Float32:
		return floatComparer(a.Float32Values(), nn, bad)
	case *array.Float64:
		return floatComparer(a.Float64Values(), nn, bad)
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		ls := make([]decimal128.Num, len(nn))
		for k, l := range nn {
			d, ok := l.(types.DecimalValue)
			if !ok {
				return nil, 0, bad(l)
			}
			u, ok := d.Rescale(scale)
			if !ok || (d.Scale > scale && !sameAfterRescale(d, u, scale)) {
				return nil, 0, fmt.Errorf("decimal literal %s does not fit scale %d of the column", d, scale)
			}
			ls[k] = u
		}
		return func(i, k int) int { return a.Value(i).Cmp(ls[k]) }, len(ls), nil
	case *array.Time32:
		return timeComparer(a.Time32Values(), a.DataType().(*arrow.Time32Type).Unit, nn, bad)
	case *array.Time64:
		return timeComparer(a.Time64Values(), a.DataType().(*arrow.Time64Type).Unit, nn, bad)
	case *array.Timestamp:
		vs := a.TimestampValues()
		ls, err := literals(nn, bad, func(ts types.TimestampValue) types.TimestampValue { return ts })
		if err != nil {
			return nil, 0, err
		}
		conv := timestampConverter(a.DataType().(*arrow.TimestampType).Unit)
		return func(i, k int) int { return conv(int64(vs[i])).Compare(ls[k]) }, len(ls), nil
	case *types.WideTimestampArray:
		ls, err := literals(nn, bad, func(ts types.TimestampValue) types.TimestampValue { return ts })
		if err != nil {
			return nil, 0, err
		}
		return func(i, k int) int { return a.Value(i).Compare(ls[k]) }, len(ls), nil
	}
	if get, err := bytesGetter(arr); err == nil {
		ls := make([][]byte, len(nn))
		for k, l := range nn {
			b, ok := asBytes(l)
			if !ok {
				return nil, 0, bad(l)
			}
			ls[k] = b
		}
		return func(i, k int) int { return bytes.Compare(get(i), ls[k]) }, len(ls), nil
	}
	return nil, 0, fmt.Errorf("arrow type %s for %s: %w", arr.DataType(), t, types.ErrUnsupported)
}

// sameAfterRescale reports whether scaling d down to scale lost nothing.
func sameAfterRescale(d types.DecimalValue, u decimal128.Num, scale int32) bool {
	back, err := u.Rescale(scale, d.Scale)
	return err == nil && back == d.Unscaled
}

func intComparer[T int8 | int16 | int32 | int64 | arrow.Date32](vs []T, nn []any, bad func(any) error) (func(i, k int) int, int, error) {
	ls := make([]T, len(nn))
	for k, l := range nn {
		n, ok := intLiteral(l)
		if !ok {
			return nil, 0, bad(l)
		}
		ls[k] = T(n)
		// The literal was converted for the Paimon type; a narrower
		// physical column must still hold it exactly.
		if int64(ls[k]) != n {
			return nil, 0, bad(l)
		}
	}
	return func(i, k int) int {
		switch {
		case vs[i] < ls[k]:
			return -1
		case vs[i] > ls[k]:
			return 1
		}
		return 0
	}, len(ls), nil
}

// literals asserts each non-NULL literal to the Go type L the column's
// Paimon type gives it and converts it once with conv to what the
// comparison closure reads.
func literals[L, T any](nn []any, bad func(any) error, conv func(L) T) ([]T, error) {
	ls := make([]T, len(nn))
	for k, l := range nn {
		x, ok := l.(L)
		if !ok {
			return nil, bad(l)
		}
		ls[k] = conv(x)
	}
	return ls, nil
}

// floatComparer compares a FLOAT or DOUBLE column, whose literals have the
// column's own Go type, in Java's total order.
func floatComparer[T float32 | float64](vs []T, nn []any, bad func(any) error) (func(i, k int) int, int, error) {
	ls, err := literals(nn, bad, func(x T) float64 { return float64(x) })
	if err != nil {
		return nil, 0, err
	}
	return func(i, k int) int { return arith.CompareDouble(float64(vs[i]), ls[k]) }, len(ls), nil
}

// timeComparer compares a TIME column of either Arrow width in its unit.
func timeComparer[T arrow.Time32 | arrow.Time64](vs []T, unit arrow.TimeUnit, nn []any, bad func(any) error) (func(i, k int) int, int, error) {
	ls, err := timeLiterals(nn, unit, bad)
	if err != nil {
		return nil, 0, err
	}
	return func(i, k int) int { return ordered(int64(vs[i]), ls[k]) }, len(ls), nil
}

// intLiteral is an integer or DATE literal as int64.
func intLiteral(v any) (int64, bool) {
	if d, ok := v.(types.DateValue); ok {
		return int64(d), true
	}
	return arith.SignedInt(v)
}

func timeLiterals(nn []any, unit arrow.TimeUnit, bad func(any) error) ([]int64, error) {
	ls := make([]int64, len(nn))
	for k, l := range nn {
		t, ok := l.(types.TimeValue)
		if !ok {
			return nil, bad(l)
		}
		ms := int64(t)
		switch unit {
		case arrow.Second:
			if ms%1000 != 0 {
				return nil, fmt.Errorf("TIME literal %s has milliseconds, column is in seconds", t)
			}
			ls[k] = ms / 1000
		case arrow.Millisecond:
			ls[k] = ms
		case arrow.Microsecond:
			ls[k] = ms * 1000
		default:
			ls[k] = ms * 1000000
		}
	}
	return ls, nil
}

func timestampConverter(unit arrow.TimeUnit) func(int64) types.TimestampValue {
	switch unit {
	case arrow.Second:
		return func(v int64) types.TimestampValue { return types.TimestampValue{Millis: v * 1000} }
	case arrow.Millisecond:
		return func(v int64) types.TimestampValue { return types.TimestampValue{Millis: v} }
	case arrow.Microsecond:
		return typeutil.TimestampFromMicros
	}
	return typeutil.TimestampFromNanos
}

// FilterRecord returns a new record holding the rows of rec that p
// selects; the caller releases it. The input is not released. With a nil
// p it returns rec retained.
func FilterRecord(ctx context.Context, p *Predicate, rec arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	sel, err := Filter(p, rec)
	if err != nil {
		return nil, err
	}
	return ApplySelection(ctx, rec, sel, mem)
}

// ApplySelection returns the rows of rec whose sel entry is true, as a new
// record (the caller releases it). All-true selections return rec retained
// without copying.
func ApplySelection(ctx context.Context, rec arrow.RecordBatch, sel []bool, mem memory.Allocator) (arrow.RecordBatch, error) {
	if len(sel) != int(rec.NumRows()) {
		return nil, fmt.Errorf("selection of %d rows for a record of %d", len(sel), rec.NumRows())
	}
	all := true
	for _, s := range sel {
		all = all && s
	}
	if all {
		rec.Retain()
		return rec, nil
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(sel, nil)
	mask := b.NewBooleanArray()
	defer mask.Release()
	out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, fmt.Errorf("apply filter selection: %w", err)
	}
	return out, nil
}

// unsafeBytes views a string's bytes without copying; the filter only reads
// them while the record is alive.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
