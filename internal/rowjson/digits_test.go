package rowjson

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"
)

// appendDigits spells every width from 1 to 20 as fmt's zero padding does,
// for the extremes of each width and random values, after a prefix and
// with the bytes its wide stores may scribble past the end ignored.
func TestAppendDigitsEveryWidth(t *testing.T) {
	rnd := rand.New(rand.NewSource(20))
	check := func(v uint64, w int) {
		t.Helper()
		got := string(appendDigits([]byte("x"), v, w))
		if want := fmt.Sprintf("x%0*d", w, v); got != want {
			t.Fatalf("appendDigits(%d, %d) = %q, want %q", v, w, got, want)
		}
	}
	for w := 1; w <= 20; w++ {
		limit := ^uint64(0)
		if w < 20 {
			limit = pow10u64[w] - 1
		}
		check(0, w)
		check(limit, w)
		check(limit/2, w)
		for i := 0; i < 20000; i++ {
			v := rnd.Uint64()
			if w < 20 {
				v %= pow10u64[w]
			}
			check(v, w)
		}
	}
}

// appendUint and appendInt spell every digit count as strconv does: both
// sides of each power of ten (where appendUpTo8's count from the lanes and
// decimalLen switch widths) and random values of each width, after a
// prefix, so a store written at the wrong offset or a digit too many or
// too few shows.
func TestAppendUintEveryWidth(t *testing.T) {
	rnd := rand.New(rand.NewSource(8))
	check := func(u uint64) {
		t.Helper()
		if got, want := string(appendUint([]byte("x"), u)), "x"+strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint(%d) = %q, want %q", u, got, want)
		}
		v := int64(u)
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
		}
		if got, want := string(appendInt([]byte("x"), -v)), "x"+strconv.FormatInt(-v, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", -v, got, want)
		}
	}
	for _, u := range []uint64{0, 1, 9, ^uint64(0), 1 << 63, 1<<63 - 1} {
		check(u)
	}
	for w := 1; w < 20; w++ {
		p := pow10u64[w]
		for _, u := range []uint64{p - 1, p, p + 1, p / 2, p/10 + 1} {
			check(u)
		}
		for i := 0; i < 5000; i++ {
			check(p/10 + rnd.Uint64()%(p-p/10))
		}
	}
}
