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
		if *p.v != nil && !inRange(**p.v, search.MaxLoad) {
			*p.v = nil
			v.refused = append(v.refused, "the answer's "+p.name+": not a number in [0, 1e9]")
		}
	}
	if lo, hi := r.Interval[0], r.Interval[1]; lo != nil && hi != nil && *lo > *hi {
		r.Interval = [2]*float64{}
		v.refused = append(v.refused, "the answer's interval: its low end is above its high end")
	}
	if err := r.CheckVerdict(); err != nil {
		v.refused = append(v.refused, "the answer's verdict: "+err.Error())
	}
	if !inRange(r.Precision, 1) {
		r.Precision = 0
	}
	r.Seconds = max(r.Seconds, 0)
	r.Verdict, r.Binding, r.Why = short(r.Verdict), short(r.Binding), short(r.Why)
}
