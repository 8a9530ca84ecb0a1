package search

import (
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/jsonnum"
)

// Result is the search's answer: summary.json's search block.
type Result struct {
	Verdict string `json:"verdict"`
	// Capacity is the highest load that met every SLO (calls/s, or
	// clients); null when none did. Interval is [lo, hi]: hi is the
	// lowest load that failed (null when none failed).
	Capacity  *float64     `json:"capacity"`
	Interval  [2]*float64  `json:"interval"`
	Binding   string       `json:"binding,omitempty"` // the SLO that failed at hi
	BreaksAt  *float64     `json:"breaks_at"`         // hi: the load at which it breaks
	Precision float64      `json:"precision"`         // asked, as a share: 0.05 = 5%
	Calls     uint64       `json:"calls"`             // every call of every step
	Seconds   int          `json:"seconds"`           // every second of every step
	Why       string       `json:"why"`               // the verdict in words
	Steps     []StepRecord `json:"steps"`
}

// NoneMeets reports whether no load met the SLOs while one failed (the
// command's exit 3).
func (r Result) NoneMeets() bool { return r.Capacity == nil && r.BreaksAt != nil }

// Result is the search's answer so far: with no verdict yet (the search
// stopped from outside), the best bracket, as a budget-out.
func (s *Searcher) Result() Result {
	v := s.verdict
	if v == "" {
		v = VerdictBudgetOut
	}
	r := Result{Verdict: v, Binding: s.binding, Precision: s.cfg.Precision, Seconds: s.elapsed, Steps: s.steps}
	if s.lo > 0 {
		r.Capacity = jsonnum.Ptr(s.lo)
		r.Interval[0] = jsonnum.Ptr(s.lo)
	}
	if s.hi > 0 {
		r.BreaksAt = jsonnum.Ptr(s.hi)
		r.Interval[1] = jsonnum.Ptr(s.hi)
	}
	for _, st := range s.steps {
		r.Calls += st.Calls
	}
	r.Why = s.why(v)
	return r
}

// why is verdict v in words.
func (s *Searcher) why(v string) string {
	switch v {
	case VerdictCapacity:
		return fmt.Sprintf("capacity %.4g: it met every objective, %.4g failed %s (within %.3g%%)", s.lo, s.hi, s.binding, 100*s.cfg.Precision)
	case VerdictFailsAtLowest:
		return fmt.Sprintf("the lowest load, %.4g, failed %s already", s.hi, s.binding)
	case VerdictHoldsAtMax:
		return fmt.Sprintf("the highest load allowed, %.4g, met every objective: the capacity is at least that", s.lo)
	case VerdictNoData:
		return "no call of the last step could be measured: " + s.steps[len(s.steps)-1].Why
	case VerdictTesterLimited:
		last := s.steps[len(s.steps)-1]
		return fmt.Sprintf("at load %.4g the testers became the limit before the service (%s)", last.Load,
			strings.TrimPrefix(last.Why, testerWhy))
	}
	switch {
	case s.lo == 0:
		return "the time budget ran out before a load met every objective"
	case s.hi == 0:
		return fmt.Sprintf("the time budget ran out: %.4g met every objective, no load failed yet", s.lo)
	}
	return fmt.Sprintf("the time budget ran out: the capacity lies in [%.4g, %.4g]", s.lo, s.hi)
}
