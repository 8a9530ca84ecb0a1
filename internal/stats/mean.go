package stats

import "math"

// Mean returns the arithmetic mean of values; 0 for none.
func Mean[T int64 | float64](values []T) float64 {
	if len(values) == 0 {
		return 0
	}
	var sum float64
	for _, v := range values {
		sum += float64(v)
	}
	return sum / float64(len(values))
}

// MeanStdDev returns the mean and the population standard deviation
// (divided by n, not n-1) of values, computed in two passes for accuracy;
// 0, 0 for none.
func MeanStdDev[T int64 | float64](values []T) (mean, stddev float64) {
	if len(values) == 0 {
		return 0, 0
	}
	mean = Mean(values)
	var ss float64
	for _, v := range values {
		d := float64(v) - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss / float64(len(values)))
}
