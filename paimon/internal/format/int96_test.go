package format

import (
	"encoding/binary"
	"errors"
	"strings"
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
		tv, err := int96Value(int96Of(c.day, c.nod))
		got, nerr := tv.CheckedNanos()
		if err != nil || nerr != nil || got != c.want {
			t.Errorf("int96Value(day %d, nod %d) = %d, %v, %v; want %d", c.day, c.nod, got, err, nerr, c.want)
		}
	}
	// Year 1 and year 9999 don't fit nanoseconds: exact as a TimestampValue,
	// refused (not wrapped) as nanoseconds, naming the value.
	for _, c := range []struct {
		day  int32
		nod  int64
		want string
	}{
		{1721426, 1, "0001-01-01T00:00:00.000000001"},
		{5373484, nanosPerDay - 1, "9999-12-31T23:59:59.999999999"},
	} {
		tv, err := int96Value(int96Of(c.day, c.nod))
		if err != nil || tv.Text() != c.want {
			t.Errorf("int96Value(day %d, nod %d) = %s, %v; want %s", c.day, c.nod, tv.Text(), err, c.want)
		}
		if _, err := tv.CheckedNanos(); !errors.Is(err, types.ErrNanosecondRange) || !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("day %d as nanoseconds: want ErrNanosecondRange naming %s, got %v", c.day, c.want, err)
		}
	}
	// Nanoseconds of day beyond a day are no value Java writes.
	if _, err := int96Value(int96Of(2440588, nanosPerDay)); !errors.Is(err, types.ErrCorrupt) {
		t.Errorf("a day's worth of nanoseconds of day: want a corrupt-file error, got %v", err)
	}
}
