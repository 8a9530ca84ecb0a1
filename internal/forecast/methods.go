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
	w    sortedWindow
	name string
}

// NewSlidingMedian returns a median over window measurements
// (DefaultWindow when window < 1).
func NewSlidingMedian(window int) *SlidingMedian {
	if window < 1 {
		window = DefaultWindow
	}
	return &SlidingMedian{w: newSortedWindow(window), name: fmt.Sprintf("median%d", window)}
}

// Name is "median" and the window, e.g. "median5".
func (s *SlidingMedian) Name() string { return s.name }

// Predict returns the median of the window.
func (s *SlidingMedian) Predict() (float64, bool) {
	if s.w.n == 0 {
		return 0, false
	}
	return sortedMedian(s.w.sorted), true
}

// Observe adds m to the window. Values must be finite (ReadTrace refuses
// others).
func (s *SlidingMedian) Observe(m Measurement) { s.w.add(m.Value) }

// sortedWindow is the last len(ring) values of a series with a sorted
// copy: O(window) memory, no growing state.
type sortedWindow struct {
	ring, sorted []float64
	next, n      int
}

func newSortedWindow(size int) sortedWindow {
	return sortedWindow{ring: make([]float64, size), sorted: make([]float64, 0, size)}
}

// add replaces the oldest value of a full window with v, keeping the
// sorted copy sorted by one deletion and one insertion (no allocation).
func (w *sortedWindow) add(v float64) {
	if w.n == len(w.ring) {
		w.sorted = remove(w.sorted, w.ring[w.next])
	} else {
		w.n++
	}
	w.ring[w.next] = v
	w.next = (w.next + 1) % len(w.ring)
	w.sorted = insert(w.sorted, v)
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
