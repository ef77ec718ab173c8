package manifest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Java writes manifests, manifest lists and index manifests as Parquet
// with manifest.format=parquet: the same row types as the Avro files, the
// same field names (_FILE_NAME, _KIND...). They are decoded into the same
// record structs, matched by their avro tags, so one set of structs,
// requirements and checks serves both formats.

// parquetBatchRows is the Arrow batch size of a manifest read: manifests
// are small (8 MB target), and a batch bounds the memory of a large one.
const parquetBatchRows = 4096

// decodeParquet decodes every row of a Parquet metadata file into a fresh
// T, after checking that its schema has the required fields.
func decodeParquet[T any](ctx context.Context, data []byte, req *schemaReq, fn func(*T) error) error {
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("parquet manifest: %w: %w", err, types.ErrCorrupt)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: parquetBatchRows}, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("parquet manifest: %w", err)
	}
	sch, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("parquet manifest schema: %w", err)
	}
	if err := req.checkArrow(arrow.StructOf(sch.Fields()...)); err != nil {
		return err
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("parquet manifest: %w", err)
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		st := array.RecordToStructArray(rec)
		for i := 0; i < st.Len(); i++ {
			if n%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					st.Release()
					return err
				}
			}
			var v T
			if err := fillStruct(reflect.ValueOf(&v).Elem(), st, i); err != nil {
				st.Release()
				return fmt.Errorf("row %d: %w", n, err)
			}
			if err := fn(&v); err != nil {
				st.Release()
				return fmt.Errorf("row %d: %w", n, err)
			}
			n++
		}
		st.Release()
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("parquet manifest row %d: %w", n, err)
	}
	if want := pf.NumRows(); int64(n) != want {
		return fmt.Errorf("parquet manifest: read %d rows, its footer records %d: %w", n, want, types.ErrCorrupt)
	}
	return nil
}

// checkArrow is check for a Parquet file's Arrow schema.
func (r *schemaReq) checkArrow(st *arrow.StructType) error {
	if r == nil {
		return nil
	}
	for _, f := range r.fields {
		if _, ok := st.FieldIdx(f); !ok {
			return fmt.Errorf("parquet manifest lacks required field %s", f)
		}
	}
	for name, sub := range r.nested {
		if i, ok := st.FieldIdx(name); ok {
			if err := sub.checkRow(st.Field(i).Type, "field "+name); err != nil {
				return err
			}
		}
	}
	for name, sub := range r.arrayItems {
		i, ok := st.FieldIdx(name)
		if !ok {
			continue
		}
		lt, ok := st.Field(i).Type.(*arrow.ListType)
		if !ok {
			return fmt.Errorf("field %s: expected an array, got %s", name, st.Field(i).Type)
		}
		if err := sub.checkRow(lt.Elem(), "field "+name+" items"); err != nil {
			return err
		}
	}
	return nil
}

// checkRow is checkArrow for t, which must be a row; what names it in
// errors.
func (r *schemaReq) checkRow(t arrow.DataType, what string) error {
	st, ok := t.(*arrow.StructType)
	if !ok {
		return fmt.Errorf("%s: expected a row, got %s", what, t)
	}
	if err := r.checkArrow(st); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// fillStruct sets the fields of v (a record struct) that have an avro tag
// from the same-named children of st at row; a child the file lacks leaves
// the field at zero, as with an Avro writer schema without it.
func fillStruct(v reflect.Value, st *array.Struct, row int) error {
	typ := st.DataType().(*arrow.StructType)
	vt := v.Type()
	for i := 0; i < vt.NumField(); i++ {
		sf := vt.Field(i)
		tag := sf.Tag.Get("avro")
		if sf.Anonymous && tag == "" && sf.Type.Kind() == reflect.Struct {
			// An embedded struct's fields are matched by their own tags.
			if err := fillStruct(v.Field(i), st, row); err != nil {
				return err
			}
			continue
		}
		if tag == "" || tag == "-" {
			continue
		}
		idx, ok := typ.FieldIdx(tag)
		if !ok {
			continue
		}
		if err := fillValue(v.Field(i), st.Field(idx), row); err != nil {
			return fmt.Errorf("%s: %w", tag, err)
		}
	}
	return nil
}

// fillValue sets v from a[row]. Pointers and slices take nulls; a null for
// any other Go type is a corrupt file, as a missing non-nullable Avro value
// would be.
func fillValue(v reflect.Value, a arrow.Array, row int) error {
	if a.IsNull(row) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice:
			v.SetZero()
			return nil
		}
		return fmt.Errorf("null in a non-nullable field: %w", types.ErrCorrupt)
	}
	switch v.Kind() {
	case reflect.Pointer:
		nv := reflect.New(v.Type().Elem())
		if err := fillValue(nv.Elem(), a, row); err != nil {
			return err
		}
		v.Set(nv)
		return nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var n int64
		switch x := a.(type) {
		case *array.Int8:
			n = int64(x.Value(row))
		case *array.Int16:
			n = int64(x.Value(row))
		case *array.Int32:
			n = int64(x.Value(row))
		case *array.Int64:
			n = x.Value(row)
		case *array.Timestamp:
			// _CREATION_TIME (TIMESTAMP(3)): epoch milliseconds, as the Avro
			// files' timestamp-millis long.
			switch ts := int64(x.Value(row)); x.DataType().(*arrow.TimestampType).Unit {
			case arrow.Second:
				n = ts * 1000
			case arrow.Millisecond:
				n = ts
			case arrow.Microsecond:
				n = ts / 1000
			default:
				n = ts / 1_000_000
			}
		default:
			return fmt.Errorf("expected an integer column, got %s", a.DataType())
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("value %d out of range of %s: %w", n, v.Type(), types.ErrCorrupt)
		}
		v.SetInt(n)
		return nil
	case reflect.String:
		switch x := a.(type) {
		case *array.String:
			v.SetString(x.Value(row))
		case *array.LargeString:
			v.SetString(x.Value(row))
		case *array.Binary:
			v.SetString(string(x.Value(row)))
		default:
			return fmt.Errorf("expected a string column, got %s", a.DataType())
		}
		return nil
	case reflect.Struct:
		st, ok := a.(*array.Struct)
		if !ok {
			return fmt.Errorf("expected a row column, got %s", a.DataType())
		}
		return fillStruct(v, st, row)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			switch x := a.(type) {
			case *array.Binary:
				v.SetBytes(bytes.Clone(x.Value(row)))
			case *array.LargeBinary:
				v.SetBytes(bytes.Clone(x.Value(row)))
			default:
				return fmt.Errorf("expected a bytes column, got %s", a.DataType())
			}
			return nil
		}
		l, ok := a.(array.ListLike)
		if !ok {
			return fmt.Errorf("expected an array column, got %s", a.DataType())
		}
		start, end := l.ValueOffsets(row)
		out := reflect.MakeSlice(v.Type(), int(end-start), int(end-start))
		items := l.ListValues()
		for j := start; j < end; j++ {
			if err := fillValue(out.Index(int(j-start)), items, int(j)); err != nil {
				return fmt.Errorf("item %d: %w", j-start, err)
			}
		}
		v.Set(out)
		return nil
	}
	return fmt.Errorf("no Parquet decoding for %s", v.Type())
}
