package mergetree

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/binrow"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// The aggregate functions of Java 1.3.1 beyond the scalar ones of
// engine.go: product, collect, merge_map, nested_update, rbm32 and rbm64 (package roaring64). Their
// accumulators reference elements of the input arrays (valid while the
// merge group's batches are pinned) and are materialised once, at emit.

// productAgg is FieldProductAgg: integer products wrap at the column's
// width, a DECIMAL product is rounded HALF_UP to the column's scale and is
// NULL beyond its precision (Decimal.fromBigDecimal); retract divides.
type productAgg struct{ sumAgg }

func (g *productAgg) add(a arrow.Array, i int) error {
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
	switch x := g.acc.(type) {
	case int64:
		g.acc = g.wrap(x * v.(int64))
	case float32:
		g.acc = x * v.(float32)
	case float64:
		g.acc = x * v.(float64)
	case *big.Int:
		// Unscaled a·b has twice the scale.
		p := new(big.Int).Mul(x, v.(*big.Int))
		g.acc = g.decimal(new(big.Rat).SetFrac(p, pow10(2*g.t.Scale)))
	}
	return nil
}

// addReversed: multiplication commutes (rounding included).
func (g *productAgg) addReversed(a arrow.Array, i int) error { return g.add(a, i) }

func (g *productAgg) retract(a arrow.Array, i int) error {
	if a.IsNull(i) || g.acc == nil {
		return nil
	}
	v, err := g.value(a, i)
	if err != nil {
		return err
	}
	switch x := g.acc.(type) {
	case int64:
		d := v.(int64)
		if d == 0 {
			return fmt.Errorf("product on column %q: retract divides by zero (Java: ArithmeticException)", g.name)
		}
		g.acc = g.wrap(x / d)
	case float32:
		g.acc = x / v.(float32)
	case float64:
		g.acc = x / v.(float64)
	case *big.Int:
		d := v.(*big.Int)
		if d.Sign() == 0 {
			return fmt.Errorf("product on column %q: retract divides by zero (Java: ArithmeticException)", g.name)
		}
		q := new(big.Rat).SetFrac(x, d) // unscaled quotient: the scales cancel
		if !terminating(q) {
			return fmt.Errorf("product on column %q: retract gives a non-terminating decimal expansion (Java: BigDecimal.divide throws ArithmeticException)", g.name)
		}
		g.acc = g.decimal(q)
	}
	return nil
}

// decimal turns an exact value into the column's unscaled DECIMAL, rounded
// HALF_UP, or nil (NULL) when it needs more than the precision.
func (g *productAgg) decimal(v *big.Rat) any {
	s := new(big.Rat).Mul(v, new(big.Rat).SetInt(pow10(g.t.Scale)))
	num, den := new(big.Int).Abs(s.Num()), s.Denom()
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(r, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if s.Sign() < 0 {
		q.Neg(q)
	}
	if decimalOverflows(q, g.t.Precision) {
		return nil
	}
	return q
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// terminating reports whether q has a finite decimal expansion.
func terminating(q *big.Rat) bool {
	d := new(big.Int).Set(q.Denom())
	for _, p := range []int64{2, 5} {
		bp := big.NewInt(p)
		m := new(big.Int)
		for {
			qq, r := new(big.Int).QuoRem(d, bp, m)
			if r.Sign() != 0 {
				break
			}
			d = qq
		}
	}
	return d.Cmp(big.NewInt(1)) == 0
}

// elemRef is one element of a nested input value: index i of a list's
// values, a map's entries or an array's rows.
type elemRef struct {
	a arrow.Array
	i int
}

// listElems returns the elements of value i of a list or map array.
func listElems(a arrow.Array, i int) []elemRef {
	var child arrow.Array
	var lo, hi int64
	switch x := a.(type) {
	case *array.Map:
		child = x.ListValues()
		lo, hi = x.ValueOffsets(i)
	case *array.List:
		child = x.ListValues()
		lo, hi = x.ValueOffsets(i)
	default:
		return nil
	}
	out := make([]elemRef, 0, hi-lo)
	for k := lo; k < hi; k++ {
		out = append(out, elemRef{child, int(k)})
	}
	return out
}

// buildNested materialises one list or map value of Arrow type dt from its
// elements.
func buildNested(mem memory.Allocator, dt arrow.DataType, elems []elemRef) (arrow.Array, error) {
	var elemType arrow.DataType
	switch t := dt.(type) {
	case *arrow.MapType:
		elemType = t.Elem()
	case *arrow.ListType:
		elemType = t.Elem()
	default:
		return nil, fmt.Errorf("nested aggregate result of Arrow type %s: %w", dt, types.ErrUnsupported)
	}
	var child arrow.Array
	if len(elems) == 0 {
		child = array.MakeArrayOfNull(mem, elemType, 0)
	} else {
		pieces := make([]arrow.Array, 0, len(elems))
		for k := 0; k < len(elems); {
			// Contiguous elements of one array are one slice.
			e := elems[k]
			end := k + 1
			for end < len(elems) && elems[end].a == e.a && elems[end].i == e.i+(end-k) {
				end++
			}
			pieces = append(pieces, array.NewSlice(e.a, int64(e.i), int64(e.i+end-k)))
			k = end
		}
		var err error
		child, err = array.Concatenate(pieces, mem)
		for _, p := range pieces {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
	}
	defer child.Release()
	offs := memory.NewResizableBuffer(mem)
	offs.Resize(8)
	ob := arrow.Int32Traits.CastFromBytes(offs.Bytes())
	ob[0], ob[1] = 0, int32(len(elems))
	data := array.NewData(dt, 1, []*memory.Buffer{nil, offs}, []arrow.ArrayData{child.Data()}, 0, 0)
	offs.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// javaHash is hashCode() of the Java object Paimon's element getters
// return for value i of a (schema.JavaHashable types): Integer, Long,
// Boolean, Float, Double, BinaryString. NULL hashes to 0, as HashMap does.
func javaHash(a arrow.Array, i int) int32 {
	if a.IsNull(i) {
		return 0
	}
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return 1231
		}
		return 1237
	case *array.Int8:
		return int32(x.Value(i))
	case *array.Int16:
		return int32(x.Value(i))
	case *array.Int32:
		return x.Value(i)
	case *array.Date32:
		return int32(x.Value(i))
	case *array.Time32:
		return int32(x.Value(i))
	case *array.Int64:
		v := uint64(x.Value(i))
		return int32(v ^ v>>32)
	case *array.Float32:
		return int32(floatBits(x.Value(i)))
	case *array.Float64:
		v := doubleBits(x.Value(i))
		return int32(v ^ v>>32)
	case *array.String:
		return murmurPaimon([]byte(x.Value(i)))
	}
	return 0
}

// javaEquals is equals() of those objects: floats by their canonical bits
// (-0.0 differs from 0.0, NaN equals NaN).
func javaEquals(a arrow.Array, i int, b arrow.Array, j int) bool {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		return an && bn
	}
	switch x := a.(type) {
	case *array.Float32:
		return floatBits(x.Value(i)) == floatBits(b.(*array.Float32).Value(j))
	case *array.Float64:
		return doubleBits(x.Value(i)) == doubleBits(b.(*array.Float64).Value(j))
	case *array.Binary:
		return false // byte[]: identity, and every read makes a new array
	}
	return array.SliceEqual(a, int64(i), int64(i+1), b, int64(j), int64(j+1))
}

func floatBits(f float32) uint32 {
	if f != f {
		return 0x7fc00000 // Float.floatToIntBits' canonical NaN
	}
	return math.Float32bits(f)
}

func doubleBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// murmurPaimon is BinaryString.hashCode: MurmurHashUtils.hashBytes with
// seed 42 (little-endian words, the tail mixed byte by byte, sign-extended).
func murmurPaimon(b []byte) int32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	mixK1 := func(k uint32) uint32 {
		k *= c1
		k = k<<15 | k>>17
		return k * c2
	}
	mixH1 := func(h, k uint32) uint32 {
		h ^= k
		h = h<<13 | h>>19
		return h*5 + 0xe6546b64
	}
	h := uint32(42)
	n := len(b) - len(b)%4
	for i := 0; i < n; i += 4 {
		h = mixH1(h, mixK1(uint32(b[i])|uint32(b[i+1])<<8|uint32(b[i+2])<<16|uint32(b[i+3])<<24))
	}
	for i := n; i < len(b); i++ {
		h = mixH1(h, mixK1(uint32(int32(int8(b[i])))))
	}
	h ^= uint32(len(b))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// errTreeBin: Java's HashMap turned a bucket into a tree, whose iteration
// order this reader does not reproduce.
var errTreeBin = errors.New("nine or more elements share one bucket of Java's HashMap (a tree bin, whose order is not reproduced)")

// hashOrder returns the iteration order of a fresh java.util.HashMap (or
// HashSet) after inserting n distinct keys in index order: by bucket of
// the final table, insertion order within a bucket (resize splits keep it).
func hashOrder(n int, hash func(int) int32) ([]int, error) {
	capacity := 16
	spread := make([]uint32, n)
	for k := range spread {
		h := uint32(hash(k))
		spread[k] = h ^ h>>16
	}
	counts := map[uint32]int{}
	recount := func(upto int) {
		counts = map[uint32]int{}
		for k := 0; k < upto; k++ {
			counts[spread[k]&uint32(capacity-1)]++
		}
	}
	for k := 0; k < n; k++ {
		b := spread[k] & uint32(capacity-1)
		old := counts[b]
		counts[b]++
		if old >= 8 { // putVal: binCount >= TREEIFY_THRESHOLD-1
			if capacity < 64 {
				capacity *= 2 // treeifyBin resizes small tables instead
				recount(k + 1)
			} else {
				return nil, errTreeBin
			}
		}
		if k+1 > capacity*3/4 {
			capacity *= 2
			recount(k + 1)
		}
	}
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	mask := uint32(capacity - 1)
	// Stable: insertion order within a bucket.
	sortStable(order, func(x, y int) bool { return spread[x]&mask < spread[y]&mask })
	return order, nil
}

func sortStable(xs []int, less func(a, b int) bool) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && less(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// hashDistinct returns keys (by key(e)) de-duplicated, first occurrence
// kept, in Java's HashMap iteration order; last[k] is the index in elems of
// the last occurrence of the k-th result's key (HashMap.put keeps the
// key's position but takes the newest value).
func hashDistinct(elems []elemRef, key func(elemRef) (arrow.Array, int)) (first, last []int, err error) {
	var idx []int
	byHash := map[int32][]int{} // hash → positions in idx
	for e := range elems {
		ka, ki := key(elems[e])
		h := javaHash(ka, ki)
		dup := -1
		for _, p := range byHash[h] {
			pa, pi := key(elems[idx[p]])
			if javaEquals(pa, pi, ka, ki) {
				dup = p
				break
			}
		}
		if dup >= 0 {
			last[dup] = e
			continue
		}
		byHash[h] = append(byHash[h], len(idx))
		idx = append(idx, e)
		last = append(last, e)
	}
	order, err := hashOrder(len(idx), func(k int) int32 {
		ka, ki := key(elems[idx[k]])
		return javaHash(ka, ki)
	})
	if err != nil {
		return nil, nil, err
	}
	first = make([]int, len(order))
	lastOut := make([]int, len(order))
	for k, o := range order {
		first[k], lastOut[k] = idx[o], last[o]
	}
	return first, lastOut, nil
}

// nestedAcc is the accumulator of the nested aggregators: NULL, or the
// elements of the current value.
type nestedAcc struct {
	has   bool // false: NULL
	elems []elemRef
}

func (n *nestedAcc) reset()                      { n.has, n.elems = false, nil }
func (n *nestedAcc) clear()                      { n.reset() }
func (n *nestedAcc) setAcc(a arrow.Array, i int) { n.set(a, i) }
func (n *nestedAcc) set(a arrow.Array, i int) {
	if a.IsNull(i) {
		n.reset()
		return
	}
	n.has, n.elems = true, listElems(a, i)
}

func (n *nestedAcc) emit(w *colWriter) error {
	if !n.has {
		w.appendNull()
		return nil
	}
	v, err := buildNested(w.mem, w.dt, n.elems)
	if err != nil {
		return err
	}
	w.appendPiece(v)
	return nil
}

// collectAgg is FieldCollectAgg: concatenation, or with distinct a
// HashSet of both sides (also when one is NULL) in its iteration order.
// Retract removes one accumulated element per retracted one.
type collectAgg struct {
	nestedAcc
	name     string
	t        types.DataType
	distinct bool
}

func (g *collectAgg) reset() { g.nestedAcc.reset() }

func (g *collectAgg) add(a arrow.Array, i int) error {
	inNull := a.IsNull(i)
	if !g.has && inNull {
		return nil
	}
	if !g.distinct && (!g.has || inNull) {
		if !g.has {
			g.set(a, i)
		}
		return nil
	}
	all := append([]elemRef(nil), g.elems...)
	if !inNull {
		all = append(all, listElems(a, i)...)
	}
	if g.distinct {
		first, _, err := hashDistinct(all, func(e elemRef) (arrow.Array, int) { return e.a, e.i })
		if err != nil {
			return fmt.Errorf("collect on column %q with distinct: %w", g.name, err)
		}
		d := make([]elemRef, len(first))
		for k, e := range first {
			d[k] = all[e]
		}
		all = d
	}
	g.has, g.elems = true, all
	return nil
}

// addReversed: FieldCollectAgg.aggReversed is agg(acc, input).
func (g *collectAgg) addReversed(a arrow.Array, i int) error { return g.add(a, i) }

func (g *collectAgg) retract(a arrow.Array, i int) error {
	if !g.has || a.IsNull(i) {
		return nil
	}
	ret := listElems(a, i)
	if len(ret) == 0 {
		return nil
	}
	if g.t.Element.IsComposite() {
		// Java compares ColumnarRow/array elements with equals, which
		// they do not support.
		return fmt.Errorf("collect on column %q: retracting elements of type %s: %w", g.name, *g.t.Element, types.ErrUnsupported)
	}
	var kept []elemRef
	for _, e := range g.elems {
		hit := -1
		for k, r := range ret {
			if javaEquals(r.a, r.i, e.a, e.i) {
				hit = k
				break
			}
		}
		if hit >= 0 {
			ret = append(ret[:hit:hit], ret[hit+1:]...)
			continue
		}
		kept = append(kept, e)
	}
	g.elems = kept
	return nil
}

// mergeMapAgg is FieldMergeMapAgg: a HashMap of the accumulated entries
// then the input's (newer values win, positions stay), in its iteration
// order; retract removes the retracted keys.
type mergeMapAgg struct {
	nestedAcc
	name string
	t    types.DataType
}

func (g *mergeMapAgg) reset() { g.nestedAcc.reset() }

func mapKey(e elemRef) (arrow.Array, int) { return e.a.(*array.Struct).Field(0), e.i }

func (g *mergeMapAgg) rehash(all []elemRef, keep func(elemRef) bool) error {
	var in []elemRef
	for _, e := range all {
		if keep == nil || keep(e) {
			in = append(in, e)
		}
	}
	first, last, err := hashDistinct(in, mapKey)
	if err != nil {
		return fmt.Errorf("merge_map on column %q: %w", g.name, err)
	}
	out := make([]elemRef, len(first))
	for k := range first {
		// The key object is the first one put, the value the last.
		out[k] = in[last[k]]
	}
	g.has, g.elems = true, out
	return nil
}

func (g *mergeMapAgg) add(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	if !g.has {
		g.set(a, i)
		return nil
	}
	return g.rehash(append(append([]elemRef(nil), g.elems...), listElems(a, i)...), nil)
}

// addReversed is agg(input, acc).
func (g *mergeMapAgg) addReversed(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	if !g.has {
		g.set(a, i)
		return nil
	}
	return g.rehash(append(listElems(a, i), g.elems...), nil)
}

func (g *mergeMapAgg) retract(a arrow.Array, i int) error {
	if !g.has || a.IsNull(i) {
		return nil
	}
	ret := listElems(a, i)
	if len(ret) == 0 {
		return nil
	}
	return g.rehash(g.elems, func(e elemRef) bool {
		ka, ki := mapKey(e)
		for _, r := range ret {
			ra, ri := mapKey(r)
			if javaEquals(ra, ri, ka, ki) {
				return false
			}
		}
		return true
	})
}

// nestedUpdateAgg is FieldNestedUpdateAgg: the non-null rows of the
// accumulator then of the input, up to count-limit; retract removes every
// row equal to a retracted one. With nested-key the rows are keyed by the
// BinaryRow of those fields in a HashMap (a later row replaces an earlier
// one of its key, in place) and come out in its iteration order; retract
// removes the retracted keys.
type nestedUpdateAgg struct {
	nestedAcc
	name     string
	t        types.DataType
	limit    int
	keyIdx   []int // fields of the element row forming the nested key
	keyTypes []types.DataType
}

func newNestedUpdate(name string, t types.DataType, limit int, key []string) (*nestedUpdateAgg, error) {
	g := &nestedUpdateAgg{name: name, t: t, limit: limit}
	for _, k := range key {
		i := types.FieldByName(t.Element.Fields, k)
		if i < 0 {
			return nil, fmt.Errorf("nested_update on column %q: nested-key %q is no field of %s", name, k, *t.Element)
		}
		g.keyIdx = append(g.keyIdx, i)
		g.keyTypes = append(g.keyTypes, t.Element.Fields[i].Type)
	}
	return g, nil
}

func (g *nestedUpdateAgg) reset() { g.nestedAcc.reset() }

func nonNull(es []elemRef, max int) []elemRef {
	var out []elemRef
	for _, e := range es {
		if len(out) >= max {
			break
		}
		if !e.a.IsNull(e.i) {
			out = append(out, e)
		}
	}
	return out
}

// keyOf is the BinaryRow bytes of row e's nested key (Java's
// keyProjection.apply(row).copy()).
func (g *nestedUpdateAgg) keyOf(e elemRef) ([]byte, error) {
	st := e.a.(*array.Struct)
	vals := make([]any, len(g.keyIdx))
	for k, fi := range g.keyIdx {
		v, err := goValue(st.Field(fi), e.i)
		if err != nil {
			return nil, fmt.Errorf("nested_update on column %q: nested key: %w", g.name, err)
		}
		vals[k] = v
	}
	b, err := binrow.Encode(vals, g.keyTypes)
	if err != nil {
		return nil, fmt.Errorf("nested_update on column %q: nested key: %w", g.name, err)
	}
	return b[4:], nil // without SerializationUtils' arity prefix
}

// byKey is `new ArrayList<>(map.values())` of a HashMap<BinaryRow,
// InternalRow> filled with rows in order (BinaryRow.hashCode is
// MurmurHashUtils.hashBytesByWords: Paimon's Murmur3 over whole words).
func (g *nestedUpdateAgg) byKey(rows []elemRef, drop [][]byte) ([]elemRef, error) {
	keys := make([][]byte, len(rows))
	for k, e := range rows {
		b, err := g.keyOf(e)
		if err != nil {
			return nil, err
		}
		keys[k] = b
	}
	var uniq []int // first row index of each key, insertion order
	last := map[string]int{}
	for k := range rows {
		if _, ok := last[string(keys[k])]; !ok {
			uniq = append(uniq, k)
		}
		last[string(keys[k])] = k
	}
	var live []int
	for _, k := range uniq {
		removed := false
		for _, d := range drop {
			if bytes.Equal(d, keys[k]) {
				removed = true
				break
			}
		}
		if !removed {
			live = append(live, k)
		}
	}
	order, err := hashOrder(len(live), func(k int) int32 { return murmurPaimon(keys[live[k]]) })
	if err != nil {
		return nil, fmt.Errorf("nested_update on column %q: %w", g.name, err)
	}
	out := make([]elemRef, len(order))
	for k, o := range order {
		out[k] = rows[last[string(keys[live[o]])]]
	}
	return out, nil
}

func (g *nestedUpdateAgg) merge(acc, in []elemRef) ([]elemRef, error) {
	if len(acc) >= g.limit {
		return acc, nil
	}
	rows := nonNull(acc, math.MaxInt)
	rows = append(rows, nonNull(in, g.limit-len(acc))...)
	if len(g.keyIdx) == 0 {
		return rows, nil
	}
	return g.byKey(rows, nil)
}

func (g *nestedUpdateAgg) add(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	if !g.has {
		g.set(a, i)
		return nil
	}
	rows, err := g.merge(g.elems, listElems(a, i))
	g.elems = rows
	return err
}

// addReversed is FieldAggregator's default, agg(input, acc).
func (g *nestedUpdateAgg) addReversed(a arrow.Array, i int) error {
	if a.IsNull(i) {
		return nil
	}
	if !g.has {
		g.set(a, i)
		return nil
	}
	rows, err := g.merge(listElems(a, i), g.elems)
	g.elems = rows
	return err
}

func (g *nestedUpdateAgg) retract(a arrow.Array, i int) error {
	if !g.has || a.IsNull(i) {
		return nil
	}
	ret := nonNull(listElems(a, i), math.MaxInt)
	if len(g.keyIdx) > 0 {
		drop := make([][]byte, len(ret))
		for k, r := range ret {
			b, err := g.keyOf(r)
			if err != nil {
				return err
			}
			drop[k] = b
		}
		rows, err := g.byKey(nonNull(g.elems, math.MaxInt), drop)
		g.elems = rows
		return err
	}
	var kept []elemRef
	for _, e := range nonNull(g.elems, math.MaxInt) {
		hit := false
		for _, r := range ret {
			if array.SliceEqual(r.a, int64(r.i), int64(r.i+1), e.a, int64(e.i), int64(e.i+1)) {
				hit = true
				break
			}
		}
		if !hit {
			kept = append(kept, e)
		}
	}
	g.elems = kept
	return nil
}

// goValue is value i of a as the Go type package binrow encodes (the
// schema.JavaHashable types); nil for NULL.
func goValue(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Boolean:
		return x.Value(i), nil
	case *array.Int8:
		return x.Value(i), nil
	case *array.Int16:
		return x.Value(i), nil
	case *array.Int32:
		return x.Value(i), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Float32:
		return x.Value(i), nil
	case *array.Float64:
		return x.Value(i), nil
	case *array.String:
		return x.Value(i), nil
	case *array.Date32:
		return types.DateValue(x.Value(i)), nil
	case *array.Time32:
		return types.TimeValue(x.Value(i)), nil
	}
	return nil, fmt.Errorf("Arrow type %s: %w", a.DataType(), types.ErrUnsupported)
}

// rbmAgg is FieldRoaringBitmap32Agg (rbm32) and FieldRoaringBitmap64Agg
// (rbm64): a NULL side yields the other one unchanged, otherwise the OR of
// the two serialized bitmaps, run-optimized and serialized again as Java
// does.
type rbmAgg struct {
	fn, name string
	merge    func(acc, in []byte) ([]byte, error)
	acc      []byte // nil: NULL
}

func (g *rbmAgg) reset() { g.acc = nil }
func (g *rbmAgg) clear() { g.acc = nil }

func (g *rbmAgg) setAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		g.acc = bytes.Clone(a.(*array.Binary).Value(i))
	}
}

func (g *rbmAgg) add(a arrow.Array, i int) error { return g.or(a, i, false) }

// addReversed is FieldAggregator's default, agg(input, acc): the input is
// the bitmap the other is ORed into, which decides rbm64's bytes (tree shape,
// container slots).
func (g *rbmAgg) addReversed(a arrow.Array, i int) error { return g.or(a, i, true) }

// or merges value i of a into the accumulator: merge(acc, input), or
// merge(input, acc) when reversed.
func (g *rbmAgg) or(a arrow.Array, i int, reversed bool) error {
	if a.IsNull(i) {
		return nil
	}
	in := a.(*array.Binary).Value(i)
	if g.acc == nil {
		g.acc = bytes.Clone(in)
		return nil
	}
	into, from := g.acc, in
	if reversed {
		into, from = in, g.acc
	}
	out, err := g.merge(into, from)
	if err != nil {
		return fmt.Errorf("%s on column %q: %w", g.fn, g.name, err)
	}
	g.acc = out
	return nil
}

func (g *rbmAgg) retract(arrow.Array, int) error { return errNoRetract(g.fn, g.name) }

func (g *rbmAgg) emit(w *colWriter) error {
	if g.acc == nil {
		w.appendNull()
		return nil
	}
	return w.appendVal(g.acc)
}

// mergeRbm32 ORs two portable 32-bit RoaringBitmaps as RoaringBitmap32 does:
// or, runOptimize, serialize.
func mergeRbm32(acc, in []byte) ([]byte, error) {
	x, err := readBitmap32(acc)
	if err != nil {
		return nil, fmt.Errorf("accumulated bitmap: %w", err)
	}
	y, err := readBitmap32(in)
	if err != nil {
		return nil, fmt.Errorf("input bitmap: %w", err)
	}
	x.Or(y)
	x.RunOptimize()
	return x.ToBytes()
}

// readBitmap32 parses a portable 32-bit RoaringBitmap that must fill b.
// The library trusts container headers: malformed input is an error, not
// a panic.
func readBitmap32(b []byte) (bm *roaring.Bitmap, err error) {
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, fmt.Errorf("malformed bitmap: %v", r)
		}
	}()
	bm = roaring.New()
	n, err := bm.ReadFrom(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if n != int64(len(b)) {
		return nil, fmt.Errorf("bitmap uses %d of %d bytes", n, len(b))
	}
	if err := bm.Validate(); err != nil {
		return nil, err
	}
	return bm, nil
}
