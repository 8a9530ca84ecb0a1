package analyze

import (
	"fmt"
	"slices"
)

// The saturation verdict.
//
// The fit of saturation.go finds a plateau; the verdict says what the data
// lets the user conclude, one of:
//
//   - VerdictTooLittleData when the quanta hold fewer than verdictMinCalls
//     successful calls, or fewer than verdictMinQuanta of them are loaded
//     (offered load > 0; in an open-model run, offered arrival rate > 0):
//     no throughput is known well enough to bound the capacity.
//   - VerdictTesterLimited when more than half the loaded quanta, or more
//     than half of the plateau's quanta, are tester-bound
//     (Quantum.TesterBound): the testers, not the service, limited the load,
//     so neither a plateau nor its absence says anything of the service.
//   - VerdictSaturated when the fit finds a flat plateau while the load grew
//     (saturation.go). In an open-model run the offered load is not under
//     the experimenter's control (calls in flight grow when response times
//     grow), so the fit is of throughput against the offered arrival rate:
//     a plateau there is throughput falling behind the arrival rate while it
//     grew. The saturation load is then N* = X*·R0 (Little's law, R0 the
//     response time at the lightest offered rates), bounded by the loads
//     seen.
//   - VerdictNotSaturated otherwise: the capacity is at least the
//     throughput sustained at the highest loads tested (CapacityAtLeast):
//     the median throughput of the quanta within 5% of the highest load (in
//     an open-model run, offered rate), at least the plateauMin highest;
//     their mean when quanta hold fewer than sparseCalls calls.

// The saturation verdicts (Saturation.Verdict).
const (
	VerdictSaturated      = "saturated"
	VerdictNotSaturated   = "not_saturated"
	VerdictTesterLimited  = "tester_limited"
	VerdictTooLittleData  = "too_little_data"
	verdictMinCalls       = 20 // successful calls needed for any verdict
	verdictMinQuanta      = 5  // loaded quanta needed for any verdict
	verdictTesterBoundMax = 0.5
)

// JudgeSaturation returns the saturation verdict of the quanta; all says
// whether every quantum counts (a run without testers), else only the
// quanta in which a tester was active. Call it again once the quanta's
// TesterBound is known.
func JudgeSaturation(quanta []Quantum, all bool) Saturation {
	open := false
	var pts []loadPoint
	for _, q := range quanta {
		if q.Active == 0 && !all {
			continue
		}
		p := loadPoint{l: q.Load, x: q.Throughput, rt: q.RT.Mean, n: q.RT.N, inFlight: q.Load, bound: q.TesterBound}
		if q.Open != nil {
			open = true
			p.l = q.Open.OfferedPS
		}
		pts = append(pts, p)
	}
	markRise(pts)
	return verdict(pts, open)
}

// markRise marks the points (in time order) before the first that holds
// the highest load: the rise, whose light quanta hold light-load calls.
func markRise(pts []loadPoint) {
	top := 0
	for i, p := range pts {
		if p.l > pts[top].l {
			top = i
		}
	}
	for i := range top {
		pts[i].rise = true
	}
}

// verdict judges pts (see above); open says l is the offered arrival rate.
func verdict(pts []loadPoint, open bool) Saturation {
	loaded := slices.DeleteFunc(slices.Clone(pts), func(p loadPoint) bool { return p.l <= 0 })
	if n := calls(pts); n < verdictMinCalls || len(loaded) < verdictMinQuanta {
		s := fallback(pts)
		s.Verdict = VerdictTooLittleData
		s.Reason = fmt.Sprintf("%d successful calls, %d quanta with load; at least %d calls and %d quanta are needed",
			n, len(loaded), verdictMinCalls, verdictMinQuanta)
		return s
	}
	if why, ok := pointsTesterBound(loaded); ok {
		s := fallback(loaded)
		s.Verdict, s.Reason = VerdictTesterLimited, why+" in most loaded quanta"
		s.Evidence = boundEvidence(loaded, "quanta with load")
		return s
	}
	s, hi := fitSaturation(loaded)
	if s.Saturated {
		slices.SortFunc(loaded, cmpL)
		if why, ok := pointsTesterBound(hi); ok {
			s = fallback(loaded)
			s.Verdict, s.Reason = VerdictTesterLimited, why+" on the plateau"
			s.Evidence = boundEvidence(hi, "quanta of the plateau")
			return s
		}
		return judgedSaturated(s, loaded, hi, open)
	}
	if open {
		s = fallback(loaded) // s.Load is an offered rate
	}
	return notSaturated(s, loaded, open)
}

// judgedSaturated completes the saturated verdict s found on loaded
// (sorted by l) with plateau points hi.
func judgedSaturated(s Saturation, loaded, hi []loadPoint, open bool) Saturation {
	s.Verdict = VerdictSaturated
	unit := "load"
	if open {
		unit = "offered rate"
		s.Load = openKnee(loaded, hi, s.Throughput)
	}
	s.Evidence = fmt.Sprintf("throughput flat at %s calls/s over %d quanta while the %s grew from %s to %s",
		f1(s.Throughput), len(hi), unit, f1(hi[0].l), f1(hi[len(hi)-1].l))
	return s
}

// notSaturated completes the verdict of a fit that found no plateau in
// loaded.
func notSaturated(s Saturation, loaded []loadPoint, open bool) Saturation {
	s.Verdict, s.CapacityAtLeast = VerdictNotSaturated, topThroughput(loaded)
	what := "load"
	if open {
		what = "offered rate"
	}
	s.Evidence = fmt.Sprintf("no flat throughput while the %s grew; %s calls/s at the highest loads tested",
		what, f1(s.CapacityAtLeast))
	return s
}
