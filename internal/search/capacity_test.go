package search

import (
	"math"
	"testing"
)

// rampCalls is what a linear ramp needs to find truth within precision:
// steps of precision·truth from precision·truth up to the first above
// truth, each held as briefly as a step of the search can be (the
// shortest warm-up and one second measured).
func rampCalls(truth, precision float64, cfg Config) float64 {
	hold := float64(secs(cfg.MinWarmup) + 1)
	var calls float64
	for k := 1; ; k++ {
		rate := float64(k) * precision * truth
		calls += rate * hold
		if rate > truth {
			return calls
		}
	}
}

// TestCapacityUniform: c servers of service time S under uniform
// arrivals keep p99 at S up to c/S calls/s and queue without bound past
// it, so the capacity for p99_ms < 1.5 S is c/S. The search must bracket
// it within the precision, in at most half the calls of a linear ramp.
func TestCapacityUniform(t *testing.T) {
	for _, c := range []struct {
		servers int
		s       float64
		maxRate float64
	}{{4, 0.010, 1600}, {4, 0.007, 4000}, {16, 0.020, 3000}, {1, 0.003, 1000}} {
		truth := float64(c.servers) / c.s
		cfg := Config{SLOs: mustSLOs(t, "p99_ms < "+ftoa(1.5*c.s*1e3)), MaxRate: c.maxRate}
		res, err := runSearch(cfg, newSim(c.servers, c.s, false, 1))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != VerdictCapacity || res.Capacity == nil || res.BreaksAt == nil {
			t.Fatalf("truth %g: verdict %s (%s), want capacity", truth, res.Verdict, res.Why)
		}
		lo, hi := *res.Capacity, *res.BreaksAt
		if math.Abs(lo-truth) > 0.05*truth || truth < lo || truth > hi*1.001 || (hi-lo)/lo > 0.05+1e-9 {
			t.Errorf("truth %g: capacity %g in [%g, %g], want within 5%% of it and bracketing it", truth, lo, lo, hi)
		}
		ramp := rampCalls(truth, 0.05, mustDefaults(t, cfg))
		if float64(res.Calls) > 0.5*ramp {
			t.Errorf("truth %g: %d calls, a linear ramp needs %.0f: want at most half", truth, res.Calls, ramp)
		}
		t.Logf("truth %g: capacity %g [%g, %g] in %d steps, %d calls (ramp %.0f), %d s", truth, lo, lo, hi, len(res.Steps), res.Calls, ramp, res.Seconds)
	}
}
