package agg

import (
	"fmt"
	"testing"
)

// TestHashOrder pins the java.util.HashMap iteration order the distinct
// collect and merge_map results follow: by bucket of the final table
// (16, doubled past 3/4 full or when a bucket of a table under 64 reaches 9
// entries), insertion order within a bucket; a real tree bin is refused.
func TestHashOrder(t *testing.T) {
	ints := func(hs ...int32) func(int) int32 { return func(k int) int32 { return hs[k] } }
	for _, c := range []struct {
		hs   []int32
		want string
	}{
		{[]int32{17, 1, 33}, "[0 1 2]"}, // one bucket: insertion order
		{[]int32{5, 3, 16}, "[2 1 0]"},  // buckets 5, 3, 0
		{[]int32{-2, 0}, "[1 0]"},       // h ^ h>>>16 of -2 is 0xFFFF0001: bucket 1
		{[]int32{0x10000, 1}, "[0 1]"},  // 0x10000 ^ 0x1 → bucket 1, first in
		{[]int32{30, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "[1 2 3 4 5 6 7 8 9 10 11 12 0]"}, // resized to 32
	} {
		got, err := hashOrder(len(c.hs), ints(c.hs...))
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("%v: got %v %v, want %s", c.hs, got, err, c.want)
		}
	}
	zero := func(int) int32 { return 0 }
	if _, err := hashOrder(10, zero); err != nil {
		t.Errorf("10 colliding keys: the table grows to 64 first, got %v", err)
	}
	if _, err := hashOrder(11, zero); err == nil {
		t.Error("11 colliding keys make a tree bin in Java: want an error")
	}
}
