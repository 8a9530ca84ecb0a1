package compare

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// rampRun is a closed-model run of the demo's shape, one quantum a second:
// the load climbs by one tester a second for ramp seconds, then holds at
// ramp for hold seconds. A service of capacity c calls/s and service time
// 1/rate·load serves min(load·rate, c) calls a second, drawn as a Poisson
// count (the calls ending in a second vary; with a fixed service time they
// vary less, so this is the harder case). Known answer: throughput at every
// load is proportional to rate (below capacity) and c (at it).
func rampRun(ramp, hold int, rate, c float64, seed uint64) *Data {
	r := rand.New(rand.NewPCG(seed, 0x7a4d))
	res := &analyze.Result{Name: "ramp"}
	for i := range ramp + hold {
		load := float64(min(i+1, ramp))
		mean := min(load*rate, c)
		n := binomial(r, 10_000, mean/10_000) // Poisson(mean)
		res.Quanta = append(res.Quanta, analyze.Quantum{T: float64(i), Load: load, Active: int(load), Throughput: float64(n)})
	}
	res.Summary.Samples = analyze.SampleCounts{Total: 1, OK: 1}
	return NewData(res, nil)
}

// A service 30% slower (service time ×1/0.7, capacity 0.7·C) is found by
// compare on two 20 s runs whose first 10 s are the ramp-up: like the
// demo's 8 workers × 400 ms (C = 20 calls/s, 2.5 calls/s per tester).
// The median over all quanta mixes ramp and plateau and called such a
// drop not significant.
func TestMatchedFindsThirtyPercentDrop(t *testing.T) {
	found := 0
	const runs = 20
	for seed := range uint64(runs) {
		a := rampRun(10, 10, 2.5, 20, 2*seed+1)
		b := rampRun(10, 10, 0.7*2.5, 0.7*20, 2*seed+2)
		c := Compare(a, b, Options{Seed: seed + 1})
		if len(c.Regressions([]string{FailSlower})) > 0 && strings.HasPrefix(c.Verdicts.Throughput, "B has lower throughput") {
			found++
		}
		m := c.Metric(ThroughputMatched)
		if m != nil && m.CILow != nil && (*m.CILow > -0.3*m.A*0.6 || *m.CIHigh < -0.3*m.A*1.6) && seed == 0 {
			t.Errorf("interval [%.2f, %.2f] far from the known −30%% of %.2f", *m.CILow, *m.CIHigh, m.A)
		}
	}
	// The drop is about 5 standard errors: every pair of runs must find it.
	if found < runs {
		t.Errorf("a 30%% drop found in %d of %d pairs of 20 s runs, want all", found, runs)
	}
}

// Two runs of the same service, B with a ramp twice as long (more quanta at
// low load): like with like, no regression.
func TestMatchedIgnoresLongerRamp(t *testing.T) {
	false0 := 0
	const runs = 20
	for seed := range uint64(runs) {
		a := rampRun(10, 10, 2.5, 20, 2*seed+1)
		b := rampRun(20, 10, 2.5, 20, 2*seed+2)
		if r := Compare(a, b, Options{Seed: seed + 1}).Regressions([]string{FailSlower}); len(r) > 0 {
			false0++
		}
	}
	// At 95% a false regression comes about once in 40 comparisons; three
	// in 20 has a probability below 2%.
	if false0 > 2 {
		t.Errorf("the same service with a longer ramp regressed in %d of %d comparisons", false0, runs)
	}
}

// Runs too short and noisy to tell a 4% change: the verdict and the JSON
// say how large a change they could have detected.
func TestMatchedReportsDetectableChange(t *testing.T) {
	a := rampRun(2, 10, 2.5, 5, 1)
	b := rampRun(2, 10, 0.96*2.5, 0.96*5, 2)
	c := Compare(a, b, Options{})
	m := c.Metric(ThroughputMatched)
	if m == nil || m.Significant == nil || *m.Significant || m.MDCPct == nil {
		t.Fatalf("metric %+v, want an interval including 0 and a detectable change", m)
	}
	if *m.MDCPct < 10 {
		t.Errorf("detectable change ±%.1f%% of runs at ~5 calls/s for 10 s, want ≥ 10%% (Poisson noise alone gives ~±18%%)", *m.MDCPct)
	}
	if !strings.Contains(c.Verdicts.Throughput, "these runs could detect a change of ±") {
		t.Errorf("verdict %q does not say what the runs could detect", c.Verdicts.Throughput)
	}
	js, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(js), `"mdc_pct":`) {
		t.Errorf("JSON lacks mdc_pct (%v): %s", err, js)
	}
}
