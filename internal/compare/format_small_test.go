package compare

import "testing"

// A small figure (an error rate, a latency in s) is written in plain
// decimals, never in scientific notation.
func TestNumSmall(t *testing.T) {
	for v, want := range map[float64]string{0.00001234: "0.0000123", -0.0005: "-0.0005", 0.98765: "0.988"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}
