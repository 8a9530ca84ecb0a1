package stats

import "cmp"

// SelectK returns the k-th smallest (0-based) of x, reordering x. It is a
// quickselect with a median-of-three pivot and a three-way partition, so
// that many equal values (per-quantum throughputs are counts) cost nothing.
func SelectK[T cmp.Ordered](x []T, k int) T {
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
