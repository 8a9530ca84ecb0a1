package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/diperf/diperf/internal/stats"
)

// minSamples is the fewest values (quanta, calls) each run needs for a
// bootstrap interval: with fewer, the percentile bootstrap is too narrow
// to be trusted and no interval is given.
const minSamples = 10

// Random streams, one per use, so that each is independent of the others.
const (
	streamThroughput uint64 = iota + 1
	streamRT
	streamErrors
	streamSubsampleA
	streamSubsampleB
)

// medianDiffCI returns median(b) − median(a) and its percentile-bootstrap
// 95% interval, resampling each with replacement; false when
// either has fewer than minSamples values. Resample i draws from its own
// random stream, so the result depends on the seed only, not on the
// scheduling of the workers.
func medianDiffCI(a, b []float64, o Options, stream uint64) (stats.Interval, bool) {
	if len(a) < minSamples || len(b) < minSamples {
		return stats.Interval{}, false
	}
	sa, sb := slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	diffs := make([]float64, o.Resamples)
	parallel(o.Resamples, func() func(int) {
		var buf []int32
		return func(i int) {
			r := newPCG(o.Seed, stream, i)
			var ma, mb float64
			mb, buf = resampleMedian(r, sb, buf)
			ma, buf = resampleMedian(r, sa, buf)
			diffs[i] = mb - ma
		}
	})
	mid := stats.MedianIndex
	return stats.BootstrapInterval(sb[mid(len(sb))]-sa[mid(len(sa))], diffs), true
}

// resampleMedian returns the median of len(sorted) values drawn from
// sorted with replacement, and buf, its scratch space, for reuse.
//
// As sorted is ascending, that median is sorted[j] for the median j of the
// drawn indices, so only indices are drawn, without touching the values.
// That median index lies within a few √n of the middle: the draws below a
// window around it are only counted, those inside kept, and the median
// picked among the kept ones. Should it fall outside (about once in 10¹⁵),
// the same draws are made again and all kept.
func resampleMedian(r *rand.PCG, sorted []float64, buf []int32) (float64, []int32) {
	n := len(sorted)
	k := stats.MedianIndex(n)
	half := 4*int(math.Sqrt(float64(n))) + 8 // 8 standard deviations
	saved := *r
	j, buf, ok := medianIndexOfDraws(r, n, k, max(k-half, 0), min(k+half, n-1), buf)
	if !ok {
		*r = saved
		j, buf, _ = medianIndexOfDraws(r, n, k, 0, n-1, buf)
	}
	return sorted[j], buf
}

// medianIndexOfDraws draws n indices in [0, n) and returns the k-th
// smallest (0-based) if it lies in [lo, hi], with ok true. Each random
// word gives two indices; the count below lo is kept without a branch,
// half the draws falling there.
func medianIndexOfDraws(r *rand.PCG, n, k, lo, hi int, buf []int32) (j int, _ []int32, ok bool) {
	below := 0
	kept := buf[:0]
	width := uint(hi - lo)
	draw := func(i int) {
		below += int(uint(i-lo) >> (bits.UintSize - 1))
		if uint(i-lo) <= width {
			kept = append(kept, int32(i))
		}
	}
	for range n / 2 {
		i1, i2 := randIndexPair(r, n)
		draw(i1)
		draw(i2)
	}
	if n%2 == 1 {
		i, _ := randIndexPair(r, n)
		draw(i)
	}
	if k < below || k >= below+len(kept) {
		return 0, kept, false
	}
	return int(stats.SelectK(kept, k-below)), kept, true
}

// rateDiffCI returns the difference in percent of the failure rates
// fb/nb − fa/na and its percentile-bootstrap 95% interval; false when a
// run has fewer than minSamples calls. Resampling n calls, each failed or
// not, with replacement gives a binomial count of failures, which is drawn
// directly.
func rateDiffCI(fa, na, fb, nb int, o Options) (stats.Interval, bool) {
	if na < minSamples || nb < minSamples {
		return stats.Interval{}, false
	}
	pa, pb := float64(fa)/float64(na), float64(fb)/float64(nb)
	diffs := make([]float64, o.Resamples)
	for i := range diffs {
		r := rand.New(newPCG(o.Seed, streamErrors, i))
		diffs[i] = percent(binomial(r, nb, pb), nb) - percent(binomial(r, na, pa), na)
	}
	return stats.BootstrapInterval(percent(fb, nb)-percent(fa, na), diffs), true
}

// parallel calls work(i) for every i in [0, n) on GOMAXPROCS goroutines.
// Each goroutine gets its function from newWorker, so that it can own its
// scratch space.
func parallel(n int, newWorker func() func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		work := newWorker()
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				work(i)
			}
		})
	}
	wg.Wait()
}

// newPCG returns the random source of draw i of stream under seed. The
// inputs are hashed so that nearby seeds and indices give unrelated
// sequences.
func newPCG(seed, stream uint64, i int) *rand.PCG {
	hi := mix(seed ^ mix(stream))
	return rand.NewPCG(hi, mix(hi^uint64(i)))
}

// mix is the SplitMix64 finalizer: a bijective scrambling of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// normalFrom is the variance n·p·(1−p) from which binomial draws use the
// normal approximation, whose skew is then at most 0.03.
const normalFrom = 1000

// binomial draws the number of successes in n trials of probability p.
func binomial(r *rand.Rand, n int, p float64) int {
	switch {
	case p <= 0 || n == 0:
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - binomial(r, n, 1-p)
	}
	if v := float64(n) * p * (1 - p); v >= normalFrom {
		k := math.Round(float64(n)*p + math.Sqrt(v)*r.NormFloat64())
		return int(min(max(k, 0), float64(n)))
	}
	return binomialBySkips(r, n, p)
}

// binomialBySkips draws a binomial count by jumping from one success to the
// next over geometric gaps: about n·p + 1 steps, few for the p ≤ 0.5 and
// small n·p(1−p) it is used with.
func binomialBySkips(r *rand.Rand, n int, p float64) int {
	logQ := math.Log1p(-p)
	k, pos := 0, 0
	for {
		gap := math.Floor(math.Log(1-r.Float64())/logQ) + 1
		if gap > float64(n-pos) {
			return k
		}
		pos += int(gap)
		k++
	}
}
