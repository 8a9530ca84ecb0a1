package compare

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// rampRun is a closed-model run of the demo's shape, one quantum a second:
// the load climbs by one tester a second for ramp seconds, then holds at
// ramp for hold seconds. A service of capacity c calls/s, each tester
// getting rate calls/s from it while it is not saturated, serves
// min(load·rate, c) calls a second (the known answer: B's service at 0.7×
// the rate and capacity serves 0.7× at every load). poisson: the count of
// each second is a Poisson draw, the noisiest a service of that mean
// throughput may be; else it is that mean ±1 (the calls of a fixed service
// time falling on either side of a quantum's boundary, as the demo's).
func rampRun(ramp, hold int, rate, c float64, poisson bool, seed uint64) *Data {
	loads := make([]float64, ramp+hold)
	for i := range loads {
		loads[i] = float64(min(i+1, ramp))
	}
	return loadRun(loads, rate, c, poisson, seed)
}

// loadRun is rampRun at the given load of each second.
func loadRun(loads []float64, rate, c float64, poisson bool, seed uint64) *Data {
	r := rand.New(rand.NewPCG(seed, 0x7a4d))
	res := &analyze.Result{Name: "ramp"}
	for i, load := range loads {
		mean := min(load*rate, c)
		n := math.Round(mean + 2*r.Float64() - 1)
		if poisson {
			n = float64(binomial(r, 10_000, mean/10_000))
		}
		res.Quanta = append(res.Quanta, analyze.Quantum{T: float64(i), Load: load, Active: int(load), Throughput: n})
	}
	res.Summary.Samples = analyze.SampleCounts{Total: 1, OK: 1}
	return NewData(res, nil)
}

// dropsFound compares pairs of 20 s runs, the first 10 s of each the
// ramp-up, B's service 30% slower, and returns in how many of them
// compare --fail-if slower finds B's lower throughput. The demo's 8
// workers × 400 ms: C = 20 calls/s, 2.5 calls/s per tester.
func dropsFound(runs int, poisson bool) int {
	found := 0
	for seed := range uint64(runs) {
		a := rampRun(10, 10, 2.5, 20, poisson, 2*seed+1)
		b := rampRun(10, 10, 0.7*2.5, 0.7*20, poisson, 2*seed+2)
		c := Compare(a, b, Options{Seed: seed + 1})
		if len(c.Regressions([]string{FailSlower})) > 0 && strings.HasPrefix(c.Verdicts.Throughput, "B has lower throughput") {
			found++
		}
	}
	return found
}

// A service 30% slower is found by compare on two 20 s runs whose first
// 10 s are the ramp-up. The median over all quanta mixes ramp and plateau
// and called such a drop not significant.
func TestMatchedFindsThirtyPercentDrop(t *testing.T) {
	if n := dropsFound(20, false); n < 20 {
		t.Errorf("fixed service time: a 30%% drop found in %d of 20 pairs of 20 s runs, want all", n)
	}
	// With Poisson counts (sd √20 ≈ 4.5 calls/s at C) the drop of 6 calls/s
	// at the plateau is about 3.3 standard errors of two 10 s plateaus: a
	// 95% test finds it about 9 times in 10.
	if n := dropsFound(20, true); n < 17 {
		t.Errorf("Poisson counts: a 30%% drop found in %d of 20 pairs of 20 s runs, want ≥ 17", n)
	}
}

// The interval of B − A at matched load holds the known drop.
func TestMatchedIntervalHoldsKnownDrop(t *testing.T) {
	covered := 0
	for seed := range uint64(20) {
		a := rampRun(10, 10, 2.5, 20, true, 2*seed+1)
		b := rampRun(10, 10, 0.7*2.5, 0.7*20, true, 2*seed+2)
		m := Compare(a, b, Options{Seed: seed + 1}).Metric(ThroughputMatched)
		// The true matched mean of A: loads 1..7 at 2.5/s a tester, 8 and
		// 9 at C = 20, cell 10 at C weighing 11 quanta of the 20.
		trueA := (2.5*(1+2+3+4+5+6+7) + 20*2 + 20*11) / 20
		if d := -0.3 * trueA; m.CILow != nil && *m.CILow <= d && d <= *m.CIHigh {
			covered++
		}
	}
	if covered < 17 {
		t.Errorf("the 95%% interval held the known drop in %d of 20 pairs, want ≥ 17", covered)
	}
}

// Two runs of the same service, B with a ramp twice as long (more quanta at
// low load): like with like, no regression.
func TestMatchedIgnoresLongerRamp(t *testing.T) {
	false0 := 0
	const runs = 20
	for seed := range uint64(runs) {
		a := rampRun(10, 10, 2.5, 20, true, 2*seed+1)
		b := rampRun(20, 10, 2.5, 20, true, 2*seed+2)
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
	a := rampRun(2, 10, 2.5, 5, true, 1)
	b := rampRun(2, 10, 0.96*2.5, 0.96*5, true, 2)
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

// Loads that are not one per quantum, not numbers or beyond any run are
// not trusted: no panic, and such quanta are left out.
func TestMatchedUntrustedLoads(t *testing.T) {
	a := rampRun(10, 10, 2.5, 20, false, 1)
	b := rampRun(10, 10, 2.5, 20, false, 2)
	a.Load = a.Load[:3] // not one per quantum: loads unknown, one cell
	if m := Compare(a, b, Options{}).Metric(ThroughputMatched); m.Quanta == nil || *m.Quanta != 0 {
		t.Errorf("loads unknown in A only: %d matched quanta, want 0 (no common cell)", deref(m.Quanta))
	}
	b.Load[0], b.Load[1], b.Load[2] = math.NaN(), math.Inf(1), 1e300
	b.Load = append([]float64(nil), b.Load...)
	a = rampRun(10, 10, 2.5, 20, false, 1)
	if m := Compare(a, b, Options{}).Metric(ThroughputMatched); m.Quanta == nil || *m.Quanta != 17 {
		t.Errorf("%d matched quanta, want 17 (3 of B's loads refused)", deref(m.Quanta))
	}
}

// The demo's own shape over 20 s: 20 testers started 0.5 s apart, each for
// 10 s, so the load climbs by 2 a second to 20 and falls straight back,
// with no plateau and each load held about twice. A 30% slower service is
// still found.
func TestMatchedTriangleRun(t *testing.T) {
	var loads []float64
	for i := range 21 {
		loads = append(loads, float64(2*min(i, 20-i)))
	}
	for seed := range uint64(10) {
		a := loadRun(loads, 2.5, 20, false, 2*seed+1)
		b := loadRun(loads, 0.7*2.5, 0.7*20, false, 2*seed+2)
		c := Compare(a, b, Options{Seed: seed + 1})
		if !strings.HasPrefix(c.Verdicts.Throughput, "B has lower throughput") {
			t.Errorf("seed %d: %s", seed, c.Verdicts.Throughput)
		}
	}
}
