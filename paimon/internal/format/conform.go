package format

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// conform turns an array as a Parquet decoder produced it into the Arrow
// type arrowconv assigns to t. Writers disagree on physical encodings
// (pyarrow writes TIMESTAMP(0) as milliseconds and TIMESTAMP(9) as INT64
// nanos, Java writes INT96; list element names differ; field-id metadata is
// absent), so every column goes through here. Layout-compatible differences
// are fixed by re-labelling the buffers; value conversions are one vectorised
// loop per column. The result is a new reference; arr is not released.
func conform(arr arrow.Array, t types.DataType, mem memory.Allocator) (arrow.Array, error) {
	target, err := arrowconv.Type(t)
	if err != nil {
		return nil, err
	}
	return conformTo(arr, t, target, mem)
}

func conformTo(arr arrow.Array, t types.DataType, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	src := arr.DataType()
	if arrow.TypeEqual(src, target, arrow.CheckMetadata()) {
		arr.Retain()
		return arr, nil
	}
	switch t.Root {
	case types.Boolean:
		if src.ID() == arrow.BOOL {
			return relabel(arr, target), nil
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		if out, ok := convertInteger(arr, target, mem); ok {
			return out, nil
		}
	case types.Float, types.Double:
		if src.ID() == target.ID() {
			return relabel(arr, target), nil
		}
	case types.Decimal:
		if d, ok := src.(*arrow.Decimal128Type); ok {
			tt := target.(*arrow.Decimal128Type)
			if d.Scale == tt.Scale {
				// Only the declared precision differs; the unscaled values are the same.
				return relabel(arr, target), nil
			}
		}
	case types.Char, types.VarChar, types.Binary, types.VarBinary:
		switch src.ID() {
		case arrow.STRING, arrow.BINARY:
			return relabel(arr, target), nil
		case arrow.LARGE_STRING, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY:
			return rebuildBinary(arr, target, mem), nil
		}
	case types.Date:
		if src.ID() == arrow.DATE32 || src.ID() == arrow.INT32 {
			return relabel(arr, target), nil
		}
	case types.Time:
		return convertTime(arr, target, mem)
	case types.Timestamp, types.TimestampLTZ:
		if st, ok := src.(*arrow.TimestampType); ok {
			return convertTimestamp(arr, st.Unit, target.(*arrow.TimestampType), mem), nil
		}
	case types.Array:
		if l, ok := arr.(*array.List); ok {
			lt := target.(*arrow.ListType)
			vals, err := conformTo(l.ListValues(), *t.Element, lt.Elem(), mem)
			if err != nil {
				return nil, fmt.Errorf("element: %w", err)
			}
			defer vals.Release()
			return rebuild(arr, target, []arrow.ArrayData{vals.Data()}), nil
		}
	case types.Vector:
		return conformVector(arr, t, target, mem)
	case types.Map, types.Multiset:
		if m, ok := arr.(*array.Map); ok {
			mt := target.(*arrow.MapType)
			kt, vt := t.Key, t.Value
			if t.Root == types.Multiset {
				kt = t.Element
				v := types.DataType{Root: types.Int}
				vt = &v
			}
			keys, err := conformTo(m.Keys(), *kt, mt.KeyType(), mem)
			if err != nil {
				return nil, fmt.Errorf("map key: %w", err)
			}
			defer keys.Release()
			items, err := conformTo(m.Items(), *vt, mt.ItemType(), mem)
			if err != nil {
				return nil, fmt.Errorf("map value: %w", err)
			}
			defer items.Release()
			// Map children are one struct<key, value>; Keys()/Items() are
			// already sliced to it, so rebuild the entries struct unsliced.
			entries := array.NewData(mt.Elem(), m.Keys().Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), items.Data()}, 0, 0)
			defer entries.Release()
			d := arr.Data()
			out := array.NewData(target, d.Len(), d.Buffers(), []arrow.ArrayData{entries}, d.NullN(), d.Offset())
			defer out.Release()
			return array.MakeFromData(out), nil
		}
	case types.Row:
		if s, ok := arr.(*array.Struct); ok {
			return conformStruct(s, t, target.(*arrow.StructType), mem)
		}
	}
	return nil, fmt.Errorf("file column of Arrow type %s cannot be read as Paimon %s", src, t)
}

// relabel gives arr's buffers a new, layout-identical type.
func relabel(arr arrow.Array, target arrow.DataType) arrow.Array {
	d := arr.Data()
	return rebuild(arr, target, d.Children())
}

func rebuild(arr arrow.Array, target arrow.DataType, children []arrow.ArrayData) arrow.Array {
	d := arr.Data()
	nd := array.NewData(target, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// mapValues converts a fixed-width column value by value. The output keeps
// the input's validity bitmap and offset, so nulls need no copying; slots
// under a null hold whatever f makes of the garbage there, which is fine.
func mapValues[S, D arrow.FixedWidthType](arr arrow.Array, target arrow.DataType, mem memory.Allocator, f func(S) D) arrow.Array {
	d := arr.Data()
	n := d.Offset() + d.Len()
	var src []S
	if b := d.Buffers()[1]; b != nil {
		src = arrow.GetData[S](b.Bytes())
	}
	buf := memory.NewResizableBuffer(mem)
	var zero D
	buf.Resize(n * sizeOf(zero))
	dst := arrow.GetData[D](buf.Bytes())
	for i := d.Offset(); i < n && i < len(src); i++ {
		dst[i] = f(src[i])
	}
	nd := array.NewData(target, d.Len(), []*memory.Buffer{d.Buffers()[0], buf}, nil, d.NullN(), d.Offset())
	buf.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}

func sizeOf[T arrow.FixedWidthType](v T) int {
	return len(arrow.GetBytes([]T{v}))
}

func convertInteger(arr arrow.Array, target arrow.DataType, mem memory.Allocator) (arrow.Array, bool) {
	switch target.ID() {
	case arrow.INT8:
		return intsTo[int8](arr, target, mem)
	case arrow.INT16:
		return intsTo[int16](arr, target, mem)
	case arrow.INT32:
		return intsTo[int32](arr, target, mem)
	case arrow.INT64:
		return intsTo[int64](arr, target, mem)
	}
	return nil, false
}

// intsTo converts between integer widths with Java's narrowing semantics
// (two's complement wrap). Java writes TINYINT/SMALLINT with INT(8/16)
// annotations so pqarrow already returns int8/int16; this covers files whose
// annotation is missing.
func intsTo[D int8 | int16 | int32 | int64](arr arrow.Array, target arrow.DataType, mem memory.Allocator) (arrow.Array, bool) {
	switch arr.DataType().ID() {
	case arrow.INT8:
		return mapValues(arr, target, mem, func(v int8) D { return D(v) }), true
	case arrow.INT16:
		return mapValues(arr, target, mem, func(v int16) D { return D(v) }), true
	case arrow.INT32:
		return mapValues(arr, target, mem, func(v int32) D { return D(v) }), true
	case arrow.INT64:
		return mapValues(arr, target, mem, func(v int64) D { return D(v) }), true
	case arrow.UINT8:
		return mapValues(arr, target, mem, func(v uint8) D { return D(v) }), true
	case arrow.UINT16:
		return mapValues(arr, target, mem, func(v uint16) D { return D(v) }), true
	case arrow.UINT32:
		return mapValues(arr, target, mem, func(v uint32) D { return D(v) }), true
	}
	return nil, false
}

func convertTime(arr arrow.Array, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	switch st := arr.DataType().(type) {
	case *arrow.Time32Type:
		if st.Unit == arrow.Millisecond {
			return relabel(arr, target), nil
		}
		return mapValues(arr, target, mem, func(v arrow.Time32) arrow.Time32 { return v * 1000 }), nil
	case *arrow.Time64Type:
		div := int64(1000)
		if st.Unit == arrow.Nanosecond {
			div = 1_000_000
		}
		return mapValues(arr, target, mem, func(v arrow.Time64) arrow.Time32 { return arrow.Time32(int64(v) / div) }), nil
	case *arrow.Int32Type:
		return relabel(arr, target), nil
	}
	return nil, fmt.Errorf("file column of Arrow type %s cannot be read as TIME", arr.DataType())
}

// convertTimestamp changes the unit (scaling up exactly, or flooring when the
// file holds more digits than the Paimon precision, Java's truncation) and
// sets the zone of target (none for TIMESTAMP, UTC for TIMESTAMP_LTZ).
func convertTimestamp(arr arrow.Array, from arrow.TimeUnit, target *arrow.TimestampType, mem memory.Allocator) arrow.Array {
	f, t := arith.UnitsPerSecond(from), arith.UnitsPerSecond(target.Unit)
	switch {
	case f == t:
		return relabel(arr, target)
	case f < t:
		m := arrow.Timestamp(t / f)
		return mapValues(arr, target, mem, func(v arrow.Timestamp) arrow.Timestamp { return v * m })
	default:
		d := int64(f / t)
		return mapValues(arr, target, mem, func(v arrow.Timestamp) arrow.Timestamp {
			q := int64(v) / d
			if int64(v)%d < 0 {
				q--
			}
			return arrow.Timestamp(q)
		})
	}
}

func rebuildBinary(arr arrow.Array, target arrow.DataType, mem memory.Allocator) arrow.Array {
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	b.Reserve(arr.Len())
	var get func(i int) []byte
	switch a := arr.(type) {
	case *array.FixedSizeBinary:
		get = a.Value
	case *array.LargeBinary:
		get = a.Value
	case *array.LargeString:
		get = func(i int) []byte { return []byte(a.Value(i)) }
	}
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(get(i))
	}
	out := b.NewArray()
	defer out.Release()
	return relabel(out, target)
}

// conformStruct picks the struct children by the Paimon field names (exact,
// then case-insensitive like Java's matchParquetField) in the order of t.
func conformStruct(s *array.Struct, t types.DataType, target *arrow.StructType, mem memory.Allocator) (arrow.Array, error) {
	st := s.DataType().(*arrow.StructType)
	d := s.Data()
	return arrowconv.WithChildren(s, target, func(i int) (arrow.Array, error) {
		f := t.Fields[i]
		idx := fieldIndex(st.Fields(), f.Name)
		if idx < 0 {
			return nil, fmt.Errorf("nested field %q is not in the file", f.Name)
		}
		// Children of a struct are unsliced; the parent's offset applies.
		child := array.MakeFromData(d.Children()[idx])
		defer child.Release()
		c, err := conformTo(child, f.Type, target.Field(i).Type, mem)
		if err != nil {
			return nil, fmt.Errorf("nested field %q: %w", f.Name, err)
		}
		return c, nil
	})
}

func fieldIndex(fs []arrow.Field, name string) int {
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	for i, f := range fs {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// conformVector accepts the fixed-size list pypaimon writes and the plain
// LIST Java's ParquetSchemaConverter writes for VECTOR, checking that every
// non-null list has the declared length.
func conformVector(arr arrow.Array, t types.DataType, target arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	ft := target.(*arrow.FixedSizeListType)
	switch a := arr.(type) {
	case *array.FixedSizeList:
		if a.DataType().(*arrow.FixedSizeListType).Len() != ft.Len() {
			return nil, fmt.Errorf("vector length %d in file, %d in schema", a.DataType().(*arrow.FixedSizeListType).Len(), ft.Len())
		}
		child := array.MakeFromData(a.Data().Children()[0])
		vals, err := conformTo(child, *t.Element, ft.Elem(), mem)
		child.Release()
		if err != nil {
			return nil, fmt.Errorf("vector element: %w", err)
		}
		defer vals.Release()
		return rebuild(arr, target, []arrow.ArrayData{vals.Data()}), nil
	case *array.List:
		n := int(ft.Len())
		offs := a.Offsets()
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) && int(offs[i+1]-offs[i]) != n {
				return nil, fmt.Errorf("vector of length %d has %d elements at row %d", n, offs[i+1]-offs[i], i)
			}
		}
		// Null lists may have no elements; concatenate the element ranges,
		// padding nulls, into the dense child a fixed-size list needs.
		vals := a.ListValues()
		parts := make([]arrow.Array, 0, a.Len())
		defer func() {
			for _, p := range parts {
				p.Release()
			}
		}()
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				parts = append(parts, array.NewSlice(vals, int64(offs[i]), int64(offs[i+1])))
			} else {
				parts = append(parts, array.MakeArrayOfNull(mem, vals.DataType(), n))
			}
		}
		var dense arrow.Array
		if len(parts) == 0 {
			dense = array.MakeArrayOfNull(mem, vals.DataType(), 0)
		} else {
			var err error
			if dense, err = array.Concatenate(parts, mem); err != nil {
				return nil, fmt.Errorf("vector elements: %w", err)
			}
		}
		defer dense.Release()
		ev, err := conformTo(dense, *t.Element, ft.Elem(), mem)
		if err != nil {
			return nil, fmt.Errorf("vector element: %w", err)
		}
		defer ev.Release()
		d := a.Data()
		nd := array.NewData(target, d.Len(), []*memory.Buffer{d.Buffers()[0]}, []arrow.ArrayData{ev.Data()}, d.NullN(), d.Offset())
		defer nd.Release()
		return array.MakeFromData(nd), nil
	}
	return nil, fmt.Errorf("file column of Arrow type %s cannot be read as %s", arr.DataType(), t)
}
