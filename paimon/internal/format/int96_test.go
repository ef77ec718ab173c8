package format

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// int96Of lays out an INT96 value as Java's ParquetRowDataWriter does:
// 8-byte little-endian nanos of day, then the 4-byte little-endian Julian day.
func int96Of(julianDay int32, nanosOfDay int64) parquet.Int96 {
	var v parquet.Int96
	binary.LittleEndian.PutUint64(v[:8], uint64(nanosOfDay))
	binary.LittleEndian.PutUint32(v[8:], uint32(julianDay))
	return v
}

func TestInt96Nanos(t *testing.T) {
	cases := []struct {
		day  int32
		nod  int64
		want int64
	}{
		{2440588, 0, 0},
		{2440588, 1, 1},
		// Java: millis -1 → day = 0 + epoch (truncating), nanos = -1ms.
		{2440588, -1_000_000, -1_000_000},
		{2440589, 5, nanosPerDay + 5},
		// 1900-01-01T00:00:00.5: millis -2208988799500 → Java day offset
		// -25566 (truncated toward zero), nanos of day -86399.5 s.
		{2440588 - 25566, -86399_500_000_000, -2208988799500_000_000},
	}
	for _, c := range cases {
		got, err := int96Nanos(int96Of(c.day, c.nod))
		if err != nil || got != c.want {
			t.Errorf("int96Nanos(day %d, nod %d) = %d, %v; want %d", c.day, c.nod, got, err, c.want)
		}
	}
	// Year 1 and year 9999 don't fit nanoseconds: refused, not wrapped.
	for _, day := range []int32{1721426, 5373484} {
		if _, err := int96Nanos(int96Of(day, 0)); !errors.Is(err, types.ErrUnsupported) {
			t.Errorf("day %d: want ErrUnsupported, got %v", day, err)
		}
	}
}
