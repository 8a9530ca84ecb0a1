package forecast

import "fmt"

// AdaptiveMedian is NWS's adaptive-window median: it predicts the median
// of the last w measurements and, after each measurement, moves w by one
// toward whichever of the medians over w−1, w and w+1 measurements came
// closest to it, within [Min, Max]. A level shift shrinks the window (the
// short median follows first), a steady noisy level grows it.
type AdaptiveMedian struct {
	min, max, w int
	ring        []float64 // the last max measurements
	scratch     []float64 // sorted copy of the newest few, reused
	next, n     int
	name        string
}

// NewAdaptiveMedian returns an adaptive median whose window stays within
// [lo, hi] (at least 1 and lo), starting at lo.
func NewAdaptiveMedian(lo, hi int) *AdaptiveMedian {
	lo = max(lo, 1)
	hi = max(hi, lo)
	return &AdaptiveMedian{min: lo, max: hi, w: lo, ring: make([]float64, hi), scratch: make([]float64, 0, hi),
		name: fmt.Sprintf("amedian%d-%d", lo, hi)}
}

// Name is "amedian" and the window's bounds, e.g. "amedian3-21".
func (a *AdaptiveMedian) Name() string { return a.name }

// Predict returns the median of the last w measurements (of all while
// there are fewer).
func (a *AdaptiveMedian) Predict() (float64, bool) {
	if a.n == 0 {
		return 0, false
	}
	return a.medians(min(a.w, a.n))[1], true
}

// Observe moves the window toward the median closest to m, then adds m.
func (a *AdaptiveMedian) Observe(m Measurement) {
	if a.n > 0 {
		k := min(a.w, a.n)
		med := a.medians(k)
		best := 1
		for i, lo := range []int{k - 1, k, k + 1} {
			if lo >= 1 && lo <= a.n && lo >= a.min && lo <= a.max && absDiff(med[i], m.Value) < absDiff(med[best], m.Value) {
				best = i
			}
		}
		a.w = min(max(k+best-1, a.min), a.max)
	}
	a.ring[a.next] = m.Value
	a.next = (a.next + 1) % len(a.ring)
	a.n = min(a.n+1, len(a.ring))
}

// medians are the medians of the newest k−1, k and k+1 measurements (each
// as far as there are that many; 0 for none), by sorting the newest
// k+1 by insertion, newest first.
func (a *AdaptiveMedian) medians(k int) [3]float64 {
	var out [3]float64
	s := a.scratch[:0]
	for c := 1; c <= min(k+1, a.n); c++ {
		s = insert(s, a.ring[(a.next-c+len(a.ring))%len(a.ring)])
		if c >= k-1 {
			out[c-k+1] = sortedMedian(s)
		}
	}
	a.scratch = s
	return out
}

// sortedMedian is the median of sorted (the mean of the middle two when
// even), which is not empty.
func sortedMedian(sorted []float64) float64 {
	k := len(sorted)
	if k%2 == 1 {
		return sorted[k/2]
	}
	return (sorted[k/2-1] + sorted[k/2]) / 2
}

func absDiff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
