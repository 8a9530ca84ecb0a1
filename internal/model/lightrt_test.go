package model

import "testing"

func TestLightRT(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rt    []float64 // mean response time of each light quantum, ms
		calls []int     // calls behind each mean
		want  float64
	}{
		// the mean of the calls, not of the quanta: (3·80 + 1·100) / 4
		{"call-weighted", []float64{80, 100}, []int{3, 1}, 85},
		// a skewed spread: the mean, above the median (80)
		{"skewed", []float64{78, 80, 80, 96}, []int{1, 1, 1, 1}, 83.5},
		// a quantum caught in a stall (over twice the median) is left out
		{"stalled quantum", []float64{80, 82, 84, 900}, []int{5, 5, 5, 5}, 82},
		// nothing: 0
		{"none", nil, nil, 0},
	}
	for _, tt := range tests {
		p := points{rt: tt.rt, calls: tt.calls}
		idx := make([]int, len(tt.rt))
		for i := range idx {
			idx[i] = i
		}
		if got := p.lightRT(idx); relErr(got, tt.want) > 1e-12 && got != tt.want {
			t.Errorf("%s: lightRT = %g, want %g", tt.name, got, tt.want)
		}
	}
}
