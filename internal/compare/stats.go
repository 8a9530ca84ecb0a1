package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

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
