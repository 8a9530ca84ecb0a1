package search

import (
	"fmt"
	"math"
)

// Bounds of what a search.json read back may say.
const (
	// MaxLoad is the highest load a search tries (Config.MaxRate's bound).
	MaxLoad = 1e9
	// MaxText is the most bytes of a result's why or binding.
	MaxText = 4096
	// slackS is the seconds a search may hold beyond the run's analysed
	// span: a second is final up to 3 s after it ends, a rest of at most
	// 10 s (no load) may end it, and its first and last seconds may hold
	// no call.
	slackS = 15
)

// Check refuses what r, read back from a file and not trusted, cannot be
// for a run of runS seconds: a load that is not a number above 0 and at
// most MaxLoad, an interval whose ends are not the capacity and the
// breaking load or whose low end is above its high one, a precision that
// is not a share, more steps or seconds than the run allows, a why or
// binding of more than MaxText bytes, steps out of order, or a verdict its
// figures contradict. The error says which.
func (r *Result) Check(runS float64) error {
	lo, hi := r.Interval[0], r.Interval[1]
	secs := math.Ceil(max(runS, 0)) + slackS
	switch {
	case !plausibleLoad(r.Capacity) || !plausibleLoad(lo) || !plausibleLoad(hi) || !plausibleLoad(r.BreaksAt):
		return fmt.Errorf("a load is not a number above 0 and at most %g", MaxLoad)
	case !sameLoad(r.Capacity, lo) || !sameLoad(r.BreaksAt, hi):
		return fmt.Errorf("the capacity and breaking load are not the interval's ends")
	case lo != nil && hi != nil && *lo > *hi:
		return fmt.Errorf("the interval [%g, %g] has its low end above its high one", *lo, *hi)
	case math.IsNaN(r.Precision) || r.Precision <= 0 || r.Precision > 1:
		return fmt.Errorf("the precision, %v, is not a share in (0, 1]", r.Precision)
	case float64(len(r.Steps)) > secs || r.Seconds < 0 || float64(r.Seconds) > secs:
		return fmt.Errorf("%d steps in %d s: more than the run's %g s allow", len(r.Steps), r.Seconds, runS)
	case len(r.Why) > MaxText || len(r.Binding) > MaxText:
		return fmt.Errorf("its why or binding is longer than %d bytes", MaxText)
	}
	if err := checkSteps(r.Steps, secs); err != nil {
		return err
	}
	return r.CheckVerdict()
}

// sameLoad reports whether a and b are both absent or equal.
func sameLoad(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// checkSteps refuses a step of a load that is not a number above 0
// and at most 10⁹, or steps holding more seconds in all than secs.
func checkSteps(steps []StepRecord, secs float64) error {
	total, last := 0.0, int64(0)
	for _, st := range steps {
		if l := st.Load; !plausibleLoad(&l) || st.Seconds < 0 {
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
		return fmt.Errorf("its steps hold %g s: more than the run's %g s allow", total, secs-slackS)
	}
	return nil
}

// CheckVerdict refuses an unknown verdict, or one r's figures contradict.
func (r *Result) CheckVerdict() error {
	found, failed := r.Capacity != nil, r.BreaksAt != nil
	var ok bool
	switch r.Verdict {
	case VerdictCapacity:
		ok = found && failed
	case VerdictFailsAtLowest:
		ok = !found && failed
	case VerdictHoldsAtMax:
		ok = found && !failed
	case VerdictTesterLimited, VerdictBudgetOut, VerdictNoData:
		ok = true
	default:
		return fmt.Errorf("unknown verdict %.40q", r.Verdict)
	}
	if !ok {
		return fmt.Errorf("verdict %s with capacity %s and breaking load %s", r.Verdict, loadText(r.Capacity), loadText(r.BreaksAt))
	}
	return nil
}

// plausibleLoad reports whether v is absent or a load a search can have
// tried: above 0, at most MaxLoad.
func plausibleLoad(v *float64) bool {
	return v == nil || !math.IsNaN(*v) && *v > 0 && *v <= MaxLoad
}

// loadText is a load in an error, "-" when there is none.
func loadText(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g", *v)
}
