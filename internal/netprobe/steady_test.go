package netprobe

import (
	"testing"
	"time"
)

func TestSteady(t *testing.T) {
	const full = 125_000 // bytes per 100 ms at 10 Mbit/s
	cases := []struct {
		name string
		bins []uint64
		from time.Duration
		bps  float64
	}{
		{"flat", []uint64{full, full, full, full, full}, 0, 10e6},
		{"slow start", append([]uint64{10_000, 40_000, 100_000, 114_000}, repeat(full, 16)...), 300 * time.Millisecond, float64(114_000+16*full) * 8 / 1.7},
		{"nothing", []uint64{0, 0, 0}, 0, 0},
		{"one bin", []uint64{full}, 0, 10e6},
		{"empty", nil, 0, 0},
	}
	for _, c := range cases {
		from, bps := Steady(c.bins)
		if from != c.from || !near(bps, c.bps, 1e-9) {
			t.Errorf("%s: Steady = %v, %.0f; want %v, %.0f", c.name, from, bps, c.from, c.bps)
		}
	}
}

func repeat(v uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func near(a, b, rel float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= rel*max(b, 1)
}
