package forecast

import (
	"math"
	"testing"
	"time"
)

// TestNoForecasterBeatsEveryMember: why the criterion (MAE at
// most the best single forecaster's on every trace) cannot hold for any
// forecaster that, like the ensemble, forecasts from the past alone. Each
// next measurement of this trace is the single forecast farthest from the
// ensemble's. The ensemble then misses by that distance D every time;
// each member misses by at most D, and the farthest by 0, so the members'
// mean error, and with it the best member's, is below D whenever the
// forecasts differ. The trace stays within the values it started with
// (every forecast does), as a bandwidth series may.
func TestNoForecasterBeatsEveryMember(t *testing.T) {
	a, single := NewAdaptive(), Defaults()
	ens := Tracked{Method: a}
	members := make([]Tracked, len(single))
	for i, m := range single {
		members[i].Method = m
	}
	v := 50e6
	for i := range 300 {
		if i < 10 {
			v = []float64{50e6, 20e6}[i%2]
		} else if f, ok := a.Predict(); ok {
			v = farthest(single, f)
		}
		m := Measurement{At: time.Unix(int64(i), 0), Value: v}
		ens.Observe(m)
		for j := range members {
			members[j].Observe(m)
		}
	}
	best := math.Inf(1)
	for _, m := range members {
		best = min(best, m.Errors.MAE())
	}
	if !(ens.Errors.MAE() > best) {
		t.Errorf("ensemble MAE %g at most the best member's %g on the trace built against it", ens.Errors.MAE(), best)
	}
	t.Logf("ensemble MAE %.4g, best member %.4g (%+.0f%%)", ens.Errors.MAE(), best, 100*(ens.Errors.MAE()/best-1))
}

// farthest is the forecast of ms farthest from f.
func farthest(ms []Method, f float64) float64 {
	out, d := f, -1.0
	for _, m := range ms {
		if p, ok := m.Predict(); ok && math.Abs(p-f) > d {
			out, d = p, math.Abs(p-f)
		}
	}
	return out
}
