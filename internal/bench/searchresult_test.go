package bench

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/search"
)

// TestSearchResultFigures: what the bench knows before the run (the
// objective 1.5·S, max-rate 3·C/S, the truth, the ramp) and what it
// makes of an answer: the signed error and whether the interval holds
// the truth.
func TestSearchResultFigures(t *testing.T) {
	o := SearchOptions{Workers: 16, ServiceTime: 50 * time.Millisecond, Arrivals: ArrivalsUniform, Precision: 0.05, Budget: time.Minute}
	r, cfg, err := newSearchResult(&o)
	if err != nil {
		t.Fatal(err)
	}
	if r.SLO != "p99_ms < 75" || r.MaxRate != 960 || r.Truth != 320 || cfg.Start != 60 || r.RampCalls <= 0 {
		t.Errorf("slo %q, max-rate %g, truth %g, start %g, ramp %g: want p99_ms < 75, 960, 320, 60 and a ramp",
			r.SLO, r.MaxRate, r.Truth, cfg.Start, r.RampCalls)
	}
	lo, hi := 312.0, 327.0
	r.fill(&search.Result{Verdict: search.VerdictCapacity, Capacity: &lo, Interval: [2]*float64{&lo, &hi}, Calls: 900}, 1000)
	if r.ErrorPct == nil || *r.ErrorPct != -2.5 || !r.Brackets || math.Abs(r.CallsShare-1000/r.RampCalls) > 1e-4 {
		t.Errorf("error %s%%, brackets %v, share %g: want -2.5%%, true, %g", fig(r.ErrorPct), r.Brackets, r.CallsShare, 1000/r.RampCalls)
	}
	r.fill(&search.Result{Verdict: search.VerdictFailsAtLowest, Interval: [2]*float64{nil, &hi}}, 0)
	if r.ErrorPct != nil || r.Brackets {
		t.Errorf("no capacity: error %s, brackets %v; want null and false", fig(r.ErrorPct), r.Brackets)
	}
	o.Arrivals = "bursty"
	if _, _, err := newSearchResult(&o); err == nil {
		t.Error("arrivals bursty were taken")
	}
}

func fig(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}
