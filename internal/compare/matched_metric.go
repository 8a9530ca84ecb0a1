package compare

import (
	"math"
	"math/rand/v2"

	"github.com/diperf/diperf/internal/stats"
)

// matchedMetric compares the runs' throughputs at matched load, with the
// bootstrap 95% interval of B − A when the matched cells weigh at least
// minSamples quanta and each run has at least minDoF residuals.
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
	if n < minSamples || ca.dof() < minDoF || cb.dof() < minDoF {
		return m
	}
	diffs := make([]float64, o.Resamples)
	for i := range diffs {
		r := rand.New(newPCG(o.Seed, streamMatched, i))
		diffs[i] = cb.weightedMean(keys, w, r) - ca.weightedMean(keys, w, r)
	}
	k := smallSampleWidening(min(ca.dof(), cb.dof()))
	for i := range diffs {
		diffs[i] = m.Diff + k*(diffs[i]-m.Diff)
	}
	m.setCI(stats.BootstrapInterval(m.Diff, diffs))
	return m
}

// minDoF is the fewest residuals (quanta less cells) a run needs for the
// interval: with fewer, its noise is not known. A ramp up and down again
// with no plateau holds each load about twice, so a 20 s run has ~9.
const minDoF = 4

// smallSampleWidening is how much wider than the bootstrap's the interval
// is made for a noise estimated from dof residuals: Student's t over the
// normal 97.5th percentile (Cornish–Fisher expansion, within 1% for
// dof ≥ 5). A percentile bootstrap from a handful of residuals is too
// narrow: in the known-answer simulations of two 20 s runs (about 10
// residuals each) its 95% interval held the truth 9 times in 10.
func smallSampleWidening(dof int) float64 {
	const z = 1.959964
	v := float64(dof)
	t := z + (z*z*z+z)/(4*v) + (5*math.Pow(z, 5)+16*z*z*z+3*z)/(96*v*v)
	return t / z
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
