package rowjson

import "testing"

// BenchmarkAppendUint formats runs of neighbouring values of a few widths
// (ids, counters, epoch microseconds), and single digits (flags, enums).
func BenchmarkAppendUint(b *testing.B) {
	for _, c := range []struct {
		name string
		base uint64
	}{{"3digits", 100}, {"7digits", 1_000_000}, {"10digits", 1_000_000_000}, {"16digits", 1_700_000_000_000_000}} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			for i := 0; i < b.N; i++ {
				buf = appendUint(buf[:0], c.base+uint64(i&511)*7)
			}
		})
	}
	b.Run("1digit", func(b *testing.B) {
		buf := make([]byte, 0, 64)
		for i := 0; i < b.N; i++ {
			buf = appendUint(buf[:0], uint64(i%10))
		}
	})
}
