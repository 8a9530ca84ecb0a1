package forecast

import (
	"math"
	"testing"
	"time"
)

// feed returns measurements of vs, one a second.
func feed(vs ...float64) []Measurement {
	out := make([]Measurement, len(vs))
	for i, v := range vs {
		out[i] = Measurement{At: time.Unix(int64(i), 0), Value: v}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestMethods feeds 10, 20, 30, 10 and checks each method's final forecast
// and its errors over the forecasts of 20, 30 and 10, worked by hand.
func TestMethods(t *testing.T) {
	tests := []struct {
		method         Method
		name           string
		next, mae, mse float64
	}{
		// forecasts 10, 20, 30: errors 10, 10, 20
		{&LastValue{}, "last", 10, 40.0 / 3, 600.0 / 3},
		// forecasts 10, 15, 20: errors 10, 15, 10; mean of all four 17.5
		{&RunningMean{}, "mean", 17.5, 35.0 / 3, 425.0 / 3},
		// forecasts 10, 15, 22.5: errors 10, 15, 12.5; then 0.5·10 + 0.5·22.5
		{&ExpAverage{Weight: 0.5}, "exp0.5", 16.25, 37.5 / 3, 481.25 / 3},
		// 10 → 0.35·20+0.65·10 = 13.5 → 0.35·30+0.65·13.5 = 19.275 → 0.35·10+0.65·19.275
		{&ExpAverage{}, "exp0.35", 16.02875, (10 + 16.5 + 9.275) / 3, (100 + 272.25 + 9.275*9.275) / 3},
		// medians of [10], [10 20], [10 20 30]: 10, 15, 20; then of [20 30 10]
		{NewSlidingMedian(3), "median3", 20, 35.0 / 3, 425.0 / 3},
		// medians of [10], [10 20], [20 30]: 10, 15, 25 (errors 10, 15, 15); then of [30 10]
		{NewSlidingMedian(2), "median2", 20, 40.0 / 3, 550.0 / 3},
		// window < 1 is the default
		{NewSlidingMedian(0), "median5", 15, 35.0 / 3, 425.0 / 3},
	}
	for _, tt := range tests {
		tr := Tracked{Method: tt.method}
		if _, ok := tr.Forecast(); ok {
			t.Errorf("%s forecasts before any measurement", tt.name)
		}
		for _, m := range feed(10, 20, 30, 10) {
			tr.Observe(m)
		}
		f, ok := tr.Forecast()
		if !ok || f.Method != tt.name || !near(f.Value, tt.next) || !near(f.Error, tt.mae) ||
			!near(f.RMSE, math.Sqrt(tt.mse)) || f.Scored != 3 {
			t.Errorf("%s: got %+v, want value %g, error %g, rmse %g over 3", tt.name, f, tt.next, tt.mae, math.Sqrt(tt.mse))
		}
	}
}

// TestSlidingMedianWindow checks the window slides: the old values leave.
func TestSlidingMedianWindow(t *testing.T) {
	s := NewSlidingMedian(3)
	for i, want := range []float64{5, 3, 5, 7, 9, 9} { // windows [5] [5 1] [5 1 7] [1 7 9] [7 9 100] [9 100 9]
		s.Observe(Measurement{Value: []float64{5, 1, 7, 9, 100, 9}[i]})
		if got, _ := s.Predict(); got != want {
			t.Errorf("after %d values: median %g, want %g", i+1, got, want)
		}
	}
}

// TestNoAllocation: feeding and asking the adaptive forecaster allocates
// nothing.
func TestNoAllocation(t *testing.T) {
	a := NewAdaptive()
	ms := Synthetic(64, 16, 5, 1)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		a.Observe(ms[i%len(ms)])
		i++
		if _, ok := a.Forecast(); !ok {
			t.Fatal("no forecast")
		}
	})
	if allocs != 0 {
		t.Errorf("%g allocations per measurement, want 0", allocs)
	}
}

// BenchmarkAdaptive is one measurement fed to the default adaptive
// forecaster and one forecast asked of it.
func BenchmarkAdaptive(b *testing.B) {
	a := NewAdaptive()
	ms := Synthetic(1024, 100, 5, 1)
	for i := 0; b.Loop(); i++ {
		a.Observe(ms[i%len(ms)])
		a.Forecast()
	}
}
