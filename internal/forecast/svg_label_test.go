package forecast

import "testing"

// An evaluation graph's axis labels are short and never in scientific
// notation, from a latency in µs to a squared bandwidth error.
func TestAxisLabels(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.00001: "0.00001", 0.25: "0.25", 1500: "1.5k", 2e7: "20M",
		1.23e12: "1.23T", 1e16: "10000T", -3e6: "-3M"} {
		if got := label(v); got != want {
			t.Errorf("label(%v) = %q, want %q", v, got, want)
		}
	}
}
