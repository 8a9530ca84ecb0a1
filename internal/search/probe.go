package search

import "math"

// probe is the next load inside the bracket (lo, hi). With an estimate e
// of the capacity it is e·(1 − Precision/3), clamped into
// [lo·(1+Precision), hi/(1+Precision)]: when e is right, this load meets
// and the next, lo·(1+Precision), fails, and the bracket is closed in two
// steps; and a clamped probe closes it at once on one of its outcomes.
// Without an estimate, or after two probes the estimate did not foresee,
// it bisects (the geometric middle, the loads being a ratio scale). When
// the bracket is narrower than (1+Precision)², the middle closes it.
func (s *Searcher) probe() float64 {
	p := s.cfg.Precision
	lo, hi := s.lo*(1+p), s.hi/(1+p)
	if lo >= hi {
		return math.Sqrt(s.lo * s.hi)
	}
	e, ok := s.estimate()
	if !ok || s.misses >= 2 {
		e = math.Sqrt(s.lo*s.hi) * (1 + p/3)
	}
	return math.Min(math.Max(e*(1-p/3), lo), hi)
}

// estimate is the capacity the steps so far point to, inside the bracket:
// (1) the lowest throughput of a failing step that fell short of its load
// by more than Settle (the service saturated: no higher rate is
// sustained, the asymptotic bound of throughput against load), or, when
// the step at hi did not saturate, the lower of that and (2) the load at
// which the binding SLO's statistic, interpolated between the bracket's
// two steps linearly in its logarithm, reaches its objective. Past
// saturation the statistic jumps (a queue that grows without bound), and
// an interpolation across the jump says nothing.
func (s *Searcher) estimate() (float64, bool) {
	if s.hi == 0 || s.lo == 0 {
		return 0, false
	}
	e, ok := math.Inf(1), false
	var atLo, atHi *StepRecord
	for i := range s.steps {
		r := &s.steps[i]
		if r.Decision == Fails && saturated(r, s.cfg.Settle) {
			e, ok = math.Min(e, r.Throughput), true
		}
		switch r.Load {
		case s.lo:
			atLo = r
		case s.hi:
			atHi = r
		}
	}
	if x, found := s.interpolate(atLo, atHi); found && !saturated(atHi, s.cfg.Settle) {
		e, ok = math.Min(e, x), true
	}
	return math.Min(math.Max(e, s.lo), s.hi), ok
}

// interpolate is the load at which the binding SLO's statistic crosses
// its objective, log-linear between the steps a (met) and b (failed).
func (s *Searcher) interpolate(a, b *StepRecord) (float64, bool) {
	if a == nil || b == nil {
		return 0, false
	}
	ra, rb := ratio(a, s.binding), ratio(b, s.binding)
	if !(ra > 0 && ra < 1 && rb > 1) || math.IsInf(rb, 0) {
		return 0, false
	}
	f := -math.Log(ra) / (math.Log(rb) - math.Log(ra))
	return a.Load + f*(b.Load-a.Load), true
}

// ratio is an SLO's statistic over its objective in step r (NaN when
// unknown).
func ratio(r *StepRecord, slo string) float64 {
	for _, sr := range r.SLOs {
		if sr.SLO == slo && sr.Value != nil && sr.Objective > 0 {
			return *sr.Value / sr.Objective
		}
	}
	return math.NaN()
}

// saturated reports whether step r's throughput fell short of its load by
// more than settle.
func saturated(r *StepRecord, settle float64) bool {
	return r != nil && r.Throughput > 0 && r.Throughput < (1-settle)*r.Load
}
