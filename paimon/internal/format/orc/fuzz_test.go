package orc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// paimonType is the Paimon type a column of ORC type id reads as (what
// Paimon's ORC writer maps from), or false for what has none (union).
func paimonType(f *File, id uint64, depth int) (types.DataType, bool) {
	t := f.ft.types[id]
	dt := types.DataType{Nullable: true}
	switch t.kind {
	case kBoolean:
		dt.Root = types.Boolean
	case kByte:
		dt.Root = types.TinyInt
	case kShort:
		dt.Root = types.SmallInt
	case kInt:
		dt.Root = types.Int
	case kLong:
		dt.Root = types.BigInt
	case kFloat:
		dt.Root = types.Float
	case kDouble:
		dt.Root = types.Double
	case kString, kVarchar, kChar:
		dt.Root, dt.Length = types.VarChar, 1<<31-1
	case kBinary:
		dt.Root, dt.Length = types.VarBinary, 1<<31-1
	case kTimestamp:
		dt.Root, dt.Precision = types.Timestamp, 9
	case kTimestampInstant:
		dt.Root, dt.Precision = types.TimestampLTZ, 6
	case kDate:
		dt.Root = types.Date
	case kDecimal:
		if t.precision < 1 || t.precision > 38 || t.scale > t.precision {
			return dt, false
		}
		dt.Root, dt.Precision, dt.Scale = types.Decimal, int(t.precision), int(t.scale)
	case kList, kMap, kStruct:
		if depth > 8 {
			return dt, false
		}
		var kids []types.DataType
		for _, s := range t.subtypes {
			k, ok := paimonType(f, s, depth+1)
			if !ok {
				return dt, false
			}
			kids = append(kids, k)
		}
		switch t.kind {
		case kList:
			if len(kids) != 1 {
				return dt, false
			}
			dt.Root, dt.Element = types.Array, &kids[0]
		case kMap:
			if len(kids) != 2 {
				return dt, false
			}
			kids[0].Nullable = false
			dt.Root, dt.Key, dt.Value = types.Map, &kids[0], &kids[1]
		case kStruct:
			if len(kids) != len(t.fieldNames) {
				return dt, false
			}
			dt.Root = types.Row
			for i, k := range kids {
				dt.Fields = append(dt.Fields, types.DataField{ID: i, Name: t.fieldNames[i], Type: k})
			}
		}
	default:
		return dt, false
	}
	return dt, true
}

// decodeAll reads every stripe of an ORC file with every column it can map,
// building the Arrow arrays, skipping every other row group of the row
// index, and returns the first error.
func decodeAll(b []byte) (rows int64, err error) {
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var fields []Field
	var afs []arrow.Field
	for i := range f.names {
		pt, ok := paimonType(f, f.ids[i], 0)
		if !ok {
			continue
		}
		at, err := arrowconv.Type(pt)
		if err != nil {
			continue
		}
		fields = append(fields, Field{Index: i, Type: pt, Arrow: at})
		afs = append(afs, arrow.Field{Name: f.names[i], Type: at, Nullable: true})
	}
	bld := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(afs, nil))
	defer bld.Release()
	bs := make([]array.Builder, len(fields))
	for i := range fields {
		bs[i] = bld.Field(i)
	}
	if len(fields) == 0 {
		return 0, nil
	}
	for s := 0; s < f.NumStripes(); s++ {
		f.StripeStats(s, fields)
		// Every other row group: the row index is read and seeked to.
		sr, err := f.OpenStripe(s, fields, Options{LegacyTimestampLTZ: true, KeepRowGroup: func(g RowGroup) bool { return g.Group%2 == 0 }})
		if err != nil {
			return rows, err
		}
		for sr.Rows() > 0 {
			n := int(min(sr.Contiguous(), 1000))
			if err := sr.Read(bs, n); err != nil {
				return rows, err
			}
			bld.NewRecordBatch().Release()
			rows += int64(n)
			if rows > 1<<20 {
				// A corrupt row count over streams that decode (runs of
				// NULLs compress well) would take long, not forever.
				return rows, nil
			}
		}
	}
	return rows, nil
}

func fixtureFiles(t testing.TB) [][]byte {
	paths, err := filepath.Glob("../testdata/*.orc")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no ORC fixtures: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzDecode feeds corrupt and truncated ORC files to the tail, stripe and
// stream decoders: every input must end in an error or a full read, never a
// panic or a hang. Seeds: the committed ORC fixtures, whole and cut.
func FuzzDecode(f *testing.F) {
	for _, b := range fixtureFiles(f) {
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(b[len(b)-200:])
	}
	f.Add([]byte("ORC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeAll(b)
	})
}

// Every single-byte corruption of the tail and every truncation of a
// fixture decodes to rows or to an error, never a panic; errors about bytes
// wrap ErrCorrupt.
func TestCorruptTail(t *testing.T) {
	b := fixtureFiles(t)[0]
	full, err := decodeAll(b)
	if err != nil || full == 0 {
		t.Fatalf("fixture: %d rows, %v", full, err)
	}
	for cut := 0; cut < len(b); cut += max(1, len(b)/97) {
		if _, err := decodeAll(b[:cut]); err == nil {
			t.Errorf("truncated to %d bytes: no error", cut)
		}
	}
	for i := len(b) - 1; i >= len(b)-400 && i >= 0; i-- {
		c := append([]byte(nil), b...)
		c[i] ^= 0x5a
		decodeAll(c) // must not panic
	}
	if _, err := decodeAll([]byte("not an orc file at all")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("garbage: %v", err)
	}
}
