// Package canon is the one canonical JSON encoding of Arrow rows that every oracle comparison
// uses (docs/ARCHITECTURE.md, "Canonical JSON"): the Go half of resources/pygen/canon.py, byte
// for byte. The interop suite, the object-store suite and the package tests of the format,
// merge and public read paths all compare through it, so a change to the encoding is made here
// and in canon.py only.
//
// The encoding is driven by the Arrow type alone (epoch units, decimal scale, time-zone
// presence), never by a Paimon type, so it also encodes files read with plain pqarrow.
package canon

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Record returns the canonical JSON line of every row of rec, in row order: an object keyed by
// column name, keys sorted, no spaces. It is written by hand (not encoding/json) because
// Python's json.dumps escapes differently from Go's (HTML characters, U+2028, \b and \f).
func Record(rec arrow.RecordBatch) ([]string, error) {
	n := int(rec.NumRows())
	sch := rec.Schema()
	names := make([]string, len(sch.Fields()))
	for i, f := range sch.Fields() {
		names[i] = f.Name
	}
	order := sortedIndex(names)
	out := make([]string, n)
	var sb strings.Builder
	for r := 0; r < n; r++ {
		sb.Reset()
		sb.WriteByte('{')
		for j, c := range order {
			if j > 0 {
				sb.WriteByte(',')
			}
			writeString(&sb, names[c])
			sb.WriteByte(':')
			if err := writeValue(&sb, rec.Column(c), r); err != nil {
				return nil, fmt.Errorf("row %d column %q: %w", r, names[c], err)
			}
		}
		sb.WriteByte('}')
		out[r] = sb.String()
	}
	return out, nil
}

// Reader drains rr and returns the sorted canonical lines of all its rows; row sets are
// compared order-insensitively because neither oracle promises a row order.
func Reader(rr array.RecordReader) ([]string, error) {
	var lines []string
	for rr.Next() {
		l, err := Record(rr.RecordBatch())
		if err != nil {
			return nil, err
		}
		lines = append(lines, l...)
	}
	if err := rr.Err(); err != nil {
		return nil, err
	}
	sort.Strings(lines)
	return lines, nil
}

// Column returns the canonical JSON value of every element of arr, in order (null as "null").
func Column(arr arrow.Array) ([]string, error) {
	out := make([]string, arr.Len())
	for i := range out {
		v, err := Value(arr, i)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// Value returns the canonical JSON value of element i of arr.
func Value(arr arrow.Array, i int) (string, error) {
	var sb strings.Builder
	if err := writeValue(&sb, arr, i); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// Quote returns s as a JSON string spelled the way Python's json.dumps(ensure_ascii=False)
// spells it.
func Quote(s string) string {
	var sb strings.Builder
	writeString(&sb, s)
	return sb.String()
}

func sortedIndex(names []string) []int {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	// Byte order of UTF-8 equals code-point order, which is what Python's sort_keys uses.
	sort.SliceStable(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	return idx
}

func writeValue(sb *strings.Builder, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		sb.WriteString("null")
		return nil
	}
	switch a := arr.(type) {
	case *array.Dictionary:
		return writeValue(sb, a.Dictionary(), a.GetValueIndex(i))
	case *array.Boolean:
		sb.WriteString(strconv.FormatBool(a.Value(i)))
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64:
		// Arrow prints a non-null integer in plain base 10.
		sb.WriteString(a.ValueStr(i))
	case *array.Float32:
		writeString(sb, Float(float64(a.Value(i))))
	case *array.Float64:
		writeString(sb, Float(a.Value(i)))
	case *array.Decimal128:
		scale := int(a.DataType().(*arrow.Decimal128Type).Scale)
		writeString(sb, arith.FormatUnscaled(a.Value(i).BigInt(), scale))
	case *array.Decimal256:
		scale := int(a.DataType().(*arrow.Decimal256Type).Scale)
		writeString(sb, arith.FormatUnscaled(a.Value(i).BigInt(), scale))
	case *array.String:
		writeString(sb, a.Value(i))
	case *array.LargeString:
		writeString(sb, a.Value(i))
	case *array.Binary:
		writeString(sb, "b64:"+base64.StdEncoding.EncodeToString(a.Value(i)))
	case *array.LargeBinary:
		writeString(sb, "b64:"+base64.StdEncoding.EncodeToString(a.Value(i)))
	case *array.FixedSizeBinary:
		writeString(sb, "b64:"+base64.StdEncoding.EncodeToString(a.Value(i)))
	case *array.Date32:
		writeString(sb, Date(int64(a.Value(i))))
	case *array.Date64:
		writeString(sb, Date(arith.FloorDiv(int64(a.Value(i)), 86400000)))
	case *array.Time32:
		ms := int64(a.Value(i))
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			ms *= 1000
		}
		writeString(sb, TimeMillis(ms))
	case *array.Time64:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
			v /= 1000
		}
		writeString(sb, TimeMillis(v/1000))
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		writeString(sb, Timestamp(int64(a.Value(i)), tt.Unit, tt.TimeZone != ""))
	case *types.WideTimestampArray:
		writeString(sb, WideTimestamp(a.Value(i), a.DataType().(*types.WideTimestampType).LTZ))
	case *array.Map:
		return writeMap(sb, a, i)
	case *array.List:
		start, end := a.ValueOffsets(i)
		return writeList(sb, a.ListValues(), int(start), int(end))
	case *array.LargeList:
		start, end := a.ValueOffsets(i)
		return writeList(sb, a.ListValues(), int(start), int(end))
	case *array.FixedSizeList:
		n := int(a.DataType().(*arrow.FixedSizeListType).Len())
		off := a.Offset() + i
		return writeList(sb, a.ListValues(), off*n, off*n+n)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		names := make([]string, st.NumFields())
		for k := range names {
			names[k] = st.Field(k).Name
		}
		sb.WriteByte('{')
		for j, k := range sortedIndex(names) {
			if j > 0 {
				sb.WriteByte(',')
			}
			writeString(sb, names[k])
			sb.WriteByte(':')
			if err := writeValue(sb, a.Field(k), i); err != nil {
				return fmt.Errorf("field %q: %w", names[k], err)
			}
		}
		sb.WriteByte('}')
	default:
		return fmt.Errorf("no canonical encoding for Arrow type %s", arr.DataType())
	}
	return nil
}

func writeList(sb *strings.Builder, values arrow.Array, start, end int) error {
	sb.WriteByte('[')
	for k := start; k < end; k++ {
		if k > start {
			sb.WriteByte(',')
		}
		if err := writeValue(sb, values, k); err != nil {
			return fmt.Errorf("element %d: %w", k-start, err)
		}
	}
	sb.WriteByte(']')
	return nil
}

// writeMap emits [[key, value], ...] sorted by the key's canonical JSON, so maps compare
// equal whatever order the writer stored their entries in.
func writeMap(sb *strings.Builder, m *array.Map, i int) error {
	start, end := m.ValueOffsets(i)
	type pair struct{ k, v string }
	pairs := make([]pair, 0, end-start)
	for k := int(start); k < int(end); k++ {
		var kb, vb strings.Builder
		if err := writeValue(&kb, m.Keys(), k); err != nil {
			return fmt.Errorf("map key: %w", err)
		}
		if err := writeValue(&vb, m.Items(), k); err != nil {
			return fmt.Errorf("map value: %w", err)
		}
		pairs = append(pairs, pair{kb.String(), vb.String()})
	}
	sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].k < pairs[b].k })
	sb.WriteByte('[')
	for j, p := range pairs {
		if j > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('[')
		sb.WriteString(p.k)
		sb.WriteByte(',')
		sb.WriteString(p.v)
		sb.WriteByte(']')
	}
	sb.WriteByte(']')
	return nil
}

// writeString quotes s the way Python's json.dumps(ensure_ascii=False) does: only '"', '\\'
// and C0 controls are escaped (\b \f \n \r \t by name, the rest as lowercase \u00xx).
func writeString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			sb.WriteString(`\"`)
		case c == '\\':
			sb.WriteString(`\\`)
		case c == '\b':
			sb.WriteString(`\b`)
		case c == '\f':
			sb.WriteString(`\f`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(sb, `\u%04x`, c)
		case c < utf8.RuneSelf:
			sb.WriteByte(c)
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			sb.WriteString(s[i : i+size])
			i += size
			continue
		}
		i++
	}
	sb.WriteByte('"')
}

// Float spells v like Python's repr(float): shortest round-trip digits, positional
// notation for decimal exponents in [-4, 16) with at least one fraction digit, otherwise
// d.ddde±XX. Non-finite values use the JSON-safe names of the canonical encoding.
func Float(v float64) string {
	if s, ok := arith.SpecialFloat(v); ok {
		return s
	}
	e := strconv.FormatFloat(v, 'e', -1, 64) // -d.ddddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// Date renders days since 1970-01-01 as YYYY-MM-DD.
func Date(days int64) string {
	return time.Unix(days*86400, 0).UTC().Format("2006-01-02")
}

// TimeMillis renders milliseconds of the day as HH:MM:SS.mmm.
func TimeMillis(ms int64) string {
	return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
}

// Timestamp renders an epoch value in unit as YYYY-MM-DDTHH:MM:SS.nnnnnnnnn (plus Z when
// utc). Seconds and the fraction are split per unit first: converting year-9999 seconds to
// nanoseconds would overflow int64.
func Timestamp(v int64, unit arrow.TimeUnit, utc bool) string {
	var per int64
	switch unit {
	case arrow.Second:
		per = 1
	case arrow.Millisecond:
		per = 1000
	case arrow.Microsecond:
		per = 1000000
	default:
		per = 1000000000
	}
	secs := arith.FloorDiv(v, per)
	return dateTime(secs, (v-secs*per)*(1000000000/per), utc)
}

// WideTimestamp renders a types.WideTimestampType value as Timestamp renders
// the nanosecond unit.
func WideTimestamp(v types.TimestampValue, utc bool) string {
	secs := arith.FloorDiv(v.Millis, 1000)
	return dateTime(secs, (v.Millis-secs*1000)*1000000+int64(v.NanoOfMilli), utc)
}

func dateTime(secs, nanos int64, utc bool) string {
	s := time.Unix(secs, 0).UTC().Format("2006-01-02T15:04:05") + fmt.Sprintf(".%09d", nanos)
	if utc {
		s += "Z"
	}
	return s
}
