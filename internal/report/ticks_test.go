package report

import (
	"math"
	"slices"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		lo, hi float64
		target int
		want   []float64
	}{
		// The example from the brief: steps of 20.
		{"0..97", 0, 97, 5, []float64{0, 20, 40, 60, 80, 100}},
		// A step of 1 lands exactly on the ends.
		{"0..5", 0, 5, 5, []float64{0, 1, 2, 3, 4, 5}},
		// A step of 5 times a power of ten.
		{"0..23", 0, 23, 5, []float64{0, 5, 10, 15, 20, 25}},
		// Fractions, free of floating-point noise.
		{"0..0.3", 0, 0.3, 3, []float64{0, 0.1, 0.2, 0.3}},
		// Negative ranges and offsets from zero.
		{"-7..13", -7, 13, 4, []float64{-10, -5, 0, 5, 10, 15}},
		// Reversed bounds are swapped.
		{"97..0", 97, 0, 5, []float64{0, 20, 40, 60, 80, 100}},
		// All values equal to zero: widened to 0..1.
		{"0..0", 0, 0, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		// All values equal and non-zero: widened by 10% each side.
		{"50..50", 50, 50, 5, []float64{44, 46, 48, 50, 52, 54, 56}},
		// NaN bounds fall back to 0..1.
		{"NaN", math.NaN(), 3, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		// Infinite bounds fall back to 0..1.
		{"Inf", 0, math.Inf(1), 1, []float64{0, 1}},
		// Large values.
		{"0..2.6e6", 0, 2.6e6, 3, []float64{0, 1e6, 2e6, 3e6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := niceTicks(tt.lo, tt.hi, tt.target); !slices.Equal(got, tt.want) {
				t.Errorf("niceTicks(%v, %v, %d) = %v, want %v", tt.lo, tt.hi, tt.target, got, tt.want)
			}
		})
	}
}

func TestIntegerTicks(t *testing.T) {
	t.Parallel()
	got := ticksWithStep(-0.5, 1.5, 8, 1)
	if want := []float64{-1, 0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("ticksWithStep(-0.5, 1.5, 8, 1) = %v, want %v", got, want)
	}
}

func TestNiceStep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want float64
	}{
		{19.4, 20},    // rounds up to 2×10
		{20, 20},      // already nice
		{3, 5},        // rounds up to 5
		{7, 10},       // rounds up to the next power of ten
		{0.013, 0.02}, // below one
		{0, 1},        // degenerate
		{-3, 1},       // negative
	}
	for _, tt := range tests {
		if got := niceStep(tt.raw); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}

func TestLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got, want string
	}{
		{tickLabel(0.30000000000000004, 0.1), "0.3"}, // decimals of the step
		{tickLabel(40, 20), "40"},                    // whole numbers
		{tickLabel(-0.25, 0.05), "-0.25"},            // two decimals
		{tickLabel(3e7, 1e7), "30M"},                 // very large: M, never an exponent
		{num(123.456), "123.5"},                      // four significant digits
		{num(123456.7), "123457"},                    // no exponent for big counts
		{num(math.NaN()), "–"},                       // undefined
		{num(math.Copysign(0, -1)), "0"},             // no negative zero
		{px(12.345), "12.3"},                         // one decimal
		{px(10.0), "10"},                             // no trailing zero
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}
