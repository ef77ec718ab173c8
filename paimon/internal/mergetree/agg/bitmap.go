package agg

import (
	"bytes"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// rbmAgg is FieldRoaringBitmap32Agg (rbm32) and FieldRoaringBitmap64Agg
// (rbm64): a NULL side yields the other one unchanged, otherwise the OR of
// the two serialized bitmaps, run-optimized and serialized again as Java
// does.
type rbmAgg struct {
	fn, name string
	merge    func(acc, in []byte) ([]byte, error)
	acc      []byte // nil: NULL
}

func (g *rbmAgg) Reset() { g.acc = nil }
func (g *rbmAgg) Clear() { g.acc = nil }

func (g *rbmAgg) SetAcc(a arrow.Array, i int) {
	g.acc = nil
	if !a.IsNull(i) {
		g.acc = bytes.Clone(a.(*array.Binary).Value(i))
	}
}

func (g *rbmAgg) Add(a arrow.Array, i int) error { return g.or(a, i, false) }

// AddReversed is FieldAggregator's default, agg(input, acc): the input is
// the bitmap the other is ORed into, which decides rbm64's bytes (tree shape,
// container slots).
func (g *rbmAgg) AddReversed(a arrow.Array, i int) error { return g.or(a, i, true) }

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

func (g *rbmAgg) Retract(arrow.Array, int) error { return errNoRetract(g.fn, g.name) }

func (g *rbmAgg) Emit(w Writer) error {
	if g.acc == nil {
		w.AppendNull()
		return nil
	}
	return w.AppendVal(g.acc)
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
