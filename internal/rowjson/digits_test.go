package rowjson

import (
	"fmt"
	"math/rand"
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
