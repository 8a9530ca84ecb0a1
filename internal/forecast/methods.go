package forecast

import (
	"fmt"
	"strconv"
)

// Defaults of the forecasters.
const (
	// DefaultWeight is the exponential average's weight on the newest
	// measurement (Gloperf §4).
	DefaultWeight = 0.35
	// DefaultWindow is the sliding median's window, in measurements.
	DefaultWindow = 5
)

// LastValue predicts that the next measurement equals the last one.
type LastValue struct {
	last float64
	seen bool
}

// Name is "last".
func (*LastValue) Name() string { return "last" }

// Predict returns the last measurement.
func (l *LastValue) Predict() (float64, bool) { return l.last, l.seen }

// Observe remembers m.
func (l *LastValue) Observe(m Measurement) { l.last, l.seen = m.Value, true }

// RunningMean predicts the mean of every measurement so far.
type RunningMean struct {
	n    int
	mean float64
}

// Name is "mean".
func (*RunningMean) Name() string { return "mean" }

// Predict returns the mean so far.
func (r *RunningMean) Predict() (float64, bool) { return r.mean, r.n > 0 }

// Observe adds m to the mean (Welford's update: no growing sum).
func (r *RunningMean) Observe(m Measurement) {
	r.n++
	r.mean += (m.Value - r.mean) / float64(r.n)
}

// ExpAverage predicts an exponentially weighted average: the first
// measurement, then weight × newest + (1 − weight) × previous average.
type ExpAverage struct {
	Weight float64 // in (0, 1]; DefaultWeight when zero
	avg    float64
	seen   bool
	name   string
}

// Name is "exp" and the weight, e.g. "exp0.35" (made once: forecasts
// carry it without allocating).
func (e *ExpAverage) Name() string {
	if e.name == "" {
		e.name = "exp" + strconv.FormatFloat(e.weight(), 'g', -1, 64)
	}
	return e.name
}

func (e *ExpAverage) weight() float64 {
	if e.Weight == 0 {
		return DefaultWeight
	}
	return e.Weight
}

// Predict returns the average.
func (e *ExpAverage) Predict() (float64, bool) { return e.avg, e.seen }

// Observe folds m into the average.
func (e *ExpAverage) Observe(m Measurement) {
	if !e.seen {
		e.avg, e.seen = m.Value, true
		return
	}
	w := e.weight()
	e.avg = w*m.Value + (1-w)*e.avg
}

// SlidingMedian predicts the median of the last Window measurements (of
// all of them while there are fewer; the mean of the middle two when even).
type SlidingMedian struct {
	ring, sorted []float64
	next, n      int
	name         string
}

// NewSlidingMedian returns a median over window measurements
// (DefaultWindow when window < 1).
func NewSlidingMedian(window int) *SlidingMedian {
	if window < 1 {
		window = DefaultWindow
	}
	return &SlidingMedian{ring: make([]float64, window), sorted: make([]float64, 0, window),
		name: fmt.Sprintf("median%d", window)}
}

// Name is "median" and the window, e.g. "median5".
func (s *SlidingMedian) Name() string { return s.name }

// Predict returns the median of the window.
func (s *SlidingMedian) Predict() (float64, bool) {
	if s.n == 0 {
		return 0, false
	}
	k := len(s.sorted)
	if k%2 == 1 {
		return s.sorted[k/2], true
	}
	return (s.sorted[k/2-1] + s.sorted[k/2]) / 2, true
}

// Observe replaces the oldest value of a full window with m, keeping the
// sorted copy sorted by one deletion and one insertion (no allocation).
// Values must be finite (ReadTrace refuses others).
func (s *SlidingMedian) Observe(m Measurement) {
	if s.n == len(s.ring) {
		s.sorted = remove(s.sorted, s.ring[s.next])
	} else {
		s.n++
	}
	s.ring[s.next] = m.Value
	s.next = (s.next + 1) % len(s.ring)
	s.sorted = insert(s.sorted, m.Value)
}

// remove deletes one v from sorted.
func remove(sorted []float64, v float64) []float64 {
	for i, x := range sorted {
		if x == v {
			return append(sorted[:i], sorted[i+1:]...)
		}
	}
	return sorted
}

// insert adds v to sorted, which has room for it.
func insert(sorted []float64, v float64) []float64 {
	i := len(sorted)
	sorted = append(sorted, v)
	for i > 0 && sorted[i-1] > v {
		sorted[i] = sorted[i-1]
		i--
	}
	sorted[i] = v
	return sorted
}
