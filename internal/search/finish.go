package search

import (
	"fmt"
	"math"

	"github.com/diperf/diperf/internal/jsonnum"
)

// testerWhy starts a tester-limited step's why.
const testerWhy = "the testers were the limit: "

// finish decides the step and writes its record; it reports true.
func (st *Step) finish() bool {
	r := &StepRecord{Step: st.index, Load: st.load, From: st.from, To: st.to, Seconds: st.seconds, RestS: st.restS, WarmupS: st.warm,
		Settled: !st.warming && st.warm < st.maxWarm, Refused: st.refused,
		Calls: st.all, Measured: st.ok + st.fail, Decision: Meets, Why: "every objective met"}
	if m := st.measured(); m > 0 && !st.warming {
		r.Throughput = float64(st.ok) / float64(m)
	}
	for i := range st.slos {
		sr := st.sloRecord(&st.slos[i])
		r.SLOs = append(r.SLOs, sr)
		if sr.Decision == Fails && (r.Decision == Meets || r.Weak && !sr.Weak) {
			r.Decision, r.Weak, r.Binding, r.Why = Fails, sr.Weak, sr.SLO, sr.SLO+": "+sr.Why
		}
		if sr.Weak && r.Decision == Meets {
			r.Weak, r.Why = true, "every objective met, some by the point estimate only"
		}
	}
	if r.Decision == Meets {
		if why := st.fellBehind(); why != "" {
			r.Decision, r.Weak, r.Binding, r.Why = Fails, false, KeepsUp, KeepsUp+": "+why
		}
	}
	if r.Measured == 0 {
		r.Decision, r.Weak, r.Binding = Unmeasured, false, ""
		r.Why = fmt.Sprintf("no call measured in %d s (%d refused, %d warm-up, %d rest)", st.seconds, st.refused, st.warm, st.restS)
	}
	if st.bound != "" {
		r.Decision, r.Weak, r.Binding = TesterLimited, false, ""
		r.Why = testerWhy + st.bound
	}
	st.rec = r
	return true
}

// Record is the step's record once it is decided, else nil.
func (st *Step) Record() *StepRecord { return st.rec }

// sloRecord is one SLO's statistic, interval and decision; an SLO still
// undecided is decided by its point estimate, marked weak.
func (st *Step) sloRecord(ss *sloState) SLORecord {
	sr := SLORecord{SLO: ss.slo.Text, Objective: ss.slo.Bound, Over: ss.k, Of: ss.n, Decision: ss.decision}
	var v, lo, hi float64
	switch ss.slo.kind {
	case kindPercentile:
		v, lo, hi = percentileInterval(st.hist, ss.slo.Rank)
		sr.Why = st.binomialWhy(ss, fmt.Sprintf("over %g ms", ss.slo.Bound))
	case kindErrorRate:
		v, lo, hi = math.NaN(), math.NaN(), math.NaN()
		if ss.n > 0 {
			l, h := wilson(ss.k, ss.n)
			v, lo, hi = 100*float64(ss.k)/float64(ss.n), 100*l, 100*h
		}
		sr.Why = st.binomialWhy(ss, "failed")
	default:
		v, lo, hi = st.meanInterval()
		sr.Why = fmt.Sprintf("mean %.3g ms (95%% %.3g–%.3g) over %d s", v, lo, hi, len(st.means))
	}
	sr.Value, sr.Low, sr.High = jsonnum.Ptr(v), jsonnum.Ptr(lo), jsonnum.Ptr(hi)
	if sr.Decision == Undecided {
		sr.Decision, sr.Weak = st.pointDecision(ss, v), true
		sr.Why += fmt.Sprintf("; undecided in %d s measured, by the point estimate (weak)", st.measured())
	}
	sr.Why += ": " + sr.Decision
	return sr
}

// binomialWhy is a binomial SLO's count, share and objective in words.
func (st *Step) binomialWhy(ss *sloState, what string) string {
	lo, hi := wilson(ss.k, ss.n)
	p := math.NaN()
	if ss.n > 0 {
		p = float64(ss.k) / float64(ss.n)
	}
	return fmt.Sprintf("%d of %d calls %s (%.3g%%, 95%% %.3g–%.3g%%), %.3g%% allowed, SPRT α=β=%g",
		ss.k, ss.n, what, 100*p, 100*lo, 100*hi, 100*ss.slo.share(), st.cfg.Alpha)
}

// meanInterval is the mean of the per-second means with its two-sided
// 95% t interval (NaN without a second of calls; the mean alone with one).
func (st *Step) meanInterval() (v, lo, hi float64) {
	k := len(st.means)
	if k == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	for _, x := range st.means {
		v += x
	}
	v /= float64(k)
	if k == 1 {
		return v, v, v
	}
	var ss float64
	for _, x := range st.means {
		ss += (x - v) * (x - v)
	}
	h := tQuantile(0.025, k-1) * math.Sqrt(ss/float64(k-1)/float64(k))
	return v, v - h, v + h
}

// pointDecision decides an SLO by its point estimate v (the share over
// for a binomial SLO): an SLO with no call measured fails.
func (st *Step) pointDecision(ss *sloState, v float64) string {
	if ss.slo.kind != kindMean {
		sh := float64(ss.k) / float64(max(ss.n, 1))
		// pNN's strictness is in the count over X; error_rate's is here
		if ss.n > 0 && (sh < ss.slo.share() || sh == ss.slo.share() && !(ss.slo.kind == kindErrorRate && ss.slo.Strict)) {
			return Meets
		}
		return Fails
	}
	if !math.IsNaN(v) && (v < ss.slo.Bound || !ss.slo.Strict && v == ss.slo.Bound) {
		return Meets
	}
	return Fails
}

// KeepsUp is the check every open-model step passes besides its SLOs:
// the calls that ended in its measured seconds are the calls offered in
// them, but for chance. A service that falls behind its load builds a
// queue without end, and fails its objectives once the queue is long
// enough, later than a short step lasts: a step that met every SLO while
// the service fell behind fails here, with this as its binding check.
const KeepsUp = "the service keeps up with the offered load"

// fellBehind says how the service fell behind the load offered over the
// measured seconds ("" when it kept up, or the load is not a rate): more
// calls missing than chance allows, 1% of the offered calls and 2 calls
// for the seconds' edges, plus 3√n under Poisson arrivals. In a steady
// state the calls that end in a window are those that arrive in it, but
// for the change of the calls in flight across it.
func (st *Step) fellBehind() string {
	if st.offered <= 0 || st.warming {
		return ""
	}
	ended := float64(st.ok + st.fail)
	allow := 2 + 0.01*st.offered
	if st.cfg.Poisson {
		allow += 3 * math.Sqrt(st.offered)
	}
	if short := st.offered - ended; short > allow {
		return fmt.Sprintf("%.0f calls ended in %d s measured of %.0f offered (%.1f%% short; chance allows %.0f)",
			ended, st.measured(), st.offered, 100*short/st.offered, allow)
	}
	return ""
}
