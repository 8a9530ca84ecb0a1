package analyze

import (
	"cmp"
	"slices"
)

// loadCurve is the offered load (number of calls in flight) of a run.
type loadCurve struct {
	area []float64 // per quantum: ∫ calls in flight dt over the quantum, call·ns
	max  []int     // per quantum: most calls in flight at any instant
	cum  []float64 // per query time: ∫ calls in flight dt from the origin, call·ns
}

// sweepLoad computes the offered load exactly with a sweep line over the call
// intervals [Start, End): the start and end times are sorted (O(n log n)) and
// merged, ends before starts at equal times, so that a call ending at t and
// one starting at t are never in flight together. Between two consecutive
// events the count is constant; its area is split over the quanta the span
// crosses. Zero-length calls are never in flight. Calls are clipped to the
// run's span. cum answers the prefix integral of the load curve at each of
// the given query times, so that a mean load over any window is a difference
// of two prefix sums.
func sweepLoad(calls []Call, g grid, queries []int64) loadCurve {
	starts := make([]int64, len(calls))
	ends := make([]int64, len(calls))
	for i := range calls {
		starts[i] = g.clamp(calls[i].Start)
		ends[i] = g.clamp(calls[i].End)
	}
	scratch := sortInt64(starts, nil)
	sortInt64(ends, scratch)
	s := newSweeper(g, queries)
	i, j := 0, 0
	for i < len(starts) || j < len(ends) {
		if j < len(ends) && (i == len(starts) || ends[j] <= starts[i]) {
			s.advance(ends[j])
			s.inFlight--
			j++
		} else {
			s.advance(starts[i])
			s.inFlight++
			i++
		}
	}
	s.advance(g.end)
	return s.curve
}

// sweeper is the state of the sweep line.
type sweeper struct {
	g        grid
	curve    loadCurve
	t        int64   // current time
	inFlight int     // calls in flight from t on
	total    float64 // ∫ calls in flight dt from the origin to t
	queries  []int64 // query times, clamped to the run
	order    []int   // query indices by time
	next     int     // next query (index into order) to answer
}

// newSweeper prepares a sweep over grid g answering the prefix integral at
// each query time.
func newSweeper(g grid, queries []int64) *sweeper {
	s := &sweeper{g: g, t: g.origin}
	s.curve = loadCurve{
		area: make([]float64, g.n),
		max:  make([]int, g.n),
		cum:  make([]float64, len(queries)),
	}
	s.queries = make([]int64, len(queries))
	s.order = make([]int, len(queries))
	for i, q := range queries {
		s.queries[i] = g.clamp(q)
		s.order[i] = i
	}
	slices.SortFunc(s.order, func(a, b int) int {
		return cmp.Compare(s.queries[a], s.queries[b])
	})
	return s
}

// advance moves the sweep line to time e, crediting the current count over
// [t, e) to the quanta it crosses and answering the queries in [t, e].
func (s *sweeper) advance(e int64) {
	if e <= s.t {
		return
	}
	n := float64(s.inFlight)
	for s.next < len(s.order) && s.queries[s.order[s.next]] <= e {
		k := s.order[s.next]
		s.curve.cum[k] = s.total + n*float64(s.queries[k]-s.t)
		s.next++
	}
	if s.inFlight > 0 {
		s.spread(e)
		s.total += n * float64(e-s.t)
	}
	s.t = e
}

// spread credits the current count over [t, e) to the quanta it crosses.
func (s *sweeper) spread(e int64) {
	n := float64(s.inFlight)
	for t := s.t; t < e; {
		q := s.g.index(t)
		seg := min(s.g.origin+int64(q+1)*s.g.qn, e)
		s.curve.area[q] += n * float64(seg-t)
		if s.inFlight > s.curve.max[q] {
			s.curve.max[q] = s.inFlight
		}
		t = seg
	}
}
