package format

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// canonValue renders row i of arr (of Paimon type t) in the canonical JSON
// form of docs/ARCHITECTURE.md, as a Go value for encoding/json.
func canonValue(arr arrow.Array, i int, t types.DataType) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return canonFloat(float64(a.Value(i)))
	case *array.Float64:
		return canonFloat(a.Value(i))
	case *array.Decimal128:
		return types.DecimalValue{Unscaled: a.Value(i), Scale: int32(t.Scale)}.String()
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return "b64:" + base64.StdEncoding.EncodeToString(a.Value(i))
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC().Format("2006-01-02")
	case *array.Time32:
		ms := int64(a.Value(i))
		return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		v := int64(a.Value(i))
		var tv types.TimestampValue
		switch unit {
		case arrow.Millisecond:
			tv = types.TimestampValue{Millis: v}
		case arrow.Microsecond:
			tv = types.TimestampFromMicros(v)
		case arrow.Nanosecond:
			tv = types.TimestampFromNanos(v)
		case arrow.Second:
			tv = types.TimestampValue{Millis: v * 1000}
		}
		s := tv.Time().Format("2006-01-02T15:04:05.000000000")
		if t.Root == types.TimestampLTZ {
			s += "Z"
		}
		return s
	case *array.List:
		s, e := a.ValueOffsets(i)
		out := []any{}
		for j := int(s); j < int(e); j++ {
			out = append(out, canonValue(a.ListValues(), j, *t.Element))
		}
		return out
	case *array.Map:
		s, e := a.ValueOffsets(i)
		kt, vt := t.Key, t.Value
		if t.Root == types.Multiset {
			kt, vt = t.Element, &types.DataType{Root: types.Int}
		}
		out := [][]any{}
		for j := int(s); j < int(e); j++ {
			out = append(out, []any{canonValue(a.Keys(), j, *kt), canonValue(a.Items(), j, *vt)})
		}
		sort.Slice(out, func(x, y int) bool { return mustJSON(out[x][0]) < mustJSON(out[y][0]) })
		return out
	case *array.Struct:
		out := map[string]any{}
		for k, f := range t.Fields {
			out[f.Name] = canonValue(a.Field(k), i, f.Type)
		}
		return out
	}
	panic(fmt.Sprintf("canonValue: unhandled %T", arr))
}

func canonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	// Python's repr: shortest round trip, "1e-300", "10000000000.0", "1e+16".
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(s, "e") {
		mant, exp, _ := strings.Cut(s, "e")
		if ev, _ := strconv.Atoi(exp); ev >= -4 && ev < 16 {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		} else {
			if exp[0] == '+' {
				exp = "+" + strings.TrimLeft(exp[1:], "0")
			} else {
				exp = "-" + strings.TrimLeft(exp[1:], "0")
			}
			return mant + "e" + exp
		}
	}
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// canonRows renders every row of rec as one canonical JSON line.
func canonRows(rec arrow.RecordBatch, fields []types.DataField) []string {
	var out []string
	for i := 0; i < int(rec.NumRows()); i++ {
		row := map[string]any{}
		for c, f := range fields {
			row[f.Name] = canonValue(rec.Column(c), i, f.Type)
		}
		out = append(out, canonJSON(row))
	}
	return out
}

// canonJSON encodes like Python's json.dumps(sort_keys=True, ensure_ascii=False).
func canonJSON(v any) string {
	var b strings.Builder
	writeCanon(&b, v)
	return b.String()
}

func writeCanon(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCanon(b, k)
			b.WriteString(": ")
			writeCanon(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCanon(b, e)
		}
		b.WriteByte(']')
	case [][]any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCanon(b, e)
		}
		b.WriteByte(']')
	case string:
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		b.WriteString(strings.TrimSuffix(sb.String(), "\n"))
	default:
		b.WriteString(mustJSON(x))
	}
}
