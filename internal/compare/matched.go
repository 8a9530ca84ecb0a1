package compare

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/diperf/diperf/internal/stats"
)

// ThroughputMatched is the metric the throughput verdict and --fail-if
// slower rest on: the two runs' throughputs compared at matching load.
const ThroughputMatched = "throughput at matched load"

// streamMatched is the random stream of the matched-load bootstrap.
const streamMatched uint64 = 0x6d61746368

// A load cell holds the quanta whose offered load (time-weighted calls in
// flight) rounds to the same whole number. Throughput depends on the load
// as much as on the service: a run's ramp-up quanta, at low load, serve
// far fewer calls than its plateau, and two runs hold each load for
// different times, so a median over all quanta mixes the ramp into the
// figure and its noise (two short runs 35% apart came out "not
// significant"). Compare therefore compares like with like: only the
// cells both runs cover, each weighted by the fewer quanta the two runs
// have in it. The peak window (the most testers at once) is not used: in a
// ramp that starts and stops testers one after another it may last less
// than a quantum.
//
// The quanta of one cell are consecutive seconds of one plateau and
// correlated, so the interval comes from a moving-block bootstrap within
// each cell (blocks of about n^⅓ quanta), not from resampling quanta one
// by one, which would make it too narrow.
type cells map[int][]float64

// cellsOf groups the throughputs by load cell, in time order; all in one
// cell when the loads are unknown (nil). Quanta at load below ½ are left
// out: nothing was offered.
func cellsOf(tput, load []float64) cells {
	c := cells{}
	for i, x := range tput {
		k := 1
		if load != nil {
			if k = int(math.Round(load[i])); k < 1 {
				continue
			}
		}
		c[k] = append(c[k], x)
	}
	return c
}

// matchedCell is a load cell both runs cover, with its weight.
type matchedCell struct {
	a, b []float64
	w    float64
}

// matchCells returns the cells both runs cover and the quanta they weigh.
func matchCells(a, b cells) ([]matchedCell, int) {
	var out []matchedCell
	n := 0
	for _, k := range slices.Sorted(maps.Keys(a)) { // sorted: the draws repeat with the seed
		xa := a[k]
		if xb, ok := b[k]; ok {
			w := min(len(xa), len(xb))
			out = append(out, matchedCell{a: xa, b: xb, w: float64(w)})
			n += w
		}
	}
	return out, n
}

// weighted returns the weighted mean of the cells' throughputs of one run,
// each cell's mean taken by mean (the plain mean or a resampled one).
func weighted(cs []matchedCell, side func(*matchedCell) []float64, mean func([]float64) float64) float64 {
	var s, w float64
	for i := range cs {
		s += cs[i].w * mean(side(&cs[i]))
		w += cs[i].w
	}
	return s / w
}

// matchedMetric compares the runs' throughputs at matched load, with the
// block-bootstrap 95% interval of B − A when the matched cells hold at
// least minSamples quanta.
func matchedMetric(a, b *Data, o Options) Metric {
	cs, n := matchCells(cellsOf(a.Throughput, a.Load), cellsOf(b.Throughput, b.Load))
	if n == 0 {
		return newMetric(ThroughputMatched, unitCallsS, 0, 0)
	}
	sideA := func(c *matchedCell) []float64 { return c.a }
	sideB := func(c *matchedCell) []float64 { return c.b }
	m := newMetric(ThroughputMatched, unitCallsS, weighted(cs, sideA, stats.Mean), weighted(cs, sideB, stats.Mean))
	m.Quanta = &n
	if n < minSamples {
		return m
	}
	diffs := make([]float64, o.Resamples)
	for i := range diffs {
		r := rand.New(newPCG(o.Seed, streamMatched, i))
		bm := func(x []float64) float64 { return blockMean(r, x) }
		diffs[i] = weighted(cs, sideB, bm) - weighted(cs, sideA, bm)
	}
	m.setCI(stats.BootstrapInterval(m.Diff, diffs))
	return m
}

// blockMean is the mean of a moving-block resample of x (in time order):
// blocks of about len(x)^⅓ consecutive values, starting anywhere
// (circularly), until len(x) values are drawn.
func blockMean(r *rand.Rand, x []float64) float64 {
	n := len(x)
	l := max(1, int(math.Round(math.Cbrt(float64(n)))))
	s := 0.0
	for drawn := 0; drawn < n; {
		start := r.IntN(n)
		for j := 0; j < l && drawn < n; j++ {
			s += x[(start+j)%n]
			drawn++
		}
	}
	return s / float64(n)
}
