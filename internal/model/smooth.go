package model

import "math"

// MovingAverage returns the centered moving average of y: element i is the
// mean of the non-NaN values among y[i−h..i+h], h = window/2, the window
// shrinking at the ends (so an even window acts as window+1). It is NaN
// where the window holds no value. A window below 2 returns a copy of y.
func MovingAverage(y []float64, window int) []float64 {
	h := max(window, 1) / 2
	out := make([]float64, len(y))
	for i := range y {
		out[i] = nanMean(y[max(i-h, 0):min(i+h+1, len(y))])
	}
	return out
}

// nanMean is the mean of the non-NaN values of v, NaN when there are none.
func nanMean(v []float64) float64 {
	var sum float64
	var n int
	for _, x := range v {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
