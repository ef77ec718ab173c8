package rowjson

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
	"time"
)

// The DOUBLE fast path must spell every value exactly as strconv's shortest
// 'f' formatting does (the general path) — values with few fraction digits,
// values just off them, integers, and random bit patterns.
func TestAppendFloatFastPathMatchesStrconv(t *testing.T) {
	rnd := rand.New(rand.NewSource(42))
	check := func(f float64) {
		abs := math.Abs(f)
		if math.IsNaN(f) || math.IsInf(f, 0) || abs < 1e-6 || abs >= 1e15 {
			return
		}
		got := string(appendFloat(nil, f, 64))
		want := strconv.FormatFloat(f, 'f', -1, 64)
		if got != want {
			t.Fatalf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
	for i := 0; i < 300000; i++ {
		// Decimals with 0..6 fraction digits at every magnitude.
		digits := rnd.Intn(7)
		n := rnd.Int63n(1_000_000_000_000_000) * int64(1-2*rnd.Intn(2))
		f := float64(n) / math.Pow10(digits+rnd.Intn(10))
		check(f)
		check(math.Nextafter(f, math.Inf(1)))
		check(math.Nextafter(f, math.Inf(-1)))
		check(math.Float64frombits(rnd.Uint64()))
	}
	for _, f := range []float64{0.1, 0.2, 0.3, 1.5, -2.25, 19.99, 1e-4, 0.0001, 0.00015, 123456789.1234, 9.999999999999998e14, 4503599627370495.5, 0.30000000000000004} {
		check(f)
	}
}

// Dates written through the digit table and the day cache (the date part of
// every DATE and TIMESTAMP) must equal time.Format, also across day changes.
func TestDayCacheMatchesTimeFormat(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	var dc dayCache
	for i := 0; i < 100000; i++ {
		sec := rnd.Int63n(2*253402300799) - 62135596800 // years 0001..9999
		if sec > 253402300799 {
			sec = 253402300799
		}
		if i%3 == 0 && i > 0 {
			sec = sec/86400*86400 + rnd.Int63n(86400) // same-day neighbours hit the cache
		}
		days := floorDivInt(sec, 86400)
		got := string(dc.append(nil, days))
		want := time.Unix(days*86400, 0).UTC().Format("2006-01-02")
		if got != want {
			t.Fatalf("date of %d days = %s, want %s", days, got, want)
		}
	}
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
