package model

import (
	"math"
	"testing"
)

func TestMovingAverage(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name   string
		y      []float64
		window int
		want   []float64
	}{
		// window 3: neighbours averaged, the window shrinking at the ends
		{"window 3", []float64{1, 2, 3, 4, 5}, 3, []float64{1.5, 2, 3, 4, 4.5}},
		// window 5 over a constant is the constant
		{"constant", []float64{7, 7, 7, 7}, 5, []float64{7, 7, 7, 7}},
		// an even window acts as the next odd one
		{"even window", []float64{1, 2, 3, 4, 5}, 2, []float64{1.5, 2, 3, 4, 4.5}},
		// window 1 (or less) copies
		{"window 1", []float64{3, 1, 2}, 1, []float64{3, 1, 2}},
		// window 0 copies too
		{"window 0", []float64{3, 1, 2}, 0, []float64{3, 1, 2}},
		// NaNs are skipped, not propagated
		{"nan skipped", []float64{1, nan, 3, 5}, 3, []float64{1, 2, 4, 4}},
		// a window of nothing but NaN is NaN
		{"all nan window", []float64{nan, nan, nan, 9}, 3, []float64{nan, nan, 9, 9}},
		// empty in, empty out
		{"empty", nil, 3, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := MovingAverage(tt.y, tt.window)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if !sameFloat(got[i], tt.want[i], 1e-12) {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// sameFloat reports whether a and b are both NaN or within tol of each other.
func sameFloat(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}
