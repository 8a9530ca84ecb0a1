package compare

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// medianIndex returns the 0-based index of the nearest-rank median of n
// sorted values: the lower middle one for an even n, as the analyzer does.
func medianIndex(n int) int {
	return percentileIndex(n, 50)
}

// percentileIndex returns the 0-based index of the pct-th percentile of n
// sorted values by the nearest-rank method (rank ⌈pct·n/100⌉, at least 1).
func percentileIndex(n, pct int) int {
	rank := (pct*n + 99) / 100
	return min(max(rank, 1), n) - 1
}

// nearestRank returns the pct-th percentile of ascending values, 0 for none.
func nearestRank(sorted []float64, pct int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[percentileIndex(len(sorted), pct)]
}

// median returns the nearest-rank median of values, 0 for none; values is
// not modified.
func median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	return selectK(slices.Clone(values), medianIndex(len(values)))
}

// mean returns the arithmetic mean of values, 0 for none.
func mean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}

// sortedCopy returns values sorted ascending, leaving values as they are.
func sortedCopy(values []float64) []float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	return s
}

// selectK returns the k-th smallest (0-based) of x, reordering x. It is a
// quickselect with a median-of-three pivot and a three-way partition, so
// that many equal values (per-quantum throughputs are counts) cost nothing.
func selectK[T cmp.Ordered](x []T, k int) T {
	lo, hi := 0, len(x)-1
	for lo < hi {
		p := medianOf3(x[lo], x[lo+(hi-lo)/2], x[hi])
		lt, gt := partition3(x, lo, hi, p)
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return p
		}
	}
	return x[k]
}

// partition3 reorders x[lo..hi] into values < p, values == p and values
// > p, and returns the bounds [lt, gt] of the middle part.
func partition3[T cmp.Ordered](x []T, lo, hi int, p T) (lt, gt int) {
	lt, gt = lo, hi
	for i := lo; i <= gt; {
		switch v := x[i]; {
		case v < p:
			x[lt], x[i] = v, x[lt]
			lt++
			i++
		case v > p:
			x[gt], x[i] = v, x[gt]
			gt--
		default:
			i++
		}
	}
	return lt, gt
}

// medianOf3 returns the middle one of a, b and c.
func medianOf3[T cmp.Ordered](a, b, c T) T {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}

// subsample returns at most n of values, drawn uniformly without
// replacement with r; values itself when it is short enough (it is not
// modified either way).
func subsample(values []float64, n int, r *rand.PCG) []float64 {
	if len(values) <= n {
		return values
	}
	s := slices.Clone(values)
	for i := range n {
		j := i + randIndex(r, len(s)-i)
		s[i], s[j] = s[j], s[i]
	}
	return s[:n]
}

// randIndex returns a uniform index in [0, n) (Lemire's multiply-shift,
// whose bias of at most n/2⁶⁴ is immaterial here).
func randIndex(r *rand.PCG, n int) int {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// randIndexPair returns two uniform indices in [0, n), n < 2³², from one
// random word, 32 bits each (multiply-shift: each index's probability is
// off by at most 2⁻³², immaterial for resampling).
func randIndexPair(r *rand.PCG, n int) (int, int) {
	x, m := r.Uint64(), uint64(n)
	return int((x & math.MaxUint32) * m >> 32), int((x >> 32) * m >> 32)
}
