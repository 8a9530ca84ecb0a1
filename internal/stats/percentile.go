package stats

import "cmp"

// quantileIndex returns the 0-based index of the num/den quantile of n
// sorted values by nearest rank: rank ⌈num·n/den⌉, at least 1 and at most
// n. Integer arithmetic keeps the rank exact.
func quantileIndex(n, num, den int) int {
	rank := (num*n + den - 1) / den
	return min(max(rank, 1), n) - 1
}

// PercentileIndex returns the 0-based index of the pct-th percentile of n
// sorted values by the nearest-rank method.
func PercentileIndex(n, pct int) int {
	return quantileIndex(n, pct, 100)
}

// MedianIndex returns the 0-based index of the nearest-rank median of n
// sorted values: the lower middle one for an even n.
func MedianIndex(n int) int {
	return PercentileIndex(n, 50)
}

// Percentile returns the pct-th percentile of ascending values by the
// nearest-rank method; the zero value for none.
func Percentile[T cmp.Ordered](sorted []T, pct int) T {
	if len(sorted) == 0 {
		var zero T
		return zero
	}
	return sorted[PercentileIndex(len(sorted), pct)]
}

// Median returns the nearest-rank median of values, in any order, without
// sorting them (values is not modified); 0 for none.
func Median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	x := make([]float64, len(values))
	copy(x, values)
	return SelectK(x, MedianIndex(len(x)))
}
