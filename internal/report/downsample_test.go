package report

import (
	"math"
	"slices"
	"testing"
)

// eqNaN compares float slices, NaN equal to NaN.
func eqNaN(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	})
}

func TestMovingAverage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		y      []float64
		window int
		want   []float64
	}{
		// Empty in, empty out.
		{"empty", nil, 5, []float64{}},
		// One point averages to itself.
		{"single", []float64{7}, 5, []float64{7}},
		// Centered window, shrinking at the ends.
		{"ramp", []float64{0, 1, 2, 3, 4, 5, 6}, 5, []float64{1, 1.5, 2, 3, 4, 4.5, 5}},
		// NaN is left out of neighbours' averages and stays a gap itself.
		{"gap", []float64{2, nan, 4, 6}, 3, []float64{2, nan, 5, 5}},
		// Inf is a gap too, and does not spread to its neighbours.
		{"inf", []float64{2, math.Inf(1), 4, 6}, 3, []float64{2, nan, 5, 5}},
		// A window of 1 is the identity.
		{"window 1", []float64{3, 1, 2}, 1, []float64{3, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := movingAverage(tt.y, tt.window); !eqNaN(got, tt.want) {
				t.Errorf("movingAverage(%v, %d) = %v, want %v", tt.y, tt.window, got, tt.want)
			}
		})
	}
}

func TestMinMax(t *testing.T) {
	t.Parallel()
	const n = 100000
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = float64(i), math.Sin(float64(i)/1000)
	}
	y[4321], y[77777] = 50, -50 // spikes that must survive
	for i := 60000; i < 62000; i++ {
		y[i] = math.NaN() // a gap that must survive
	}
	xs, ys := minMax(x, y, maxPoints)
	if len(xs) > maxPoints || len(xs) != len(ys) {
		t.Fatalf("minMax kept %d x and %d y, want equal and <= %d", len(xs), len(ys), maxPoints)
	}
	if !slices.Contains(ys, 50) || !slices.Contains(ys, -50) {
		t.Error("minMax lost a spike")
	}
	if !slices.ContainsFunc(ys, math.IsNaN) {
		t.Error("minMax lost the gap")
	}
	if !slices.IsSorted(xs) {
		t.Error("minMax reordered the points")
	}
	if xs, _ := minMax(x[:10], y[:10], maxPoints); len(xs) != 10 {
		t.Errorf("minMax thinned a short series to %d points", len(xs))
	}
}

func TestStride(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, limit, want int
	}{
		{0, 1500, 0},         // empty
		{1, 1500, 1},         // single point kept
		{1500, 1500, 1500},   // at the limit: all kept
		{1501, 1500, 751},    // just over: every second point
		{200000, 1500, 1493}, // large: every 134th point
	}
	for _, tt := range tests {
		x := make([]float64, tt.n)
		xs, ys := stride(x, x, tt.limit)
		if len(xs) != tt.want || len(ys) != tt.want {
			t.Errorf("stride(%d points, %d) kept %d, want %d", tt.n, tt.limit, len(xs), tt.want)
		}
	}
}
