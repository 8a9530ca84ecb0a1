package analyze

// grid maps global times onto the quanta of a run: quantum q covers the
// half-open interval [origin+q·qn, origin+(q+1)·qn).
type grid struct {
	origin int64 // global Unix ns of the start of quantum 0
	qn     int64 // quantum length, ns
	end    int64 // last instant of the run, global Unix ns
	n      int   // number of quanta
}

// newGrid builds the grid covering [origin, end] with quanta of qn ns.
func newGrid(origin, end, qn int64) grid {
	n := int((end - origin + qn - 1) / qn)
	if n < 1 {
		n = 1
	}
	return grid{origin: origin, qn: qn, end: end, n: n}
}

// index returns the quantum holding instant t, clamped to the grid; the very
// last instant of the run belongs to the last quantum.
func (g grid) index(t int64) int {
	if t <= g.origin {
		return 0
	}
	q := int((t - g.origin) / g.qn)
	if q >= g.n {
		q = g.n - 1
	}
	return q
}

// lastIndex returns the last quantum that the interval [start, end] reaches
// with positive length (the quantum of start when the interval is empty).
func (g grid) lastIndex(start, end int64) int {
	if end > start {
		return g.index(end - 1)
	}
	return g.index(start)
}

// seconds converts a global time to seconds since the origin.
func (g grid) seconds(t int64) float64 {
	return float64(t-g.origin) / 1e9
}

// clamp limits t to the run's span [origin, end].
func (g grid) clamp(t int64) int64 {
	return min(max(t, g.origin), g.end)
}
