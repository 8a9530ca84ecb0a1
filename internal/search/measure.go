package search

import "math"

// measure adds a second after the warm-up to every SLO's test.
func (st *Step) measure(s Second) {
	st.ok += s.OK
	st.fail += s.Failed
	st.offered += s.Offered
	n := s.histCount()
	if n > 0 {
		st.hist.Merge(s.RT.Hist)
		st.means = append(st.means, s.RT.Mean())
	}
	for i := range st.slos {
		ss := &st.slos[i]
		switch ss.slo.kind {
		case kindPercentile:
			ss.k += overCount(s.hist(), ss.slo.Bound, ss.slo.Strict)
			ss.n += n
		case kindErrorRate:
			ss.k += s.Failed
			ss.n += s.calls()
		}
		if ss.decision == Undecided {
			ss.decision = st.decide(ss)
		}
	}
}

// decide is an SLO's sequential decision on the seconds measured so far.
func (st *Step) decide(ss *sloState) string {
	if ss.slo.kind != kindMean {
		return ss.test.decide(ss.k, ss.n)
	}
	lo, hi, ok := st.meanBounds()
	switch {
	case !ok:
		return Undecided
	case lo > ss.slo.Bound || !ss.slo.Strict && lo >= ss.slo.Bound:
		return Fails
	case hi < ss.slo.Bound || !ss.slo.Strict && hi <= ss.slo.Bound:
		return Meets
	}
	return Undecided
}

// meanBounds is the one-sided t bounds of the mean response time over
// the per-second means measured, each at level α/L (β/L) for L the step's
// looks at most (its limit in seconds: Bonferroni over the looks), so
// that the step's error stays within α however often it looks. It needs
// three seconds with calls.
func (st *Step) meanBounds() (lo, hi float64, ok bool) {
	k := len(st.means)
	if k < 3 {
		return 0, 0, false
	}
	var m, v float64
	for _, x := range st.means {
		m += x
	}
	m /= float64(k)
	for _, x := range st.means {
		v += (x - m) * (x - m)
	}
	se := math.Sqrt(v / float64(k-1) / float64(k))
	looks := float64(st.limit)
	lo = m - tQuantile(st.cfg.Alpha/looks, k-1)*se
	hi = m + tQuantile(st.cfg.Beta/looks, k-1)*se
	return lo, hi, true
}

// decided finishes the step when an SLO fails or every SLO meets.
func (st *Step) decided() bool {
	all := true
	for _, ss := range st.slos {
		if ss.decision == Fails {
			return st.finish()
		}
		all = all && ss.decision == Meets
	}
	return all && st.finish()
}
