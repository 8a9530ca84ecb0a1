package human

import "testing"

// TestParsePercent: the sign is optional, spaces are allowed, and what is
// not a finite number is refused.
func TestParsePercent(t *testing.T) {
	for in, want := range map[string]float64{"10%": 10, " 12.5 % ": 12.5, "5": 5, "0%": 0, "-3%": -3, "1e2%": 100} {
		if v, err := ParsePercent(in); err != nil || v != want {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v", in, v, err, want)
		}
	}
	for _, in := range []string{"", "%", "ten%", "NaN%", "Inf", "10%%", "1,5%"} {
		if v, err := ParsePercent(in); err == nil {
			t.Errorf("ParsePercent(%q) = %v, want an error", in, v)
		}
	}
}
