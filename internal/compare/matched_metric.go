package compare

import (
	"math"
	"math/rand/v2"

	"github.com/diperf/diperf/internal/stats"
)

// matchedMetric compares the runs' throughputs at matched load, with the
// bootstrap 95% interval of B − A when the matched cells weigh at least
// minSamples quanta and each run has at least minSamples residuals.
func matchedMetric(a, b *Data, o Options) Metric {
	ca, cb := newCellRun(a.Throughput, a.Load), newCellRun(b.Throughput, b.Load)
	keys, w, n := matched(ca, cb)
	if n == 0 {
		m := newMetric(ThroughputMatched, unitCallsS, 0, 0)
		m.Quanta = &n
		return m
	}
	m := newMetric(ThroughputMatched, unitCallsS, ca.weightedMean(keys, w, nil), cb.weightedMean(keys, w, nil))
	m.Quanta = &n
	if n < minSamples || ca.dof() < minSamples || cb.dof() < minSamples {
		return m
	}
	diffs := make([]float64, o.Resamples)
	for i := range diffs {
		r := rand.New(newPCG(o.Seed, streamMatched, i))
		diffs[i] = cb.weightedMean(keys, w, r) - ca.weightedMean(keys, w, r)
	}
	m.setCI(stats.BootstrapInterval(m.Diff, diffs))
	return m
}

// blockMean is the mean of n values drawn from x (in time order) in moving
// blocks of about len(x)^⅓ consecutive values, each starting anywhere
// (circularly); 0 when x is empty.
func blockMean(r *rand.Rand, x []float64, n int) float64 {
	if len(x) == 0 || n == 0 {
		return 0
	}
	l := max(1, int(math.Round(math.Cbrt(float64(len(x))))))
	s := 0.0
	for drawn := 0; drawn < n; {
		start := r.IntN(len(x))
		for j := 0; j < l && drawn < n; j++ {
			s += x[(start+j)%len(x)]
			drawn++
		}
	}
	return s / float64(n)
}
