package model

import (
	"math"
	"slices"
	"testing"
)

func TestChoose(t *testing.T) {
	t.Parallel()
	amdahl := func(bic float64) *USL { return &USL{Lambda: 10, Sigma: 0.1, BIC: bic} }
	falls := func(bic float64) *USL {
		return &USL{Lambda: 10, Sigma: 0.1, Kappa: 0.01, BIC: bic, Decline: &Decline{Points: 50, T: -9, Critical: -1.7, Shown: true}}
	}
	flat := func(bic float64) *USL {
		return &USL{Lambda: 10, Sigma: 0.1, Kappa: 0.01, BIC: bic, Decline: &Decline{Points: 30, T: 0.3, Critical: -1.7}}
	}
	bounds := &Bounds{BIC: 100}
	tests := []struct {
		name    string
		u       *USL
		b       *Bounds
		want    string
		covered []string
	}{
		// no plateau: the USL alone
		{"no bounds", falls(50), nil, ModelUSL, nil},
		// the bounds far better: nothing else covered
		{"bounds by far", falls(110), bounds, ModelBounds, nil},
		// two parameters each: the lower BIC, the other covered
		{"amdahl lower", amdahl(99), bounds, ModelUSL, []string{ModelBounds}},
		{"amdahl higher", amdahl(101), bounds, ModelBounds, []string{ModelUSL}},
		// an exact tie of equal sizes goes to the USL, as before
		{"amdahl tie", amdahl(100), bounds, ModelUSL, []string{ModelBounds}},
		// κ and its decline in the data: a near tie goes to the bounds ...
		{"decline, near tie", falls(98.5), bounds, ModelBounds, []string{ModelUSL}},
		// ... a clearer lead to the USL
		{"decline, USL ahead by 3", falls(97), bounds, ModelUSL, []string{ModelBounds}},
		// κ without a decline: the USL needs a lead of more than 6
		{"flat, USL ahead by 5", flat(95), bounds, ModelBounds, []string{ModelUSL}},
		{"flat, USL ahead by 7", flat(93), bounds, ModelUSL, nil},
		// the USL far better: it predicts alone
		{"usl by far", falls(60), bounds, ModelUSL, nil},
	}
	for _, tt := range tests {
		got, s := choose(tt.u, tt.b)
		if got != tt.want || !slices.Equal(s.Covered, tt.covered) || s.Reason == "" || s.Criterion == "" {
			t.Errorf("%s: %s covering %v (%s), want %s covering %v", tt.name, got, s.Covered, s.Reason, tt.want, tt.covered)
		}
		if tt.b == nil {
			if s.Weights != nil {
				t.Errorf("%s: weights %v without the bounds", tt.name, s.Weights)
			}
			continue
		}
		wu, wb := s.Weights[ModelUSL], s.Weights[ModelBounds]
		if math.Abs(wu+wb-1) > 1e-12 || math.Abs(wu/wb-math.Exp((tt.b.BIC-tt.u.BIC)/2)) > 1e-9*wu/wb {
			t.Errorf("%s: weights %v for BIC %g and %g", tt.name, s.Weights, tt.u.BIC, tt.b.BIC)
		}
	}
}

func TestPredictCoversTheOtherModel(t *testing.T) {
	t.Parallel()
	// the bounds predict, X = min(N/0.1 s, 50); the USL, X = 10·N, is not
	// ruled out; no refits, so each interval is the two values
	m := &Model{Chosen: ModelBounds, USL: USL{Lambda: 10, MinLoad: 1, MaxLoad: 10},
		Bounds:    &Bounds{BoundsParams: BoundsParams{R0Ms: 100, Plateau: 50}},
		Selection: Selection{Covered: []string{ModelUSL}}}
	p := m.Predict(8)
	want := Prediction{Load: 8, Model: ModelBounds, Bound: BoundInterval, Throughput: Interval{Value: 50, Low: 50, High: 80},
		ResponseTimeMs: Interval{Value: 160, Low: 100, High: 160}}
	if p != want {
		t.Errorf("Predict(8) = %+v, want %+v", p, want)
	}
	m.Selection.Covered = nil
	if p := m.Predict(8); p.Throughput != (Interval{Value: 50, Low: 50, High: 50}) {
		t.Errorf("nothing covered: %+v", p.Throughput)
	}
}
