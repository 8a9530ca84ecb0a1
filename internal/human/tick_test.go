package human

import (
	"math"
	"strings"
	"testing"
)

// Ticks are written with the decimals of their step, in M, G or T from a
// million up, never with an exponent.
func TestTick(t *testing.T) {
	for _, c := range []struct {
		v, step float64
		want    string
	}{
		{0, 1, "0"},
		{math.Copysign(0, -1), 1, "0"},
		{40, 20, "40"},
		{0.30000000000000004, 0.1, "0.3"},
		{-0.25, 0.05, "-0.25"},
		{0.5, 0.25, "0.50"},
		{1200, 200, "1200"},
		{1000, 100, "1000"},
		{900, 50, "900"},
		{999999, 1, "999999"},
		{-999999, 1, "-999999"},
		{1e6, 5e5, "1.0M"},
		{1.5e6, 5e5, "1.5M"},
		{3e7, 1e7, "30M"},
		{-3e7, 1e7, "-30M"},
		{1234567890, 10, "1.23456789G"},
		{1.2e9, 2e8, "1.2G"},
		{2.5e13, 5e12, "25T"},
		{1e20, 1e19, "100000000T"},
		{1.5e-7, 5e-8, "0.00000015"},
		{0.000123, 0.000001, "0.000123"},
		{1, 1.0 / 3, "1.0000"},
		{7, 0, "7"},
		{7.25, math.NaN(), "7"},
		{7, math.Inf(1), "7"},
		{math.NaN(), 1, "NaN"},
		{math.Inf(-1), 1, "-Inf"},
	} {
		if got := Tick(c.v, c.step); got != c.want {
			t.Errorf("Tick(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

// No tick, however large or small, or however fine its step, comes out in
// scientific notation, and none panics.
func TestTickNoExponent(t *testing.T) {
	vals := []float64{5e-324, 1e-300, -2e-12, 1e-9, 1e15, -1e150, math.MaxFloat64, -math.MaxFloat64}
	steps := []float64{5e-324, 1e-300, 1e-9, 1, 1e300, math.MaxFloat64, -1}
	for _, v := range vals {
		for _, s := range steps {
			if got := Tick(v, s); strings.ContainsAny(got, "eE") || got == "" {
				t.Errorf("Tick(%g, %g) = %q", v, s, got)
			}
		}
	}
}
