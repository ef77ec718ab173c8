package orc

import (
	"math"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// StripeStats returns the statistics of stripe s for fields, as the
// paimon/types values RowGroupStats holds: min, max and null count per
// field, nil where unknown. Only what is exact for the value Java reads is
// returned, so pruning can only save work:
//   - integers, DATE and TIME from integer/date statistics;
//   - STRING and VARCHAR from string statistics, or from their lower and
//     upper bounds when the writer truncated long values (bounds still
//     enclose every value);
//   - null counts as rows minus the number of values (what Java Paimon's
//     OrcSimpleStatsExtractor computes).
//
// CHAR is left unknown (ORC's statistics hold the padded value, the reader
// returns it trimmed), and so are floating point (NaN handling differs
// between ORC writers), decimal, timestamp (zone-dependent) and nested
// columns. Unreadable stripe statistics make every field unknown.
func (f *File) StripeStats(s int, fields []Field) (minV, maxV []any, nulls []*int64) {
	n := len(fields)
	minV, maxV, nulls = make([]any, n), make([]any, n), make([]*int64, n)
	if !f.statsRead {
		f.statsRead = true
		f.stripeStats, f.statsErr = f.readStripeStats()
	}
	if f.statsErr != nil || s >= len(f.stripeStats) || len(f.stripeStats) != len(f.ft.stripes) {
		return
	}
	cols := f.stripeStats[s]
	f.fieldStats(func(id uint64) *colStats {
		if id >= uint64(len(cols)) {
			return nil
		}
		return &cols[id]
	}, f.ft.stripes[s].numRows, fields, minV, maxV, nulls)
	return
}

// fieldStats fills the bounds of fields from the column statistics (stat
// by column id, nil when absent) of a stripe or a row group of rows rows:
// the one mapping of ORC statistics to may-match bounds.
func (f *File) fieldStats(stat func(id uint64) *colStats, rows uint64, fields []Field, minV, maxV []any, nulls []*int64) {
	for i, fl := range fields {
		id := f.ids[fl.Index]
		cs := stat(id)
		if cs == nil {
			continue
		}
		if cs.hasNumValues && cs.numValues <= rows {
			nc := int64(rows - cs.numValues)
			nulls[i] = &nc
		}
		minV[i], maxV[i] = statBounds(cs, f.ft.types[id], fl.Type)
	}
}

func (f *File) readStripeStats() ([][]colStats, error) {
	if f.ps.metadataLength == 0 {
		return nil, nil
	}
	raw := make([]byte, f.ps.metadataLength)
	if err := f.readAt(raw, f.metaStart); err != nil {
		return nil, err
	}
	dec, err := f.d.decodeAll(raw, maxMetadata)
	if err != nil {
		return nil, err
	}
	return parseMetadata(dec)
}

func statBounds(cs *colStats, t orcType, pt types.DataType) (any, any) {
	switch pt.Root {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Time:
		if !cs.hasIntMin || !cs.hasIntMax {
			return nil, nil
		}
		lo, hi := cs.intMin, cs.intMax
		switch pt.Root {
		case types.TinyInt:
			if lo >= math.MinInt8 && hi <= math.MaxInt8 {
				return int8(lo), int8(hi)
			}
		case types.SmallInt:
			if lo >= math.MinInt16 && hi <= math.MaxInt16 {
				return int16(lo), int16(hi)
			}
		case types.Int:
			if lo >= math.MinInt32 && hi <= math.MaxInt32 {
				return int32(lo), int32(hi)
			}
		case types.Time:
			if lo >= 0 && hi < 86_400_000 {
				return types.TimeValue(lo), types.TimeValue(hi)
			}
		case types.BigInt:
			return lo, hi
		}
	case types.Date:
		if cs.dateMin != nil && cs.dateMax != nil {
			return types.DateValue(*cs.dateMin), types.DateValue(*cs.dateMax)
		}
	case types.Char, types.VarChar:
		if t.kind != kString && t.kind != kVarchar {
			return nil, nil
		}
		if t.kind == kVarchar && t.maxLength > 0 && (pt.Length <= 0 || uint64(pt.Length) != t.maxLength) {
			return nil, nil // the reader truncates: bounds could lie above
		}
		lo, hi := cs.strMin, cs.strMax
		if lo == nil || hi == nil {
			lo, hi = cs.strLower, cs.strUpper
		}
		if lo != nil && hi != nil {
			return *lo, *hi
		}
	}
	return nil, nil
}
