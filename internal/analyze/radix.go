package analyze

import "slices"

// radixMin is the length below which sortInt64 falls back to slices.Sort.
const radixMin = 1 << 10

// radixBits is the width of one radix digit.
const radixBits = 11

// sortInt64 sorts a ascending. Long slices (times, durations: the hot path
// of the analysis) use an LSD radix sort on the offsets from the minimum,
// O(n·passes), skipping the digits that are equal across the slice; short
// ones use slices.Sort. The radix sort needs a buffer as long as a: scratch
// is used if long enough, else replaced; the buffer is returned for reuse.
func sortInt64(a, scratch []int64) []int64 {
	if len(a) < radixMin {
		slices.Sort(a)
		return scratch
	}
	lo, hi := slices.Min(a), slices.Max(a)
	span := uint64(hi - lo)
	if span == 0 {
		return scratch
	}
	if len(scratch) < len(a) {
		scratch = make([]int64, len(a))
	}
	src, dst := a, scratch[:len(a)]
	const mask = 1<<radixBits - 1
	var count [1 << radixBits]int
	for shift := uint(0); shift < 64 && span>>shift != 0; shift += radixBits {
		count = [1 << radixBits]int{}
		for _, v := range src {
			count[(uint64(v-lo)>>shift)&mask]++
		}
		if count[(uint64(src[0]-lo)>>shift)&mask] == len(src) {
			continue // every value has this digit
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, v := range src {
			d := (uint64(v-lo) >> shift) & mask
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	return scratch
}
