package analyze

import (
	"github.com/diperf/diperf/internal/search"
)

// NewSearchSummary is r's summary.json block, loads in unit, for a run
// of runS seconds with minimum capacity minCap; r is read from a file
// and not trusted: a number that is not finite, a load not above 0 or
// above 10⁹, an interval whose low end is above its high one, a verdict
// its figures contradict, or more steps or seconds than the run's
// seconds allow is refused, with an error that says which.
func NewSearchSummary(r *search.Result, unit string, runS, minCap float64) (*SearchSummary, error) {
	if err := r.Check(runS); err != nil {
		return nil, err
	}
	return &SearchSummary{Verdict: r.Verdict, Capacity: r.Capacity, Unit: unit, Interval: r.Interval, BreaksAt: r.BreaksAt,
		Binding: r.Binding, Precision: r.Precision, Steps: len(r.Steps), Calls: r.Calls, Seconds: r.Seconds, Why: r.Why,
		MinCapacity: minCap}, nil
}
