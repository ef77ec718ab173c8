package format

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/connect-paimon/connect-paimon/internal/arith"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Java Paimon writes TIMESTAMP(7..9) as INT96 with Java's truncating
// division (ParquetRowDataWriter.timestampToInt96): for instants before 1970
// the nanoseconds-of-day field is negative. arrow-go's pqarrow refuses such
// values, so top-level INT96 columns are decoded here from the column chunk
// reader, in lockstep with the pqarrow batches of the other columns.

const (
	julianEpochDay = 2440588
	nanosPerDay    = 86400 * 1_000_000_000
)

// int96Value decodes an INT96 value the way Java wrote it: signed
// nanoseconds of day plus the Julian day. Every value Java writes (years
// 0001..9999) fits a TimestampValue; an int64 of nanoseconds ends at 1677
// and 2262 (TimestampValue.CheckedNanos).
func int96Value(v parquet.Int96) (types.TimestampValue, error) {
	nod := int64(binary.LittleEndian.Uint64(v[:8]))
	day := int64(binary.LittleEndian.Uint32(v[8:])) - julianEpochDay
	if nod <= -nanosPerDay || nod >= nanosPerDay {
		return types.TimestampValue{}, corruptf("INT96 timestamp (Julian day %d) has %d nanoseconds of day", day+julianEpochDay, nod)
	}
	ms := arith.FloorDiv(nod, 1_000_000)
	return types.TimestampValue{Millis: day*86_400_000 + ms, NanoOfMilli: int32(nod - ms*1_000_000)}, nil
}

// int96Column reads one top-level INT96 column of one row group.
type int96Column struct {
	field  int  // index into Options.Fields
	leaf   int  // parquet leaf column index
	wide   bool // read as types.WideTimestampType (Options.WideTimestamps)
	maxDef int16
	cr     *file.Int96ColumnChunkReader
	vals   []parquet.Int96
	defs   []int16
	left   int64 // rows of the row group not yet read
}

// isTopLevelInt96 reports whether a requested field is a single INT96 leaf.
func isTopLevelInt96(pf *file.Reader, leaves []int) (int, bool) {
	if len(leaves) != 1 {
		return 0, false
	}
	col := pf.MetaData().Schema.Column(leaves[0])
	return leaves[0], col.PhysicalType() == parquet.Types.Int96 && col.MaxRepetitionLevel() == 0
}

func (c *int96Column) open(pf *file.Reader, g int) error {
	c.close()
	rg := pf.RowGroup(g)
	cr, err := rg.Column(c.leaf)
	if err != nil {
		return err
	}
	ic, ok := cr.(*file.Int96ColumnChunkReader)
	if !ok {
		return fmt.Errorf("column %d is not INT96", c.leaf)
	}
	c.cr = ic
	c.maxDef = pf.MetaData().Schema.Column(c.leaf).MaxDefinitionLevel()
	c.left = rg.NumRows()
	return nil
}

func (c *int96Column) close() {
	if c.cr != nil {
		c.cr.Close()
		c.cr = nil
	}
}

// read decodes the next n rows into an Arrow timestamp array of type t.
func (c *int96Column) read(n int, t types.DataType, mem memory.Allocator) (arrow.Array, error) {
	if cap(c.vals) < n {
		c.vals = make([]parquet.Int96, n)
		c.defs = make([]int16, n)
	}
	vals, defs := c.vals[:n], c.defs[:n]
	levels, nvals := 0, 0
	for levels < n {
		var dl []int16
		if c.maxDef > 0 {
			dl = defs[levels:]
		}
		tot, vr, err := c.cr.ReadBatch(int64(n-levels), vals[nvals:], dl, nil)
		if err != nil {
			return nil, err
		}
		if tot == 0 {
			return nil, fmt.Errorf("INT96 column ended after %d of %d rows", levels, n)
		}
		levels += int(tot)
		nvals += vr
	}
	// As dictColumn.end: values past the footer's rows are corruption,
	// not rows to drop.
	if c.left -= int64(n); c.left == 0 && c.cr.HasNext() {
		return nil, corruptf("INT96 column chunk holds values beyond the rows its row group records")
	}
	if !t.IsTimestamp() {
		return nil, fmt.Errorf("INT96 column read as %s", t)
	}
	b, appendValue, err := c.builder(t, mem)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	b.Reserve(n)
	vi := 0
	for i := 0; i < n; i++ {
		if c.maxDef > 0 && c.defs[i] < c.maxDef {
			b.AppendNull()
			continue
		}
		if vi >= nvals {
			return nil, fmt.Errorf("INT96 column has fewer values than definition levels")
		}
		tv, err := int96Value(c.vals[vi])
		if err != nil {
			return nil, err
		}
		vi++
		if err := appendValue(tv); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// builder returns the builder of the column's Arrow type and how a value
// is appended to it: as it is (wide), or in the unit of the Arrow
// timestamp, refusing what nanoseconds cannot hold.
func (c *int96Column) builder(t types.DataType, mem memory.Allocator) (array.Builder, func(types.TimestampValue) error, error) {
	if c.wide {
		wb := array.NewExtensionBuilder(mem, arrowconv.WideTimestamp(t.Root == types.TimestampLTZ))
		return wb, func(v types.TimestampValue) error { arrowconv.AppendWideTimestamp(wb, v); return nil }, nil
	}
	dt, err := arrowconv.Type(t)
	if err != nil {
		return nil, nil, err
	}
	tb := array.NewTimestampBuilder(mem, dt.(*arrow.TimestampType))
	unit := arrowconv.TimeUnitFor(t.Precision)
	return tb, func(v types.TimestampValue) error {
		ts, err := arrowconv.TimestampIn(v, unit)
		if err == nil {
			tb.Append(ts)
		}
		return err
	}, nil
}
