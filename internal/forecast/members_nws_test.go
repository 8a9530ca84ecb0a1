package forecast

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNWSMembers feeds each new member a short series and checks its
// forecasts after each measurement, worked by hand.
func TestNWSMembers(t *testing.T) {
	tests := []struct {
		method Method
		name   string
		in     []float64
		want   []float64
	}{
		// [10] [10 20] [10 20 30] (nothing cut below 4 values), [10 20 30 100]
		// less one at each end, then [20 30 40 100] likewise
		{NewTrimmedMean(4), "trim4", []float64{10, 20, 30, 100, 40}, []float64{10, 15, 20, 25, 35}},
		{NewTrimmedMean(0), "trim5", []float64{7}, []float64{7}},
		// window 1 until 0 arrives: the median of the last 2 (25) was closer
		// than the last 1 (30), so it grows to 2: median of [30 0]; then 5 is
		// closest to the median of the last 1 (0), so it shrinks back
		{NewAdaptiveMedian(1, 3), "amedian1-3", []float64{10, 20, 30, 0, 5}, []float64{10, 20, 30, 15, 5}},
		// bounds below 1 are 1: last value
		{NewAdaptiveMedian(0, 0), "amedian1-1", []float64{4, 8, 1}, []float64{4, 8, 1}},
	}
	for _, tt := range tests {
		if _, ok := tt.method.Predict(); ok || tt.method.Name() != tt.name {
			t.Errorf("%s: forecast before any measurement, or named %q", tt.name, tt.method.Name())
		}
		for i, v := range tt.in {
			tt.method.Observe(Measurement{Value: v})
			if got, _ := tt.method.Predict(); !near(got, tt.want[i]) {
				t.Errorf("%s after %v: %g, want %g", tt.name, tt.in[:i+1], got, tt.want[i])
			}
		}
	}
}

// TestAdaptiveMedianBounds: on noise the window moves, but stays within
// its bounds, and the forecast is a median of the last w measurements.
func TestAdaptiveMedianBounds(t *testing.T) {
	a := NewAdaptiveMedian(3, 7)
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{}
	for range 500 {
		a.Observe(Measurement{Value: rng.NormFloat64()})
		if a.w < 3 || a.w > 7 {
			t.Fatalf("window %d outside [3, 7]", a.w)
		}
		seen[a.w] = true
	}
	if len(seen) < 3 {
		t.Errorf("the window hardly moved: %v", seen)
	}
}

// TestRecentErrors: every window's MAE and MSE equal those summed afresh
// over its last forecasts, and a huge error leaves no rounding behind once
// the ring has wrapped.
func TestRecentErrors(t *testing.T) {
	var r recentErrors
	rng := rand.New(rand.NewPCG(3, 4))
	var abs, sq []float64
	for n := range 200 {
		f, m := rng.Float64()*100, rng.Float64()*100
		if n == 40 {
			f = 1e140 // a huge miss
		}
		r.add(f, m)
		abs, sq = append(abs, math.Abs(f-m)), append(sq, (f-m)*(f-m))
		for i, w := range errorWindows {
			k := len(abs)
			if w > 0 {
				k = min(w, k)
			}
			wantAbs, wantSq := mean(abs[len(abs)-k:]), mean(sq[len(sq)-k:])
			exact := n >= 90 // 40 + the longest window + a wrap
			gotAbs, gotSq := r.score(i, ByMAE), r.score(i, ByMSE)
			if r.scored(i) != k || (exact || n < 40 || w == 0) && (!near(gotAbs, wantAbs) || !near(gotSq, wantSq)) {
				t.Fatalf("after %d, window %d: MAE %g MSE %g over %d, want %g %g over %d", n+1, w, gotAbs, gotSq, r.scored(i), wantAbs, wantSq, k)
			}
		}
	}
	var empty recentErrors
	if !math.IsInf(empty.score(0, ByMAE), 1) || empty.scored(4) != 0 {
		t.Errorf("no forecast scored: want +Inf over 0")
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
