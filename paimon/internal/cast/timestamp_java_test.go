package cast

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/connect-paimon/connect-paimon/paimon/arrowpool"
	"github.com/connect-paimon/connect-paimon/paimon/internal/arrowconv"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Timestamp casts give the values Java Paimon 1.3.1's cast rules give
// (TimestampToTimestampCastRule + DateTimeUtils.truncate,
// TimestampToDateCastRule, TimestampToTimeCastRule), worked out by hand
// from that source; resources/java JavaStatsGen pins the same cases with
// Java's own read (tests/interop).
func TestTimestampCastsLikeJava(t *testing.T) {
	const us = int64(1)
	cases := []struct {
		from, to string
		in, want int64 // epoch values in the from and to types' Arrow units
	}{
		// Narrowing to precision ≤ 3: floor to ms, then zero digits toward zero.
		{"TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(0) WITH LOCAL TIME ZONE", -1_500_000 * us, -1000},
		{"TIMESTAMP(6)", "TIMESTAMP(0)", -1_500_000 * us, -1000},
		{"TIMESTAMP(6)", "TIMESTAMP(0)", 1_500_000 * us, 1000},
		{"TIMESTAMP(6)", "TIMESTAMP(0)", -1, 0},             // floor ms -1, then toward zero
		{"TIMESTAMP(6)", "TIMESTAMP(2)", -1_234_567, -1230}, // ms -1235 → -1230
		{"TIMESTAMP(6)", "TIMESTAMP(3)", -1, -1},
		{"TIMESTAMP(3)", "TIMESTAMP(0)", -62_135_596_799_500, -62_135_596_799_000},     // year 0001
		{"TIMESTAMP(6)", "TIMESTAMP(0)", 253_402_300_799_999_999, 253_402_300_799_000}, // year 9999
		// Narrowing to precision 4–8: the nano-of-millisecond is floored.
		{"TIMESTAMP(9)", "TIMESTAMP(4)", 12_345, 0},
		{"TIMESTAMP(9)", "TIMESTAMP(5)", -1_234_567_891, -1_234_570},
		// Java's quirk: nothing is cut when the nano-of-second has ≤ p digits.
		{"TIMESTAMP(9)", "TIMESTAMP(4)", 5_000, 5},
		{"TIMESTAMP(9)", "TIMESTAMP(6)", 1_000_012_000, 1_000_012},
		// Widening is exact; the zone change keeps the instant (UTC).
		{"TIMESTAMP(3)", "TIMESTAMP(6)", -1, -1000},
		{"TIMESTAMP(6)", "TIMESTAMP(6) WITH LOCAL TIME ZONE", -1, -1},
		// DATE: toward zero for TIMESTAMP, floor for LTZ.
		{"TIMESTAMP(6)", "DATE", -1, 0},
		{"TIMESTAMP(6)", "DATE", -86_400_000_001, -1},
		{"TIMESTAMP(6) WITH LOCAL TIME ZONE", "DATE", -1, -1},
		// TIME: Java's remainder, negative before the epoch; LTZ floor.
		{"TIMESTAMP(6)", "TIME", -500_000, -500},
		{"TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIME", -500_000, 86_399_500},
	}
	for _, c := range cases {
		mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
		ft, tt := typ(t, c.from), typ(t, c.to)
		at, err := arrowconv.Type(ft)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewTimestampBuilder(mem, at.(*arrow.TimestampType))
		b.Append(arrow.Timestamp(c.in))
		in := b.NewArray()
		b.Release()
		out, err := Cast(context.Background(), in, ft, tt, mem)
		if err != nil {
			t.Fatalf("%s → %s: %v", c.from, c.to, err)
		}
		var got int64
		switch a := out.(type) {
		case *array.Timestamp:
			got = int64(a.Value(0))
		case *array.Date32:
			got = int64(a.Value(0))
		case *array.Time32:
			got = int64(a.Value(0))
		default:
			t.Fatalf("%s → %s: array %T", c.from, c.to, out)
		}
		if got != c.want {
			t.Errorf("%s → %s of %d: %d, want %d", c.from, c.to, c.in, got, c.want)
		}
		in.Release()
		out.Release()
		mem.AssertSize(t, 0)
	}

	// Java keeps these nanoseconds (the nano-of-second has at most p digits)
	// below the Arrow unit of the target: refused, never floored.
	for _, c := range []struct {
		from, to string
		in       int64
	}{
		{"TIMESTAMP(9)", "TIMESTAMP(3)", 123},
		{"TIMESTAMP(9)", "TIMESTAMP(4)", 5_123},
		{"TIMESTAMP(9)", "TIMESTAMP(6)", 1_000_000_123},
		{"TIMESTAMP(9)", "TIMESTAMP(2) WITH LOCAL TIME ZONE", -1_000_000_000 + 7},
	} {
		mem := memory.NewCheckedAllocator(arrowpool.NewChecked())
		ft, tt := typ(t, c.from), typ(t, c.to)
		at, err := arrowconv.Type(ft)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewTimestampBuilder(mem, at.(*arrow.TimestampType))
		b.Append(arrow.Timestamp(c.in))
		in := b.NewArray()
		b.Release()
		out, err := Cast(context.Background(), in, ft, tt, mem)
		if !errors.Is(err, types.ErrUnsupported) || !strings.Contains(err.Error(), "below the") {
			t.Errorf("%s → %s of %d: want a refusal of the sub-unit nanoseconds, got %v", c.from, c.to, c.in, err)
		}
		if out != nil {
			out.Release()
		}
		in.Release()
		mem.AssertSize(t, 0)
	}
}
