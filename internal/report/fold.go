package report

// fold cuts items into runs of k consecutive ones, k the smallest that
// leaves at most limit runs, and merges each run into one item. It returns
// the merged items and k; with k = 1 the items come back as they are.
func fold[T any](items []T, limit int, merge func([]T) T) ([]T, int) {
	k := max(1, (len(items)+max(limit, 1)-1)/max(limit, 1))
	if k == 1 {
		return items, 1
	}
	out := make([]T, 0, (len(items)+k-1)/k)
	for lo := 0; lo < len(items); lo += k {
		out = append(out, merge(items[lo:min(lo+k, len(items))]))
	}
	return out, k
}

// meanBy returns the mean of f over the items, leaving out NaN and
// infinite values; NaN when none is left.
func meanBy[T any](items []T, f func(T) float64) float64 {
	var sum float64
	n := 0
	for _, it := range items {
		if v := f(it); finite(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return nan
	}
	return sum / float64(n)
}
