package model

import (
	"math"
	"testing"
)

// sample returns x from lo to hi in steps of step, and poly(x).
func sample(coef []float64, lo, hi, step float64) (x, y []float64) {
	for v := lo; v <= hi+step/2; v += step {
		x, y = append(x, v), append(y, PolyEval(coef, v))
	}
	return x, y
}

func TestPolyfitRecoversExactPolynomials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		coef   []float64
		lo, hi float64
		step   float64
	}{
		// an exact cubic, around zero
		{"cubic", []float64{2, -3, 0.5, 0.25}, -5, 5, 0.5},
		// a cubic far from zero (x = load over a long run): scaling matters
		{"cubic far out", []float64{100, -0.3, 0.002, -1e-6}, 500, 1500, 10},
		// a line
		{"line", []float64{1, 2}, 0, 10, 1},
		// a constant
		{"constant", []float64{4}, 0, 3, 1},
		// degree 6, the highest allowed
		{"sextic", []float64{1, -1, 0.5, -0.25, 0.125, -0.0625, 0.03125}, -2, 2, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x, y := sample(tt.coef, tt.lo, tt.hi, tt.step)
			got, err := Polyfit(x, y, len(tt.coef)-1)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range tt.coef {
				if math.Abs(got[i]-c) > 1e-8*math.Max(1, math.Abs(c)) {
					t.Fatalf("coefficients %v, want %v", got, tt.coef)
				}
			}
		})
	}
}

func TestPolyfitLeastSquares(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name   string
		x, y   []float64
		degree int
		want   []float64
	}{
		// the least-squares line through (0,0) (1,1) (2,1) (3,2) is 0.1 + 0.6x
		{"line", []float64{0, 1, 2, 3}, []float64{0, 1, 1, 2}, 1, []float64{0.1, 0.6}},
		// degree 0 is the mean
		{"mean", []float64{1, 2, 3}, []float64{1, 5, 6}, 0, []float64{4}},
		// pairs holding a NaN are skipped
		{"nan skipped", []float64{0, 1, nan, 2, 3}, []float64{0, 1, 5, nan, 3}, 1, []float64{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Polyfit(tt.x, tt.y, tt.degree)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				if math.Abs(got[i]-tt.want[i]) > 1e-12 {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestPolyfitErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		x, y   []float64
		degree int
	}{
		// x and y of different lengths
		{"lengths", []float64{1, 2, 3}, []float64{1, 2}, 1},
		// negative degree
		{"negative degree", []float64{1, 2, 3}, []float64{1, 2, 3}, -1},
		// degree above MaxDegree
		{"degree 7", []float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{1, 2, 3, 4, 5, 6, 7, 8}, 7},
		// fewer points than coefficients
		{"too few points", []float64{1, 2}, []float64{1, 2}, 2},
		// enough points but only two distinct x for a quadratic
		{"repeated x", []float64{1, 1, 2, 2}, []float64{1, 1, 2, 2}, 2},
		// one x for a line
		{"single x", []float64{3, 3, 3}, []float64{1, 2, 3}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if c, err := Polyfit(tt.x, tt.y, tt.degree); err == nil {
				t.Fatalf("no error, coefficients %v", c)
			}
		})
	}
}

func TestPolyEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		coef []float64
		x    float64
		want float64
	}{
		// 1 + 2x + 3x² at 2
		{"quadratic", []float64{1, 2, 3}, 2, 17},
		// no coefficients: the zero polynomial
		{"empty", nil, 5, 0},
		// a constant
		{"constant", []float64{-4}, 100, -4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := PolyEval(tt.coef, tt.x); got != tt.want {
				t.Errorf("got %g, want %g", got, tt.want)
			}
		})
	}
}
