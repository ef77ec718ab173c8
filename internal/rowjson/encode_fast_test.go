package rowjson

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/connect-paimon/connect-paimon/internal/arith"
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

// refAppendFloat is appendFloat as it was before its fast paths: strconv's
// shortest formatting with encoding/json's exponent switch points.
func refAppendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		m := len(dst) - n
		if m >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// refAppendTimestamp is appendTimestamp as it was before the second cache
// and the digit-pair clock: every field through appendPad.
func refAppendTimestamp(v int64, unit arrow.TimeUnit, zoned bool) string {
	perSec, digits := unitPerSecond(unit)
	sec := arith.FloorDiv(v, perSec)
	frac := v - sec*perSec
	days := arith.FloorDiv(sec, 86400)
	dst := append([]byte{'"'}, refAppendDate(nil, days)...)
	dst = append(dst, 'T')
	dst = appendClockSlow(dst, sec-days*86400, frac, digits)
	if zoned {
		dst = append(dst, 'Z')
	}
	return string(append(dst, '"'))
}

// refAppendDate is appendDate without its digit-pair path.
func refAppendDate(dst []byte, days int64) []byte {
	y, m, d := civil(days)
	if y < 0 {
		dst = append(dst, '-')
		y = -y
	}
	dst = appendPad(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPad(dst, int64(m), 2)
	dst = append(dst, '-')
	return appendPad(dst, int64(d), 2)
}

var timeUnits = []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond}

// checkFastPaths compares every fast path with its reference for one input.
func checkFastPaths(t *testing.T, v int64, f float64, sc map[arrow.TimeUnit]*secondCache, dc *dayCache) {
	t.Helper()
	if got, want := string(appendInt(nil, v)), strconv.FormatInt(v, 10); got != want {
		t.Fatalf("appendInt(%d) = %s, want %s", v, got, want)
	}
	if got, want := string(appendUint(nil, uint64(v))), strconv.FormatUint(uint64(v), 10); got != want {
		t.Fatalf("appendUint(%d) = %s, want %s", uint64(v), got, want)
	}
	if got, want := string(appendFloat(nil, f, 64)), string(refAppendFloat(nil, f, 64)); got != want {
		t.Fatalf("appendFloat(%v (%#x), 64) = %s, want %s", f, math.Float64bits(f), got, want)
	}
	f32 := float64(float32(f))
	if got, want := string(appendFloat(nil, f32, 32)), string(refAppendFloat(nil, f32, 32)); got != want {
		t.Fatalf("appendFloat(%v, 32) = %s, want %s", f32, got, want)
	}
	for _, u := range timeUnits {
		for _, zoned := range []bool{false, true} {
			want := refAppendTimestamp(v, u, zoned)
			if got := string(appendTimestamp(nil, v, u, zoned, sc[u])); got != want {
				t.Fatalf("appendTimestamp(%d, %s, zoned %v) = %s, want %s", v, u, zoned, got, want)
			}
			if got := string(appendTimestamp(nil, v, u, zoned, &secondCache{})); got != want {
				t.Fatalf("appendTimestamp(%d, %s, zoned %v) uncached = %s, want %s", v, u, zoned, got, want)
			}
		}
	}
	days := v >> 20 // dates far beyond Paimon's range too, without overflowing civil
	if got, want := string(appendDate(nil, days)), string(refAppendDate(nil, days)); got != want {
		t.Fatalf("appendDate(%d) = %s, want %s", days, got, want)
	}
	for _, dd := range []int64{days, v % 3652059, v%3652059 - 719528} { // any, and years 0..9999 around the epoch
		if got, want := string(dc.append(nil, dd)), string(refAppendDate(nil, dd)); got != want {
			t.Fatalf("dayCache.append(%d) = %s, want %s", dd, got, want)
		}
	}
	ms := v % (1 << 31)
	if got, want := string(appendTimeOfDay(nil, ms, arrow.Millisecond)), refTimeOfDay(ms); got != want {
		t.Fatalf("appendTimeOfDay(%d) = %s, want %s", ms, got, want)
	}
}

// refTimeOfDay is appendTimeOfDay through appendClockSlow.
func refTimeOfDay(v int64) string {
	sec, frac := arith.FloorDiv(v, 1000), v-arith.FloorDiv(v, 1000)*1000
	dst := []byte{'"'}
	if sec < 0 {
		dst = append(dst, '-')
		sec = -sec
	}
	dst = appendClockSlow(dst, sec, frac, 3)
	return string(append(dst, '"'))
}

func newSecondCaches() map[arrow.TimeUnit]*secondCache {
	m := map[arrow.TimeUnit]*secondCache{}
	for _, u := range timeUnits {
		m[u] = &secondCache{}
	}
	return m
}

// The integer, float, date, time and timestamp fast paths spell every
// value exactly as their references do: the extremes, every power-of-ten
// boundary, and random values, with the second cache both hit (runs of
// neighbouring values) and missed.
func TestFastPathsMatchReference(t *testing.T) {
	sc := newSecondCaches()
	var dc dayCache
	ints := []int64{0, 1, -1, 9, 10, 99, 100, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
		-62135596800000, 253402300799999, -62135596800000000, 253402300799999999, -86400, 86399, -86401}
	for p := int64(1); p < math.MaxInt64/10; p *= 10 {
		ints = append(ints, p-1, p, p+1, -p+1, -p, -p-1)
	}
	floats := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 2.225073858507201e-308, // smallest normal, largest subnormal
		math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-6, math.Nextafter(1e-6, 0), 1e15, math.Nextafter(1e15, 0), 1e21, math.Nextafter(1e21, 0),
		1 << 53, 1<<53 + 2, 0.1, 0.5, 1.5, -2.25, 123.4567, 123.45675, 1e-5, 9.999999999999999e14}
	for i, v := range ints {
		checkFastPaths(t, v, floats[i%len(floats)], sc, &dc)
	}
	for _, f := range floats {
		checkFastPaths(t, 0, f, sc, &dc)
	}
	rnd := rand.New(rand.NewSource(16))
	for i := 0; i < 25000; i++ {
		v := rnd.Int63() >> rnd.Intn(63)
		if rnd.Intn(2) == 0 {
			v = -v
		}
		f := math.Float64frombits(rnd.Uint64())
		if i%2 == 0 {
			f = float64(rnd.Int63n(1e12)) / math.Pow10(rnd.Intn(12))
		}
		checkFastPaths(t, v, f, sc, &dc)
		for k := int64(1); k < 4; k++ { // neighbours: second-cache hits
			checkFastPaths(t, v+k, f, sc, &dc)
		}
	}
}

// Timestamps in Paimon's range equal time.Format, independently of the
// previous implementation.
func TestTimestampMatchesTimeFormat(t *testing.T) {
	rnd := rand.New(rand.NewSource(9))
	var sc secondCache
	for i := 0; i < 100000; i++ {
		sec := rnd.Int63n(253402300799+62135596800+1) - 62135596800 // 0001-01-01 .. 9999-12-31
		if i%2 == 1 {
			sec = -62135596800 + int64(i%2000) // the first seconds of year 1
		}
		nanos := rnd.Int63n(1e9)
		got := string(appendTimestamp(nil, sec*1e9+nanos, arrow.Nanosecond, true, &sc))
		if sec < -9223372036 || sec > 9223372035 { // outside int64 nanoseconds: microseconds
			got = string(appendTimestamp(nil, sec*1e6+nanos/1000, arrow.Microsecond, true, &sc))
			want := `"` + time.Unix(sec, nanos/1000*1000).UTC().Format("2006-01-02T15:04:05.000000") + `Z"`
			if got != want {
				t.Fatalf("timestamp %d s %d µs = %s, want %s", sec, nanos/1000, got, want)
			}
			continue
		}
		want := `"` + time.Unix(sec, nanos).UTC().Format("2006-01-02T15:04:05.000000000") + `Z"`
		if got != want {
			t.Fatalf("timestamp %d s %d ns = %s, want %s", sec, nanos, got, want)
		}
	}
}

// FuzzFastPaths runs checkFastPaths on arbitrary inputs.
func FuzzFastPaths(f *testing.F) {
	f.Add(int64(0), 0.0)
	f.Add(int64(math.MinInt64), math.Inf(-1))
	f.Add(int64(math.MaxInt64), math.MaxFloat64)
	f.Add(int64(-62135596800000), math.SmallestNonzeroFloat64)
	f.Fuzz(func(t *testing.T, v int64, fl float64) {
		checkFastPaths(t, v, fl, newSecondCaches(), &dayCache{})
	})
}

// Every day of years 0001..9999 in order (month cache hits, and a miss at
// each month change) equals time.Format, and backwards the reference.
func TestDayCacheEveryDay(t *testing.T) {
	var fwd, back dayCache
	const first, last = -719162, 2932896 // 0001-01-01, 9999-12-31
	for d := int64(first); d <= last; d++ {
		want := time.Unix(d*86400, 0).UTC().Format("2006-01-02")
		if got := string(fwd.append(nil, d)); got != want {
			t.Fatalf("day %d = %s, want %s", d, got, want)
		}
		b := last - (d - first)
		if got, want := string(back.append(nil, b)), string(refAppendDate(nil, b)); got != want {
			t.Fatalf("day %d backwards = %s, want %s", b, got, want)
		}
	}
}
