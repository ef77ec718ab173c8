package rowjson

import (
	"math"
	"math/rand"
	"testing"
)

// checkShortest compares appendFloat's DOUBLE path (Schubfach) with
// refAppendFloat (strconv) for f and -f.
func checkShortest(t *testing.T, f float64) {
	t.Helper()
	for _, v := range []float64{f, -f} {
		if got, want := string(appendFloat(nil, v, 64)), string(refAppendFloat(nil, v, 64)); got != want {
			t.Fatalf("appendFloat(%v (%#x), 64) = %s, want %s", v, math.Float64bits(v), got, want)
		}
	}
}

// Schubfach's digits are strconv's for every exponent of a normal double:
// the power of two (whose rounding interval is lopsided), its neighbours,
// the largest significand and random ones; for the powers of ten and their
// neighbours; around both notation switch points and 2^53; and for random
// bit patterns and short decimals at every magnitude.
func TestShortestMatchesStrconv(t *testing.T) {
	rnd := rand.New(rand.NewSource(1053))
	for bq := uint64(1); bq < 0x7ff; bq++ {
		for _, c := range []uint64{0, 1, 2, 3, 1<<52 - 1, 1<<52 - 2, 1 << 51} {
			checkShortest(t, math.Float64frombits(bq<<52|c))
		}
		for i := 0; i < 64; i++ {
			checkShortest(t, math.Float64frombits(bq<<52|rnd.Uint64()&(1<<52-1)))
		}
	}
	for e := -307; e <= 308; e++ {
		p := math.Pow10(e)
		lo, hi := p, p
		for i := 0; i < 3; i++ {
			lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, math.Inf(1))
			checkShortest(t, lo)
			checkShortest(t, hi)
		}
		checkShortest(t, p)
		for _, m := range []float64{1.5, 2, 5, 9.999999999999999, 1.0000000000000002, 4.35, 7.1234} {
			checkShortest(t, m*p)
		}
	}
	for _, f := range []float64{1e-6, 1e21, 1 << 53, 1<<53 - 1, 1 << 52, 1<<52 + 0.5, 1e15, 1e16, 1e17, 123456789012345678,
		math.MaxFloat64, 2.2250738585072014e-308, 0.1, 0.2, 0.3, 0.30000000000000004, 5e-324 * (1 << 53)} {
		for i, lo, hi := 0, f, f; i < 4; i++ {
			checkShortest(t, lo)
			checkShortest(t, hi)
			lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, math.Inf(1))
		}
	}
	// Halves take their own path: every magnitude up to the last binade
	// that has them, and its edges.
	for _, f := range []float64{0.5, 1.5, 2.5, 9.5, 10.5, 99.5, 1<<52 - 0.5, 1<<51 + 0.5, 1<<51 - 0.5} {
		checkShortest(t, f)
	}
	for i := 0; i < 100_000; i++ {
		checkShortest(t, float64(rnd.Int63n(1<<uint(1+rnd.Intn(52))))+0.5)
		checkShortest(t, float64(rnd.Int63n(1<<uint(1+rnd.Intn(51))))+0.25)
	}
	for i := 0; i < 300_000; i++ {
		checkShortest(t, math.Float64frombits(rnd.Uint64()))
		n := rnd.Int63n(1 << 53)
		checkShortest(t, float64(n)*math.Pow10(rnd.Intn(600)-300))
		checkShortest(t, float64(n>>rnd.Intn(53))/math.Pow10(rnd.Intn(12)))
	}
}
