package search

import "testing"

// mdcTruth is the capacity for p99 < 1.5·S of an M/D/c service of 64
// servers and S = 500 ms: the highest Poisson rate whose steady-state
// p99 response time is below 750 ms, from the exact M/D/c waiting-time
// law (internal/bench's mdc.go, checked there against M/D/1's closed
// forms, Little's law and a simulation of 2 M calls: TestSearchTruth).
const mdcTruth = 120.05

// TestCapacityPoissonSlowService: a slow service of many servers (64 ×
// 500 ms) under Poisson arrivals relaxes slowly to its steady state
// (about 8 s near its capacity), and every probe starts from the empty
// queue of a rest: without the relaxation warm-up the search met 125.9
// and 132.2 calls/s (+5% and +10% over the truth), whose steady states
// fail. With it the capacity is within 5% of the M/D/c truth; uniform
// arrivals, whose queue below capacity is empty, need none (their search
// costs no more).
func TestCapacityPoissonSlowService(t *testing.T) {
	for seed := range uint64(4) {
		cfg := Config{SLOs: mustSLOs(t, "p99_ms < 750"), MaxRate: 384, Poisson: true}
		res, err := runSearch(cfg, newSim(64, 0.5, true, seed+10))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != VerdictCapacity || *res.Capacity < 0.95*mdcTruth || *res.Capacity > 1.05*mdcTruth {
			t.Errorf("seed %d: %s (%s); want a capacity within 5%% of %.2f", seed, res.Verdict, res.Why, mdcTruth)
		}
	}
	uniform, err := runSearch(Config{SLOs: mustSLOs(t, "p99_ms < 750"), MaxRate: 384}, newSim(64, 0.5, false, 1))
	if err != nil || uniform.Verdict != VerdictCapacity || *uniform.Capacity < 0.95*128 || *uniform.Capacity > 128 {
		t.Errorf("uniform: %s (%s), %v; want a capacity within 5%% below C/S = 128", uniform.Verdict, uniform.Why, err)
	}
	for _, st := range uniform.Steps {
		if st.WarmupS > 10 {
			t.Errorf("uniform step %d warmed up %d s: a uniform stream's queue needs no relaxation", st.Step, st.WarmupS)
		}
	}
}
