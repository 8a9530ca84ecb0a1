package search

import (
	"testing"
)

// overShare is the long-run share of calls over boundMs at rate of a
// fresh simulated service (Poisson arrivals), the first 10 s left out.
func overShare(servers int, s float64, rate, boundMs float64, seed uint64) float64 {
	m := newSim(servers, s, true, seed)
	var k, n uint64
	for i := range 310 {
		sec := m.second(rate)
		if i >= 10 {
			k += overCount(sec.RT.Hist, boundMs, true)
			n += sec.histCount()
		}
	}
	return float64(k) / float64(n)
}

// TestCapacityPoisson: under Poisson arrivals p99 breaks below c/S, where
// the queue's waits reach 0.5 S. The search's bracket must agree with long
// runs of the same service: at lo the share of calls over 1.5 S is at most
// the test's p1 (1.5%, the edge of its indifference zone: at or above it the
// step says meets with probability ≤ β), at hi at least p0 (0.5%).
func TestCapacityPoisson(t *testing.T) {
	for seed := range uint64(3) {
		cfg := Config{SLOs: mustSLOs(t, "p99_ms < 15"), MaxRate: 1600, Poisson: true}
		res, err := runSearch(cfg, newSim(4, 0.010, true, seed+10))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != VerdictCapacity {
			t.Fatalf("seed %d: verdict %s (%s)", seed, res.Verdict, res.Why)
		}
		lo, hi := *res.Capacity, *res.BreaksAt
		atLo, atHi := overShare(4, 0.010, lo, 15, seed+100), overShare(4, 0.010, hi, 15, seed+200)
		if atLo > 0.015 || atHi < 0.005 {
			t.Errorf("seed %d: bracket [%.1f, %.1f]: over 15 ms %.2f%% at lo, %.2f%% at hi in long runs, want ≤ 1.5%% and ≥ 0.5%%",
				seed, lo, hi, 100*atLo, 100*atHi)
		}
		t.Logf("seed %d: capacity %.1f [%.1f, %.1f] in %d steps, %d calls, %d s; long runs: %.2f%% and %.2f%% over 15 ms",
			seed, lo, lo, hi, len(res.Steps), res.Calls, res.Seconds, 100*atLo, 100*atHi)
	}
}
