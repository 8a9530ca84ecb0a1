package forecast

import "math"

const (
	// shiftWindow is how many of the latest measurements a new one is
	// compared with to tell a shift.
	shiftWindow = 10
	// shiftSigmas is how far, in robust standard deviations of those
	// measurements, a new one must lie from their median to be a shift:
	// far beyond noise (a Gaussian reading lies so far once in 16,000),
	// so that readings alternating between two strata, each within a few
	// deviations of the window's spread, are not shifts.
	shiftSigmas = 4
)

// shiftDetector tells whether a measurement broke from the latest ones:
// further than shiftSigmas robust standard deviations (the interquartile
// range / 1.349) from their median. It cannot tell a level shift from a
// one-off spike; the adaptive forecaster learns from its errors after
// past breaks which forecaster to trust after the next one. Fixed memory:
// a sorted window of shiftWindow values.
type shiftDetector struct {
	recent sortedWindow
}

func newShiftDetector() shiftDetector {
	return shiftDetector{recent: newSortedWindow(shiftWindow)}
}

// observe reports whether v broke from the latest measurements (false
// while there are fewer than 4 of them), then adds it to them.
func (d *shiftDetector) observe(v float64) bool {
	broke := false
	if s := d.recent.sorted; len(s) >= 4 {
		k := len(s)
		sigma := (s[3*k/4] - s[k/4]) / 1.349
		broke = math.Abs(v-sortedMedian(s)) > shiftSigmas*sigma
	}
	d.recent.add(v)
	return broke
}
