package forecast

import "math"

// errorWindows are the lengths, in forecasts, of the windows over which
// the adaptive forecaster compares its members' errors (NWS's windowed
// MAE and MSE); 0 is every forecast so far (NWS's cumulative error). The
// short windows let a member that fits a new level win within a few
// measurements; the long ones keep a steady winner through the noise.
var errorWindows = [...]int{2, 5, 10, maxErrorWindow, 0}

const (
	// maxErrorWindow is the longest finite window: the ring's length.
	maxErrorWindow = 30
	// recentWindow is maxErrorWindow's index in errorWindows: the
	// window over which the selectors are compared and a forecast's
	// expected error is taken.
	recentWindow = 3
	// allWindow is the index in errorWindows of every forecast so far.
	allWindow = 4
)

// recentErrors are a forecaster's absolute and squared errors over each
// of errorWindows, from a ring of the last maxErrorWindow: O(1) per
// forecast scored, no growing state. The window sums are updated as
// errors enter and leave, and summed again from the ring whenever it
// wraps, so that the rounding a large error leaves in them does not
// linger.
type recentErrors struct {
	abs, sq       [maxErrorWindow]float64
	next, n       int
	sumAbs, sumSq [len(errorWindows)]float64
	all           Errors
}

// add scores one forecast against the measured value.
func (r *recentErrors) add(forecast, measured float64) {
	d := forecast - measured
	a, s := math.Abs(d), d*d
	for i, w := range errorWindows {
		if w == 0 {
			continue
		}
		if r.n >= w {
			j := (r.next - w + maxErrorWindow) % maxErrorWindow
			r.sumAbs[i] -= r.abs[j]
			r.sumSq[i] -= r.sq[j]
		}
		r.sumAbs[i] += a
		r.sumSq[i] += s
	}
	r.abs[r.next], r.sq[r.next] = a, s
	r.next = (r.next + 1) % maxErrorWindow
	r.n++
	r.all.Add(forecast, measured)
	if r.next == 0 {
		r.resum()
	}
}

// resum sums every window again from the ring.
func (r *recentErrors) resum() {
	for i, w := range errorWindows {
		if w == 0 {
			continue
		}
		r.sumAbs[i], r.sumSq[i] = 0, 0
		for k := 1; k <= min(w, r.n); k++ {
			j := (r.next - k + maxErrorWindow) % maxErrorWindow
			r.sumAbs[i] += r.abs[j]
			r.sumSq[i] += r.sq[j]
		}
	}
}

// scored is how many forecasts window i is over.
func (r *recentErrors) scored(i int) int {
	if w := errorWindows[i]; w > 0 {
		return min(r.n, w)
	}
	return r.n
}

// score is the mean absolute (ByMAE) or squared (ByMSE) error over window
// i, +Inf before any forecast was scored (so that a scored forecaster is
// preferred).
func (r *recentErrors) score(i int, by Criterion) float64 {
	switch {
	case r.n == 0:
		return math.Inf(1)
	case errorWindows[i] == 0 && by == ByMSE:
		return r.all.MSE()
	case errorWindows[i] == 0:
		return r.all.MAE()
	case by == ByMSE:
		return max(0, r.sumSq[i]) / float64(r.scored(i))
	}
	return max(0, r.sumAbs[i]) / float64(r.scored(i))
}
