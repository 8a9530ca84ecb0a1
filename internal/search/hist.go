package search

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// overCount is how many calls of h (µs, stats.NewRTHist's geometry) the
// histogram cannot place within the objective: for "< X ms" those whose
// bucket reaches X (its highest equivalent value ≥ X µs), for "<= X" those
// whose bucket reaches past X. So a share of calls over X within the
// objective means the histogram's pNN (ValueAtQuantile, a bucket's highest
// equivalent value, as the thresholds read it) meets it too.
func overCount(h *hdr.Histogram, boundMs float64, strict bool) uint64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	x := int64(math.Round(boundMs * 1e3))
	var k int64
	for _, b := range h.Distribution() {
		if b.Count > 0 && (b.To > x || strict && b.To == x) {
			k += b.Count
		}
	}
	return uint64(k)
}

// percentileInterval is the NN-th percentile of h in ms with its 95%
// distribution-free interval: the values at the ranks n·q ∓ 1.96·√(n·q·(1−q))
// (the normal approximation of the binomial count below the percentile).
func percentileInterval(h *hdr.Histogram, rank float64) (v, lo, hi float64) {
	n := float64(h.TotalCount())
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	q := rank / 100
	d := z95 * math.Sqrt(n*q*(1-q))
	at := func(r float64) float64 {
		p := math.Min(100, math.Max(0, 100*r/n))
		return float64(h.ValueAtQuantile(p)) / 1e3
	}
	return at(n * q), at(math.Max(1, n*q-d)), at(math.Min(n, n*q+d+1))
}
