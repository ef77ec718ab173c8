package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/avro"
	"github.com/twmb/avro/ocf"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/internal/codec"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// rawLogicalTypes are the Avro logical types whose built-in conversion
// (time.Time, big.Rat, ...) is switched off: the reader wants the wire
// integers and bytes and converts them itself, straight into Arrow units.
func rawLogicalTypes() []avro.SchemaOpt {
	var out []avro.SchemaOpt
	for _, lt := range []string{"date", "time-millis", "time-micros", "timestamp-millis", "timestamp-micros",
		"timestamp-nanos", "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos",
		"decimal", "uuid", "duration", "big-decimal"} {
		out = append(out, avro.CustomType{LogicalType: lt})
	}
	return out
}

type avroReader struct {
	path   string
	opts   Options
	f      fileio.File
	rd     *ocf.Reader
	schema *arrow.Schema
	bld    *array.RecordBuilder
	fields []string // writer field name of each requested field
	// nullableRow: the file declares its row as ["null", record] (Paimon 0.8 to 1.0).
	nullableRow bool
	appends     []appender
	pos         int64 // physical position of the next record
	done        bool
}

type appender func(v any) error

func (r *avroReader) open(f fileio.File, path string, opts Options) (err error) {
	r.f, r.path, r.opts = f, path, opts
	// bzip2 and xz are Avro codecs Java writes (file.compression) that ocf
	// does not decode itself.
	r.rd, err = ocf.NewReader(io.NewSectionReader(f, 0, f.Size()), ocf.WithSchemaOpts(rawLogicalTypes()...),
		ocf.WithCodec(codec.Bzip2{}), ocf.WithCodec(codec.XZ{}))
	if err != nil {
		return fmt.Errorf("read avro file %s: %w", path, err)
	}
	root := r.rd.Schema().Root()
	if root.Type == "union" {
		// Paimon 0.8 to 1.0 declare the row type nullable, so the file's
		// schema is ["null", record]. Java's AvroRowDatumReader takes the second branch as the
		// row and fails on a record in the null branch ("Cannot read a null row"): Next does the
		// same. Any other union is not something Paimon writes.
		if len(root.Branches) != 2 || root.Branches[0].Type != "null" || root.Branches[1].Type != "record" {
			return fmt.Errorf("avro file %s: top-level schema is a union of %s, not a record or [\"null\", record]",
				path, unionBranches(root))
		}
		root, r.nullableRow = &root.Branches[1], true
	}
	if root.Type != "record" {
		return fmt.Errorf("avro file %s: top-level schema is %q, not a record", path, root.Type)
	}
	r.schema, err = arrowconv.Schema(opts.Fields)
	if err != nil {
		return fmt.Errorf("avro file %s: %w", path, err)
	}
	r.bld = array.NewRecordBuilder(opts.Alloc, r.schema)
	for i, fld := range opts.Fields {
		wf := avroField(root.Fields, fld.Name)
		if wf == nil {
			return fmt.Errorf("column %q is not in avro file %s", fld.Name, path)
		}
		ap, err := makeAppender(fld.Type, &wf.Type, r.bld.Field(i))
		if err != nil {
			return fmt.Errorf("avro file %s column %q: %w", path, fld.Name, err)
		}
		r.fields = append(r.fields, wf.Name)
		r.appends = append(r.appends, ap)
	}
	return nil
}

func avroField(fs []avro.SchemaField, name string) *avro.SchemaField {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	for i := range fs {
		if strings.EqualFold(fs[i].Name, name) {
			return &fs[i]
		}
	}
	return nil
}

func (r *avroReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.bld == nil {
		return nil, fmt.Errorf("read avro file %s: reader is closed", r.path)
	}
	for !r.done {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := 0
		for n < r.opts.BatchSize {
			var v any
			err := r.rd.Decode(&v)
			if errors.Is(err, io.EOF) {
				r.done = true
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read avro file %s record %d: %w", r.path, r.pos, err)
			}
			pos := r.pos
			r.pos++
			if r.opts.Deleted != nil && r.opts.Deleted.IsDeleted(pos) {
				continue
			}
			if v == nil && r.nullableRow {
				return nil, fmt.Errorf("read avro file %s record %d: the row itself is NULL (the null branch of the file's [\"null\", record] schema), which no Paimon table row can be: Java Paimon fails on it too (\"Cannot read a null row\")", r.path, pos)
			}
			rec, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("read avro file %s record %d: decoded %T, not a record", r.path, pos, v)
			}
			for i, ap := range r.appends {
				if err := ap(rec[r.fields[i]]); err != nil {
					return nil, fmt.Errorf("read avro file %s record %d column %q: %w", r.path, pos, r.opts.Fields[i].Name, err)
				}
			}
			n++
		}
		if n > 0 {
			if len(r.opts.Fields) == 0 {
				return array.NewRecordBatch(r.schema, nil, int64(n)), nil
			}
			return r.bld.NewRecordBatch(), nil
		}
	}
	return nil, io.EOF
}

func (r *avroReader) Close() error {
	if r.bld != nil {
		r.bld.Release()
		r.bld = nil
	}
	var errs []error
	if r.rd != nil {
		errs = append(errs, r.rd.Close())
		r.rd = nil
	}
	if r.f != nil {
		if err := r.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close avro file %s: %w", r.path, err))
		}
		r.f = nil
	}
	return errors.Join(errs...)
}

func unionBranches(n *avro.SchemaNode) string {
	names := make([]string, len(n.Branches))
	for i := range n.Branches {
		names[i] = n.Branches[i].Type
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// nonNull strips the ["null", T] union Paimon writes for nullable types.
func nonNull(n *avro.SchemaNode) (*avro.SchemaNode, error) {
	if n.Type != "union" {
		return n, nil
	}
	var out *avro.SchemaNode
	for i := range n.Branches {
		if n.Branches[i].Type == "null" {
			continue
		}
		if out != nil {
			return nil, fmt.Errorf("avro union with more than one non-null branch")
		}
		out = &n.Branches[i]
	}
	if out == nil {
		return nil, fmt.Errorf("avro union without a non-null branch")
	}
	return out, nil
}

func typeErr(v any, t types.DataType) error {
	return fmt.Errorf("avro value of Go type %T cannot be read as %s", v, t)
}

// makeAppender compiles, once per file, the conversion of one Avro value of
// writer schema n to Paimon type t appended to b.
// appendAs is the appender of a scalar column (nulls aside): the Avro value
// as one of the Go types the decoder yields for the column's type (as), and
// conv to the builder's value; any other Go type is refused.
func appendAs[V, T any](t types.DataType, b interface{ Append(T) }, as func(any) (V, bool), conv func(V) T) func(v any) error {
	return func(v any) error {
		x, ok := as(v)
		if !ok {
			return typeErr(v, t)
		}
		b.Append(conv(x))
		return nil
	}
}

// is reads an Avro value that must be exactly a V.
func is[V any](v any) (V, bool) {
	x, ok := v.(V)
	return x, ok
}

func same[V any](x V) V { return x }

func makeAppender(t types.DataType, n *avro.SchemaNode, b array.Builder) (appender, error) {
	n, err := nonNull(n)
	if err != nil {
		return nil, err
	}
	nullOr := func(f func(v any) error) appender {
		return func(v any) error {
			if v == nil {
				b.AppendNull()
				return nil
			}
			return f(v)
		}
	}
	switch t.Root {
	case types.Boolean:
		return nullOr(appendAs(t, b.(*array.BooleanBuilder), is[bool], same[bool])), nil
	case types.TinyInt:
		return nullOr(appendAs(t, b.(*array.Int8Builder), asInt64, func(x int64) int8 { return int8(x) })), nil
	case types.SmallInt:
		return nullOr(appendAs(t, b.(*array.Int16Builder), asInt64, func(x int64) int16 { return int16(x) })), nil
	case types.Int:
		return nullOr(appendAs(t, b.(*array.Int32Builder), asInt64, func(x int64) int32 { return int32(x) })), nil
	case types.BigInt:
		return nullOr(appendAs(t, b.(*array.Int64Builder), asInt64, same[int64])), nil
	case types.Float:
		return nullOr(appendAs(t, b.(*array.Float32Builder), is[float32], same[float32])), nil
	case types.Double:
		bb := b.(*array.Float64Builder)
		return nullOr(func(v any) error {
			switch x := v.(type) {
			case float64:
				bb.Append(x)
			case float32:
				bb.Append(float64(x))
			default:
				return typeErr(v, t)
			}
			return nil
		}), nil
	case types.Decimal:
		if n.LogicalType == "decimal" && n.Scale != t.Scale {
			return nil, fmt.Errorf("avro decimal scale %d differs from schema scale %d", n.Scale, t.Scale)
		}
		bb := b.(*array.Decimal128Builder)
		return nullOr(func(v any) error {
			x, ok := v.([]byte)
			if !ok {
				return typeErr(v, t)
			}
			num, ok := decimalFromBigEndian(x)
			if !ok {
				return fmt.Errorf("avro decimal of %d bytes does not fit DECIMAL(%d, %d)", len(x), t.Precision, t.Scale)
			}
			bb.Append(num)
			return nil
		}), nil
	case types.Char, types.VarChar:
		bb := b.(*array.StringBuilder)
		return nullOr(func(v any) error {
			switch x := v.(type) {
			case string:
				bb.Append(x)
			case []byte:
				bb.BinaryBuilder.Append(x)
			default:
				return typeErr(v, t)
			}
			return nil
		}), nil
	case types.Binary, types.VarBinary:
		bb := b.(*array.BinaryBuilder)
		return nullOr(func(v any) error {
			switch x := v.(type) {
			case []byte:
				bb.Append(x)
			case string:
				bb.AppendString(x)
			default:
				return typeErr(v, t)
			}
			return nil
		}), nil
	case types.Date:
		return nullOr(appendAs(t, b.(*array.Date32Builder), is[int32], func(x int32) arrow.Date32 { return arrow.Date32(x) })), nil
	case types.Time:
		div := int64(1)
		if n.LogicalType == "time-micros" {
			div = 1000
		}
		return nullOr(appendAs(t, b.(*array.Time32Builder), asInt64, func(x int64) arrow.Time32 { return arrow.Time32(x / div) })), nil
	case types.Timestamp, types.TimestampLTZ:
		bb := b.(*array.TimestampBuilder)
		from := arrow.Millisecond
		switch {
		case strings.HasSuffix(n.LogicalType, "-micros"):
			from = arrow.Microsecond
		case strings.HasSuffix(n.LogicalType, "-nanos"):
			from = arrow.Nanosecond
		}
		to := arrowconv.TimeUnitFor(t.Precision)
		f, tt := arith.UnitsPerSecond(from), arith.UnitsPerSecond(to)
		return nullOr(func(v any) error {
			x, ok := v.(int64)
			if !ok {
				return typeErr(v, t)
			}
			switch {
			case f < tt:
				x *= tt / f
			case f > tt:
				d := f / tt
				q := x / d
				if x%d < 0 {
					q--
				}
				x = q
			}
			bb.Append(arrow.Timestamp(x))
			return nil
		}), nil
	case types.Array, types.Vector:
		if n.Type != "array" || n.Items == nil {
			return nil, fmt.Errorf("avro type %q cannot be read as %s", n.Type, t)
		}
		var vb array.Builder
		var open func()
		switch lb := b.(type) {
		case *array.ListBuilder:
			vb, open = lb.ValueBuilder(), func() { lb.Append(true) }
		case *array.FixedSizeListBuilder:
			vb, open = lb.ValueBuilder(), func() { lb.Append(true) }
		}
		elem, err := makeAppender(*t.Element, n.Items, vb)
		if err != nil {
			return nil, fmt.Errorf("element: %w", err)
		}
		return nullOr(func(v any) error {
			xs, ok := v.([]any)
			if !ok {
				return typeErr(v, t)
			}
			if t.Root == types.Vector && len(xs) != t.Length {
				return fmt.Errorf("vector of length %d has %d elements", t.Length, len(xs))
			}
			open()
			for _, x := range xs {
				if err := elem(x); err != nil {
					return err
				}
			}
			return nil
		}), nil
	case types.Map, types.Multiset:
		mb := b.(*array.MapBuilder)
		kt, vt := t.Key, t.Value
		if t.Root == types.Multiset {
			kt = t.Element
			vt = &types.DataType{Root: types.Int}
		}
		switch n.Type {
		case "map":
			if !kt.IsString() {
				return nil, fmt.Errorf("avro map cannot hold %s keys", kt)
			}
			ka, err := makeAppender(*kt, &avro.SchemaNode{Type: "string"}, mb.KeyBuilder())
			if err != nil {
				return nil, err
			}
			va, err := makeAppender(*vt, n.Values, mb.ItemBuilder())
			if err != nil {
				return nil, fmt.Errorf("map value: %w", err)
			}
			return nullOr(func(v any) error {
				m, ok := v.(map[string]any)
				if !ok {
					return typeErr(v, t)
				}
				// Go maps are unordered; sorted keys make the output deterministic.
				keys := slices.Sorted(maps.Keys(m))
				mb.Append(true)
				for _, k := range keys {
					if err := ka(k); err != nil {
						return err
					}
					if err := va(m[k]); err != nil {
						return err
					}
				}
				return nil
			}), nil
		case "array":
			// Java's AvroSchemaConverter: maps with non-string keys are
			// arrays of {key, value} records.
			it, err := nonNull(n.Items)
			if err != nil || it.Type != "record" {
				return nil, fmt.Errorf("avro array of %v cannot be read as %s", n.Items.Type, t)
			}
			kf, vf := avroField(it.Fields, "key"), avroField(it.Fields, "value")
			if kf == nil || vf == nil {
				return nil, fmt.Errorf("avro map entry record lacks key or value")
			}
			ka, err := makeAppender(*kt, &kf.Type, mb.KeyBuilder())
			if err != nil {
				return nil, fmt.Errorf("map key: %w", err)
			}
			va, err := makeAppender(*vt, &vf.Type, mb.ItemBuilder())
			if err != nil {
				return nil, fmt.Errorf("map value: %w", err)
			}
			return nullOr(func(v any) error {
				xs, ok := v.([]any)
				if !ok {
					return typeErr(v, t)
				}
				mb.Append(true)
				for _, x := range xs {
					e, ok := x.(map[string]any)
					if !ok {
						return typeErr(x, t)
					}
					if e[kf.Name] == nil {
						return fmt.Errorf("null map key")
					}
					if err := ka(e[kf.Name]); err != nil {
						return err
					}
					if err := va(e[vf.Name]); err != nil {
						return err
					}
				}
				return nil
			}), nil
		}
		return nil, fmt.Errorf("avro type %q cannot be read as %s", n.Type, t)
	case types.Row:
		if n.Type != "record" {
			return nil, fmt.Errorf("avro type %q cannot be read as %s", n.Type, t)
		}
		sb := b.(*array.StructBuilder)
		names := make([]string, len(t.Fields))
		aps := make([]appender, len(t.Fields))
		for i, f := range t.Fields {
			wf := avroField(n.Fields, f.Name)
			if wf == nil {
				return nil, fmt.Errorf("nested field %q is not in the file", f.Name)
			}
			ap, err := makeAppender(f.Type, &wf.Type, sb.FieldBuilder(i))
			if err != nil {
				return nil, fmt.Errorf("nested field %q: %w", f.Name, err)
			}
			names[i], aps[i] = wf.Name, ap
		}
		return func(v any) error {
			if v == nil {
				// A null struct still needs a slot in every child.
				sb.AppendNull()
				return nil
			}
			m, ok := v.(map[string]any)
			if !ok {
				return typeErr(v, t)
			}
			sb.Append(true)
			for i, ap := range aps {
				if err := ap(m[names[i]]); err != nil {
					return fmt.Errorf("nested field %q: %w", t.Fields[i].Name, err)
				}
			}
			return nil
		}, nil
	}
	return nil, fmt.Errorf("type %s: %w", t, types.ErrUnsupported)
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}
