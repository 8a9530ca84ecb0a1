package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/diperf/diperf/internal/analyze"
)

// MinPoints is the fewest usable quanta Fit accepts.
const MinPoints = 5

// ErrTooFewPoints is returned (wrapped) by Fit when the run has too few
// usable quanta, or too little spread in load, to fit a curve.
var ErrTooFewPoints = errors.New("model: too few quanta with load to fit")

// points is the data of a fit: load and throughput per quantum, and the
// mean response time (ms) of the calls the quantum completed, and how many
// (0 when none did), and the step in which a quantum's throughput moves
// (calls/s, 0 when unknown; see residualFloor).
type points struct {
	n, x  []float64
	rt    []float64
	calls []int
	res   float64
}

// usable reports whether quantum q can enter the fit: a tester was active,
// the load was positive, the figures are finite, and the testers did not
// limit the load (a tester-bound quantum measures the testers, not the
// service).
func usable(q *analyze.Quantum) bool {
	return q.Active > 0 && q.TesterBound == "" && q.Load > 0 && !math.IsInf(q.Load, 0) &&
		!math.IsNaN(q.Throughput) && !math.IsInf(q.Throughput, 0)
}

// throughputPoints collects the usable quanta of r.
func throughputPoints(r *analyze.Result) (points, error) {
	p := points{res: resolution(r.Summary.QuantumS)}
	for i := range r.Quanta {
		if q := &r.Quanta[i]; usable(q) {
			p.n = append(p.n, q.Load)
			p.x = append(p.x, q.Throughput)
			p.rt = append(p.rt, q.RT.Mean)
			p.calls = append(p.calls, rtCalls(q))
		}
	}
	if err := p.check(); err != nil {
		return points{}, err
	}
	return p, nil
}

// rtCalls is the number of calls behind q's mean response time: 0 when
// none completed or the mean is not a usable time.
func rtCalls(q *analyze.Quantum) int {
	if q.RT.N <= 0 || !(q.RT.Mean > 0) || math.IsInf(q.RT.Mean, 0) {
		return 0
	}
	return q.RT.N
}

// check refuses data that cannot determine a curve.
func (p points) check() error {
	if len(p.n) < MinPoints {
		return fmt.Errorf("%w: %d usable, want at least %d", ErrTooFewPoints, len(p.n), MinPoints)
	}
	lo, hi := minMax(p.n)
	if hi <= lo {
		return fmt.Errorf("%w: every quantum had the same load %g", ErrTooFewPoints, lo)
	}
	if _, top := minMax(p.x); top <= 0 {
		return fmt.Errorf("%w: no call completed", ErrTooFewPoints)
	}
	return nil
}

// rss is the residual sum of squares of the USL with parameters q.
func (p points) rss(q Params) float64 {
	var s float64
	for i, n := range p.n {
		r := p.x[i] - q.Throughput(n)
		s += r * r
	}
	return s
}

// rssOf is the residual sum of squares of throughput curve c.
func (p points) rssOf(c curve) float64 {
	var s float64
	for i, n := range p.n {
		r := p.x[i] - c.Throughput(n)
		s += r * r
	}
	return s
}

// minMax returns the smallest and largest of v, which must not be empty.
func minMax(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v[1:] {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// rSquared is 1 − RSS/TSS of y; 1 when y is constant and matched exactly,
// 0 when y is constant otherwise.
func rSquared(y []float64, rss float64) float64 {
	var mean, tss float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	for _, v := range y {
		tss += (v - mean) * (v - mean)
	}
	switch {
	case tss > 0:
		return 1 - rss/tss
	case rss == 0:
		return 1
	default:
		return 0
	}
}
