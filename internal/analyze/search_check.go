package analyze

import (
	"fmt"
	"math"

	"github.com/diperf/diperf/internal/search"
)

// Bounds of what a search.json may say.
const (
	// searchSlackS is the seconds a search may hold beyond the run's
	// analysed span: the live view makes a second final 3 s after it
	// ends, a rest of at most 10 s (no load) may end it, and its first
	// and last seconds may hold no call.
	searchSlackS  = 15
	maxSearchText = 4096 // bytes of its why and binding
)

// NewSearchSummary is r's summary.json block, loads in unit, for a run
// of runS seconds with minimum capacity minCap; r is read from a file
// and not trusted: a number that is not finite, a load not above 0 or
// above 10⁹, an interval whose low end is above its high one, a verdict
// its figures contradict, or more steps or seconds than the run's
// seconds allow is refused, with an error that says which.
func NewSearchSummary(r *search.Result, unit string, runS, minCap float64) (*SearchSummary, error) {
	if err := checkSearchResult(r, runS); err != nil {
		return nil, err
	}
	return &SearchSummary{Verdict: r.Verdict, Capacity: r.Capacity, Unit: unit, Interval: r.Interval, BreaksAt: r.BreaksAt,
		Binding: r.Binding, Precision: r.Precision, Steps: len(r.Steps), Calls: r.Calls, Seconds: r.Seconds, Why: r.Why,
		MinCapacity: minCap}, nil
}

// checkSearchResult refuses what r cannot be for a run of runS seconds.
func checkSearchResult(r *search.Result, runS float64) error {
	lo, hi := r.Interval[0], r.Interval[1]
	secs := math.Ceil(max(runS, 0)) + searchSlackS
	switch {
	case !finiteLoad(r.Capacity) || !finiteLoad(lo) || !finiteLoad(hi) || !finiteLoad(r.BreaksAt):
		return fmt.Errorf("a load is not a number above 0 and at most %g", maxSearchLoad)
	case !sameLoad(r.Capacity, lo) || !sameLoad(r.BreaksAt, hi):
		return fmt.Errorf("the capacity and breaking load are not the interval's ends")
	case lo != nil && hi != nil && *lo > *hi:
		return fmt.Errorf("the interval [%g, %g] has its low end above its high one", *lo, *hi)
	case math.IsNaN(r.Precision) || r.Precision <= 0 || r.Precision > 1:
		return fmt.Errorf("the precision, %v, is not a share in (0, 1]", r.Precision)
	case float64(len(r.Steps)) > secs || r.Seconds < 0 || float64(r.Seconds) > secs:
		return fmt.Errorf("%d steps in %d s: more than the run's %g s allow", len(r.Steps), r.Seconds, runS)
	case len(r.Why) > maxSearchText || len(r.Binding) > maxSearchText:
		return fmt.Errorf("its why or binding is longer than %d bytes", maxSearchText)
	}
	if err := checkSearchSteps(r.Steps, secs); err != nil {
		return err
	}
	return checkVerdict(r)
}

// sameLoad reports whether a and b are both absent or equal.
func sameLoad(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// checkSearchSteps refuses a step of a load that is not a number above 0
// and at most 10⁹, or steps holding more seconds in all than secs.
func checkSearchSteps(steps []search.StepRecord, secs float64) error {
	total, last := 0.0, int64(0)
	for _, st := range steps {
		if l := st.Load; !finiteLoad(&l) || st.Seconds < 0 {
			return fmt.Errorf("step %d: load %v in %d s is no load a search tries", st.Step, st.Load, st.Seconds)
		}
		total += float64(st.Seconds)
		if st.From == 0 && st.To == 0 {
			continue // its seconds unknown
		}
		if st.From <= last || st.To < st.From {
			return fmt.Errorf("step %d: its seconds [%d, %d] are not after the step before's, in order", st.Step, st.From, st.To)
		}
		last = st.To
	}
	if total > secs {
		return fmt.Errorf("its steps hold %g s: more than the run's %g s allow", total, secs-searchSlackS)
	}
	return nil
}

// checkVerdict refuses an unknown verdict, or one r's figures contradict.
func checkVerdict(r *search.Result) error {
	found, failed := r.Capacity != nil, r.BreaksAt != nil
	var ok bool
	switch r.Verdict {
	case search.VerdictCapacity:
		ok = found && failed
	case search.VerdictFailsAtLowest:
		ok = !found && failed
	case search.VerdictHoldsAtMax:
		ok = found && !failed
	case search.VerdictTesterLimited, search.VerdictBudgetOut, search.VerdictNoData:
		ok = true
	default:
		return fmt.Errorf("unknown verdict %.40q", r.Verdict)
	}
	if !ok {
		return fmt.Errorf("verdict %s with capacity %s and breaking load %s", r.Verdict, load(r.Capacity), load(r.BreaksAt))
	}
	return nil
}
