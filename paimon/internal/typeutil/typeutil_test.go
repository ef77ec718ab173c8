package typeutil

import (
	"math"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Expected spellings are JDK Double.toString / Float.toString output.
func TestJavaFloatString(t *testing.T) {
	cases := []struct {
		v    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {1e10, 64, "1.0E10"}, {1.5e-5, 64, "1.5E-5"}, {0.001, 64, "0.001"},
		{1234567.0, 64, "1234567.0"}, {12345678.0, 64, "1.2345678E7"}, {-2.5, 64, "-2.5"},
		{0.1, 32, "0.1"}, {3.4028234663852886e38, 32, "3.4028235E38"}, {0, 64, "0.0"},
	}
	for _, c := range cases {
		if got := JavaFloatString(c.v, c.bits); got != c.want {
			t.Errorf("JavaFloatString(%v,%d) = %q, want %q", c.v, c.bits, got, c.want)
		}
	}
}

// Pre-epoch values floor (the remainder stays non-negative), and the
// extremes of int64 microseconds, far past year 2262, do not overflow.
func TestTimestampFromUnits(t *testing.T) {
	for _, c := range []struct {
		got        types.TimestampValue
		ms         int64
		nanoOfMill int32
	}{
		{TimestampFromNanos(1_500_001), 1, 500_001},
		{TimestampFromNanos(-1), -1, 999_999},
		{TimestampFromMicros(-1), -1, 999_000},
		{TimestampFromMicros(1_234), 1, 234_000},
		{TimestampFromMicros(math.MinInt64), math.MinInt64/1000 - 1, 192_000},
		{TimestampFromMicros(math.MaxInt64), math.MaxInt64 / 1000, 807_000},
	} {
		if c.got.Millis != c.ms || c.got.NanoOfMilli != c.nanoOfMill {
			t.Errorf("got %+v, want %d ms + %d ns", c.got, c.ms, c.nanoOfMill)
		}
	}
}
