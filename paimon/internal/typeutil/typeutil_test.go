package typeutil

import "testing"

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
