package search

import (
	"math"
	"testing"
)

// TestTQuantile checks the t quantiles against the printed tables.
func TestTQuantile(t *testing.T) {
	for _, c := range []struct {
		p    float64
		nu   int
		want float64
	}{{0.025, 1, 12.706}, {0.025, 2, 4.303}, {0.025, 5, 2.571}, {0.05, 10, 1.812}, {0.005, 20, 2.845}, {0.025, 30, 2.042}, {0.001, 7, 4.785}} {
		if got := tQuantile(c.p, c.nu); math.Abs(got-c.want) > 0.002 {
			t.Errorf("t(%g, %d) = %.4f, want %.3f", c.p, c.nu, got, c.want)
		}
	}
}
