package bench

import (
	"fmt"
	"math"

	"github.com/diperf/diperf/internal/search"
)

// Ramp is what a linear ramp needs to find a capacity within the
// search's precision, the figure `diperf bench search` sets the search's
// calls against.
type Ramp struct {
	Calls   float64 // every call of every step
	Seconds float64 // every second of every step
	Steps   int
	Basis   string // the assumptions, in words
}

// RampCalls is the cheapest linear ramp that finds truth within
// cfg.Precision with the statistical power of the search's own steps:
// loads w, 2w, … (w = precision·truth) up to the first above truth, so
// that the last load that meets and the first that fails are within the
// precision of each other. Each step is held as briefly as a step of the
// search can be: its shortest warm-up (cfg.MinWarmup), then, in whole
// seconds (at least one), the calls its SPRT on share (pNN: 1 − NN/100)
// needs at the very least to decide: to meet, when no call is over the
// objective; to fail (the last step), when every call is. Any real ramp
// needs more: below the capacity some calls are over, and near it the
// share is in the test's indifference zone. cfg has its defaults.
func RampCalls(truth, share float64, cfg search.Config) (Ramp, error) {
	if !(truth > 0) || math.IsInf(truth, 0) || !(share > 0 && share < 1) {
		return Ramp{}, fmt.Errorf("ramp: want a truth > 0 and 0 < share < 1, got %g and %g", truth, share)
	}
	meet, fail := sprtLeast(share, cfg.Indifference, cfg.Alpha, cfg.Beta)
	warm := math.Ceil(cfg.MinWarmup.Seconds())
	w := cfg.Precision * truth
	last := int(math.Floor(1/cfg.Precision+1e-9)) + 1 // the first k with k·w > truth
	r := Ramp{Steps: last}
	for k := 1; k <= last; k++ {
		rate, need := float64(k)*w, meet
		if k == last {
			need = fail
		}
		secs := warm + math.Max(1, math.Ceil(need/rate))
		r.Calls += rate * secs
		r.Seconds += secs
	}
	r.Calls = math.Round(r.Calls)
	r.Basis = fmt.Sprintf("linear ramp in steps of precision x truth (%d steps, %.4g calls/s each), each held for the search's shortest warm-up (%gs) "+
		"then, in whole seconds, the calls its SPRT needs at least to decide (%.0f to meet with no call over, %.0f to fail with every call over): a lower bound",
		last, w, warm, meet, fail)
	return r, nil
}

// sprtLeast is how many calls Wald's SPRT of a share b (H0 b·(1 − δ)
// against H1 b·(1 + δ), errors α and β, as package search runs it)
// needs at the least: to meet, all of them under the objective; to fail,
// all over.
func sprtLeast(b, delta, alpha, beta float64) (meet, fail float64) {
	p0, p1 := b*(1-delta), math.Min(b*(1+delta), (1+b)/2)
	meet = math.Ceil(math.Log(beta/(1-alpha)) / math.Log((1-p1)/(1-p0)))
	fail = math.Ceil(math.Log((1-beta)/alpha) / math.Log(p1/p0))
	return meet, fail
}
