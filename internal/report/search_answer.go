package report

import (
	"github.com/diperf/diperf/internal/search"
)

// checkAnswer keeps of the search's answer only what is possible: a
// capacity, bound or breaking load that is not a number in [0, 1e9] is
// dropped (and said), a precision outside [0, 1] too.
func (v *searchView) checkAnswer() {
	r := &v.res
	for _, p := range []struct {
		name string
		v    **float64
	}{{"capacity", &r.Capacity}, {"interval's low end", &r.Interval[0]}, {"interval's high end", &r.Interval[1]},
		{"breaking load", &r.BreaksAt}} {
		if *p.v != nil && !inRange(**p.v, maxSearchLoad) {
			*p.v = nil
			v.refused = append(v.refused, "the answer's "+p.name+": not a number in [0, 1e9]")
		}
	}
	if lo, hi := r.Interval[0], r.Interval[1]; lo != nil && hi != nil && *lo > *hi {
		r.Interval = [2]*float64{}
		v.refused = append(v.refused, "the answer's interval: its low end is above its high end")
	}
	if !inRange(r.Precision, 1) {
		r.Precision = 0
	}
	r.Seconds = max(r.Seconds, 0)
	r.Verdict, r.Binding, r.Why = short(r.Verdict), short(r.Binding), short(r.Why)
}

// verdictWords says what verdict v means, as docs/search.md does.
func verdictWords(v string) string {
	switch v {
	case search.VerdictCapacity:
		return "the capacity is bracketed within the precision asked"
	case search.VerdictFailsAtLowest:
		return "no load met the objectives: the lowest load tried failed already"
	case search.VerdictHoldsAtMax:
		return "the highest load allowed met every objective: the capacity is at least that"
	case search.VerdictTesterLimited:
		return "the testers became the limit before the service did: the capacity is not known beyond the bracket"
	case search.VerdictBudgetOut:
		return "the time budget ran out: the best bracket so far"
	case search.VerdictNoData:
		return "a step had no call that could be measured"
	}
	return "unknown verdict"
}
