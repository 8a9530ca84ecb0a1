package search

import "math"

// Verdicts of a search.
const (
	VerdictCapacity      = "capacity"        // the capacity is bracketed within the precision
	VerdictFailsAtLowest = "fails-at-lowest" // the first (lowest) load failed already
	VerdictHoldsAtMax    = "holds-at-max"    // the highest load allowed met every SLO: capacity ≥ max-rate
	VerdictTesterLimited = "tester-limited"  // the testers became the limit before the service did
	VerdictBudgetOut     = "budget-out"      // the time budget ran out: the best bracket so far
	VerdictNoData        = "no-data"         // a step's seconds could not be measured (all refused, or no call)
)

// Searcher chooses the loads: from Start it grows them by Growth until
// one fails (the bracket), then probes inside the bracket, seeded by an
// estimate of the capacity from the steps so far, until (hi − lo)/lo ≤
// Precision, the budget is out, or a verdict stops it early.
type Searcher struct {
	cfg     Config
	steps   []StepRecord
	lo, hi  float64 // highest load that met, lowest that failed; 0: none yet
	binding string  // the SLO that failed at hi
	elapsed int     // seconds of the steps so far
	misses  int     // probes whose outcome the estimate did not foresee
	verdict string
	xmax    float64 // the highest throughput a saturated step sustained (relaxWarmup)
}

// New is a search of cfg (its zero fields take the defaults).
func New(cfg Config) (*Searcher, error) {
	c, err := cfg.Defaults()
	if err != nil {
		return nil, err
	}
	return &Searcher{cfg: c}, nil
}

// First is the first load: Config.Start.
func (s *Searcher) First() float64 { return s.whole(s.cfg.Start) }

// NewStep is the step that holds load, its seconds bounded by the step
// limit, the longest warm-up and what is left of the budget.
func (s *Searcher) NewStep(load float64) *Step {
	st := newStep(&s.cfg, len(s.steps)+1, load, secs(s.cfg.StepLimit))
	st.cap = secs(s.cfg.StepLimit) + 2*secs(s.cfg.MaxWarmup)
	if w := s.relaxWarmup(load); w > st.minWarm {
		st.minWarm, st.maxWarm = w, max(st.maxWarm, w)
		st.cap += w
	}
	if n := len(s.steps); n > 0 && s.steps[n-1].Decision == Fails {
		st.resting, st.after = true, s.steps[n-1].Load
	}
	if s.cfg.Budget > 0 {
		st.left = max(1, secs(s.cfg.Budget)-s.elapsed)
		st.cap = min(st.cap, st.left)
	}
	return st
}

// Next takes the record of the step just held and returns the next load,
// or done when the search has its verdict (Result).
func (s *Searcher) Next(r *StepRecord) (next float64, done bool) {
	if s.verdict != "" || r == nil {
		return 0, true
	}
	s.steps = append(s.steps, *r)
	s.elapsed += r.Seconds
	s.learn(r)
	switch {
	case r.Decision == TesterLimited:
		return s.stop(VerdictTesterLimited)
	case r.Decision == Unmeasured && s.budgetOut():
		return s.stop(VerdictBudgetOut)
	case r.Decision == Unmeasured:
		return s.stop(VerdictNoData)
	case s.hi > 0 && s.lo == 0:
		return s.stop(VerdictFailsAtLowest)
	case s.hi > 0 && (s.hi <= s.lo*(1+s.cfg.Precision) || s.cfg.Whole && s.hi-s.lo <= 1):
		return s.stop(VerdictCapacity)
	case s.hi == 0 && s.lo >= s.maxLoad():
		return s.stop(VerdictHoldsAtMax)
	case s.budgetOut():
		return s.stop(VerdictBudgetOut)
	}
	if s.hi == 0 {
		return s.whole(s.grow()), false
	}
	return s.whole(s.probe()), false
}

// whole is load x as the next load of a search of whole loads
// (Config.Whole): rounded, at least 1, above lo and below hi (the
// bracket holds a whole load between them, or it is closed), at most the
// highest load; x itself otherwise.
func (s *Searcher) whole(x float64) float64 {
	if !s.cfg.Whole {
		return x
	}
	r := max(math.Round(x), 1, s.lo+1)
	if s.hi > 0 {
		r = min(r, s.hi-1)
	}
	return min(r, max(math.Floor(s.maxLoad()), 1))
}

// learn moves the bracket by the step's decision, and counts a probe that
// went against the estimate it was placed by.
func (s *Searcher) learn(r *StepRecord) {
	if r.Decision == Fails && r.Throughput < (1-s.cfg.Settle)*r.Load {
		s.xmax = max(s.xmax, r.Throughput) // saturated: no more is served
	}
	e, seeded := s.estimate()
	switch {
	case r.Decision == Meets && (s.hi == 0 || r.Load < s.hi):
		s.lo = math.Max(s.lo, r.Load)
		if seeded && r.Load > e {
			s.misses++
		}
	case r.Decision == Fails && (s.hi == 0 || r.Load < s.hi):
		s.hi, s.binding = r.Load, r.Binding
		if seeded && r.Load < e {
			s.misses++
		}
	}
}

// grow is the next load before any failed: Growth times the last, at most
// maxLoad.
func (s *Searcher) grow() float64 { return math.Min(s.lo*s.cfg.Growth, s.maxLoad()) }

// maxLoad is the highest load tried: MaxRate, or 1e9 without one.
func (s *Searcher) maxLoad() float64 {
	if s.cfg.MaxRate > 0 {
		return s.cfg.MaxRate
	}
	return 1e9
}

// budgetOut reports whether what is left of the budget cannot hold a
// step: the shortest warm-up and three seconds.
func (s *Searcher) budgetOut() bool {
	return s.cfg.Budget > 0 && secs(s.cfg.Budget)-s.elapsed < secs(s.cfg.MinWarmup)+3
}

// stop ends the search with verdict v.
func (s *Searcher) stop(v string) (float64, bool) {
	s.verdict = v
	return 0, true
}

// relaxWarmup is the warm-up, in seconds, that a load under Poisson
// arrivals needs for its queue to reach its steady state from the empty
// queue a rest leaves: twice the relaxation time of a queue of capacity
// X at load λ, 1/(X·(1 − √(λ/X))²) (heavy traffic's time scale, in which
// a queue near its capacity forgets its start), X the highest throughput
// a step sustained. 0 without Poisson arrivals (a uniform stream's queue
// below capacity is empty), or before a step saturated (X unknown); at
// most maxRelax, and maxRelax at or over X (the queue then never settles,
// and the longest warm-up shows most of its growth).
func (s *Searcher) relaxWarmup(load float64) int {
	if !s.cfg.Poisson || s.xmax <= 0 {
		return 0
	}
	rho := load / s.xmax
	if rho >= 1 {
		return maxRelax
	}
	tau := 1 / (s.xmax * (1 - math.Sqrt(rho)) * (1 - math.Sqrt(rho)))
	return min(int(math.Ceil(2*tau)), maxRelax)
}

// maxRelax bounds relaxWarmup, s.
const maxRelax = 30
