package rowjson

import (
	"math/big"
	"math/bits"
)

// Shortest decimal digits of a float64 by Raffaello Giulietti's Schubfach
// algorithm ("The Schubfach way to render doubles", 2020; the algorithm of
// Java's Double.toString since JDK 19), written for this package from the
// paper's description.
//
// Why not strconv: strconv's shortest formatting (Dragonbox since Go 1.26)
// computes the same digits but formats them through a byte-per-digit
// decimal buffer, and the whole call was 13 % of the binary's CPU on a table
// with one full-precision DOUBLE column. Here the digits stay one uint64
// that appendDigits writes eight at a time.
//
// The digits are exactly strconv's: the shortest decimal in the rounding
// interval of the double (its ends included when the significand is even,
// as round-half-even parsing reads them back), the one closest to the
// double if several are as short, ties to an even last digit. The tests
// compare both on random bit patterns and on every class of edge.

const (
	sfMantBits = 52
	sfCMin     = 1 << sfMantBits // the implicit bit
	sfQMin     = -1074           // exponent of the least subnormal
	sfKMin     = -324            // least k of the table: flog10pow2(sfQMin)
	sfKMax     = 292             // greatest k: flog10pow2 of the greatest exponent
)

// sfG holds, for k in [sfKMin, sfKMax], g = floor(10^-k · 2^-r) + 1 where r
// is chosen so that 2^125 <= 10^-k · 2^-r < 2^126, split into 63-bit limbs
// (g = hi·2^63 + lo). It is computed once, exactly, with big integers:
// a constant table in all but spelling.
var sfG = func() (g [sfKMax - sfKMin + 1][2]uint64) {
	one := big.NewInt(1)
	ten := big.NewInt(10)
	mask := new(big.Int).Sub(new(big.Int).Lsh(one, 63), one)
	for k := sfKMin; k <= sfKMax; k++ {
		e := flog2pow10(-k) // floor(log2(10^-k))
		shift := 125 - e    // 10^-k · 2^shift is in [2^125, 2^126)
		v := new(big.Int)
		switch {
		case k <= 0 && shift >= 0:
			v.Exp(ten, big.NewInt(int64(-k)), nil)
			v.Lsh(v, uint(shift))
		case k <= 0:
			v.Exp(ten, big.NewInt(int64(-k)), nil)
			v.Rsh(v, uint(-shift)) // floor
		default:
			num := new(big.Int).Lsh(one, uint(shift))
			v.Quo(num, new(big.Int).Exp(ten, big.NewInt(int64(k)), nil))
		}
		v.Add(v, one)
		g[k-sfKMin][1] = new(big.Int).And(v, mask).Uint64()
		g[k-sfKMin][0] = new(big.Int).Rsh(v, 63).Uint64()
	}
	return g
}()

// flog10pow2 is floor(q·log10(2)) for |q| <= 5456721.
func flog10pow2(q int) int { return int((int64(q) * 661_971_961_083) >> 41) }

// flog10threeQuartersPow2 is floor(log10(3/4 · 2^q)) for |q| <= 2^31.
func flog10threeQuartersPow2(q int) int {
	return int((int64(q)*661_971_961_083 - 274_743_187_321) >> 41)
}

// flog2pow10 is floor(e·log2(10)) for |e| <= 1838394.
func flog2pow10(e int) int { return int((int64(e) * 913_124_641_741) >> 38) }

// rop is the rounded-to-odd product g·cp / 2^127 of the paper (section
// 9.8.3), with g = g1·2^63 + g0 and cp < 2^63.
func rop(g1, g0, cp uint64) uint64 {
	x1, _ := bits.Mul64(g0, cp)
	y1, y0 := bits.Mul64(g1, cp)
	// y = y1·2^64 + y0; z collects the bits 63..126 of g1·cp·2^63 + g0·cp.
	z := (y0 >> 1) + x1
	vbp := y1 + (z >> 63)
	return vbp | ((z&(1<<63-1))+(1<<63-1))>>63
}

// shortestDigits returns d and e with d·10^e the shortest decimal that
// reads back as f, d without trailing zeros. It handles finite normal
// doubles (ok false for zero, subnormals, NaN and ±Inf, which callers format
// otherwise) and ignores the sign.
func shortestDigits(f uint64) (d uint64, e int, ok bool) {
	bq := int(f>>sfMantBits) & 0x7ff
	if bq == 0 || bq == 0x7ff {
		return 0, 0, false
	}
	c := uint64(sfCMin) | f&(sfCMin-1)
	q := bq - 1075 // f = c·2^q
	if q < 0 && q > -sfMantBits-1 {
		// An integer below 2^53 is its own shortest form.
		if n := c >> uint(-q); n<<uint(-q) == c {
			return trimZeros(n, 0)
		}
		// So is n.5 exactly: its neighbours are at most a quarter away and
		// every shorter decimal at least half: a column of halves skips
		// the three products.
		if h := c >> uint(-q-1); h<<uint(-q-1) == c {
			return 5 * h, -1, true
		}
	}
	out := c & 1
	cb := c << 2
	cbr := cb + 2
	var cbl uint64
	var k int
	if c != sfCMin || q == sfQMin {
		cbl = cb - 2
		k = flog10pow2(q)
	} else {
		// The interval below a power of two is half as wide.
		cbl = cb - 1
		k = flog10threeQuartersPow2(q)
	}
	h := uint(q + flog2pow10(-k) + 2)
	g := &sfG[k-sfKMin]
	vb := rop(g[0], g[1], cb<<h)
	vbl := rop(g[0], g[1], cbl<<h)
	vbr := rop(g[0], g[1], cbr<<h)

	// f·10^-k is about vb/4: the digits of f scaled to 16 or 17 digits.
	s := vb >> 2
	// First the candidates one digit shorter: the multiples of ten around s.
	hi, _ := bits.Mul64(s, 115_292_150_460_684_698<<4) // floor(s/10) for s of at most 17 digits
	sp10 := 10 * hi
	tp10 := sp10 + 10
	upin := vbl+out <= sp10<<2
	wpin := (tp10<<2)+out <= vbr
	if upin != wpin {
		if upin {
			return trimZeros(sp10, k)
		}
		return trimZeros(tp10, k)
	}
	t := s + 1
	uin := vbl+out <= s<<2
	win := (t<<2)+out <= vbr
	if uin != win {
		if uin {
			return trimZeros(s, k)
		}
		return trimZeros(t, k)
	}
	// Both in the interval: the closer one, ties to even.
	if cmp := int64(vb - (s+t)<<1); cmp < 0 || cmp == 0 && s&1 == 0 {
		return trimZeros(s, k)
	}
	return trimZeros(t, k)
}

// trimZeros removes d's trailing zeros into the exponent: eight at a time,
// then at most one step each of four, two and one (d < 2^64 has at most 19).
func trimZeros(d uint64, e int) (uint64, int, bool) {
	if d%10 != 0 { // full-precision digits: the common case first
		return d, e, true
	}
	for d%1e8 == 0 && d != 0 {
		d, e = d/1e8, e+8
	}
	if d%1e4 == 0 {
		d, e = d/1e4, e+4
	}
	if d%100 == 0 {
		d, e = d/100, e+2
	}
	if d%10 == 0 {
		d, e = d/10, e+1
	}
	return d, e, true
}

// appendShortest writes a finite normal double as refAppendFloat's rules
// spell it: strconv's shortest digits, plain notation for 1e-6 <= |f| <
// 1e21 and otherwise d.ddde±x (a negative exponent without leading zeros,
// a positive one with at least two digits, as encoding/json writes them).
// ok is false for the values shortestDigits leaves to strconv.
func appendShortest(dst []byte, f float64, fbits uint64) ([]byte, bool) {
	d, e, ok := shortestDigits(fbits)
	if !ok {
		return dst, false
	}
	if fbits>>63 != 0 {
		dst = append(dst, '-')
		f = -f
	}
	n := decimalLen(d)
	dp := n + e // the decimal point's position after the first digit
	if f >= 1e-6 && f < 1e21 {
		switch {
		case dp <= 0:
			dst = append(dst, "0."...)
			dst = append(dst, "000000"[:-dp]...) // dp >= -5 since f >= 1e-6
			return appendDigits(dst, d, n), true
		case dp < n:
			// All digits at once, then the point moved in: one digit
			// conversion instead of two.
			start := len(dst)
			dst = appendDigits(dst, d, n)
			dst = append(dst, 0)
			copy(dst[start+dp+1:], dst[start+dp:start+n])
			dst[start+dp] = '.'
			return dst, true
		default:
			dst = appendDigits(dst, d, n)
			return append(dst, "000000000000000000000"[:dp-n]...), true
		}
	}
	p := pow10u64[n-1]
	dst = append(dst, byte('0'+d/p))
	if n > 1 {
		dst = append(dst, '.')
		dst = appendDigits(dst, d%p, n-1)
	}
	x := dp - 1
	if x < 0 {
		return appendUint(append(dst, "e-"...), uint64(-x)), true
	}
	dst = append(dst, "e+"...)
	if x < 10 {
		dst = append(dst, '0')
	}
	return appendUint(dst, uint64(x)), true
}
