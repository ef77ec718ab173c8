package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

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

// int96Nanos decodes an INT96 value the way Java wrote it: signed
// nanoseconds of day plus the Julian day. Instants outside the int64
// nanosecond range (years before 1677 or after 2262) can't be held by an
// Arrow nanosecond timestamp and are refused rather than wrapped.
func int96Nanos(v parquet.Int96) (int64, error) {
	nod := int64(binary.LittleEndian.Uint64(v[:8]))
	day := int64(binary.LittleEndian.Uint32(v[8:])) - julianEpochDay
	hi, lo := bits.Mul64(uint64(abs64(day)), nanosPerDay)
	if hi != 0 || lo > math.MaxInt64 || nod <= -nanosPerDay || nod >= nanosPerDay {
		return 0, fmt.Errorf("INT96 timestamp (Julian day %d, nanos of day %d) is outside the nanosecond range 1677-09-21..2262-04-11 that TIMESTAMP(7..9) is read into: %w", day+julianEpochDay, nod, types.ErrUnsupported)
	}
	a := day * nanosPerDay
	ns := a + nod
	if (nod > 0 && ns < a) || (nod < 0 && ns > a) {
		return 0, fmt.Errorf("INT96 timestamp (Julian day %d, nanos of day %d) overflows the nanosecond range 1677-09-21..2262-04-11: %w", day+julianEpochDay, nod, types.ErrUnsupported)
	}
	return ns, nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// int96Column reads one top-level INT96 column of one row group.
type int96Column struct {
	field  int // index into Options.Fields
	leaf   int // parquet leaf column index
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
	unit := arrowconv.TimeUnitFor(t.Precision)
	dt, err := arrowconv.Type(t)
	if err != nil {
		return nil, err
	}
	if !t.IsTimestamp() {
		return nil, fmt.Errorf("INT96 column read as %s", t)
	}
	b := array.NewTimestampBuilder(mem, dt.(*arrow.TimestampType))
	defer b.Release()
	b.Reserve(n)
	vi := 0
	for i := 0; i < n; i++ {
		if c.maxDef > 0 && defs[i] < c.maxDef {
			b.AppendNull()
			continue
		}
		if vi >= nvals {
			return nil, fmt.Errorf("INT96 column has fewer values than definition levels")
		}
		ns, err := int96Nanos(vals[vi])
		if err != nil {
			return nil, err
		}
		vi++
		switch unit {
		case arrow.Millisecond:
			ns = arith.FloorDiv(ns, 1_000_000)
		case arrow.Microsecond:
			ns = arith.FloorDiv(ns, 1_000)
		}
		b.Append(arrow.Timestamp(ns))
	}
	return b.NewArray(), nil
}
