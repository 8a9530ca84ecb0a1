package compare

import (
	"math"
	"math/rand/v2"
	"slices"
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
// figure and into its noise (two short runs 25% apart came out "not
// significant"). Compare therefore compares like with like: the mean
// throughput of each cell both runs cover, weighted by the fewer quanta
// the two runs have in it. The peak window (the most testers at once) is
// not used: in a ramp that starts and stops testers one after another it
// may last less than a quantum.
//
// The interval comes from a residual bootstrap: each quantum's throughput
// relative to its cell's mean is a residual; a resampled cell mean is the
// cell's mean times one plus the mean of as many residuals as the cell has
// quanta, drawn from the run's residuals in moving blocks of about n^⅓
// consecutive quanta. Pooling lets a cell held for one quantum (a ramp
// step) carry the run's noise; the blocks keep the correlation of
// consecutive quanta, which resampling quanta one by one would ignore and
// so make the interval too narrow.
type cellRun struct {
	sum   map[int]float64 // throughput summed per cell
	n     map[int]int     // quanta per cell
	resid []float64       // each quantum's throughput over its cell's mean, minus 1, in time order
}

// maxCellLoad bounds the loads that get a cell: more calls in flight than
// any run can hold is not a load but a defect, and is left out.
const maxCellLoad = 1e9

// unknownLoad is the cell of the quanta of a run whose loads are unknown.
const unknownLoad = -1

// cellKey is the load cell of quantum i; false below ½ (nothing offered),
// above maxCellLoad or not a number. All quanta are in one cell when the
// loads are unknown (nil, or not one per quantum): cell unknownLoad,
// which matches only another run's unknown loads.
func cellKey(tput, load []float64, i int) (int, bool) {
	if len(load) != len(tput) {
		return unknownLoad, true
	}
	if !(load[i] >= 0.5 && load[i] <= maxCellLoad) {
		return 0, false
	}
	return int(math.Round(load[i])), true
}

// newCellRun groups a run's quanta by load cell and computes its
// residuals, scaled by √(N/(N−K)) for N quanta in K cells so that their
// variance is not biased low by the K fitted means.
func newCellRun(tput, load []float64) *cellRun {
	c := &cellRun{sum: map[int]float64{}, n: map[int]int{}}
	for i, x := range tput {
		if k, ok := cellKey(tput, load, i); ok {
			c.sum[k] += x
			c.n[k]++
		}
	}
	dof := c.dof()
	if dof <= 0 {
		return c
	}
	scale := math.Sqrt(float64(dof+len(c.n)) / float64(dof))
	for i, x := range tput {
		if k, ok := cellKey(tput, load, i); ok && c.sum[k] > 0 {
			c.resid = append(c.resid, scale*(x*float64(c.n[k])/c.sum[k]-1))
		}
	}
	return c
}

// dof is the number of quanta less the number of cells: how many
// residuals say something about the noise.
func (c *cellRun) dof() int {
	d := -len(c.n)
	for _, n := range c.n {
		d += n
	}
	return d
}

// matched returns the cells both runs cover, ascending, with their
// weights (the fewer quanta of the two runs), and the total weight.
func matched(a, b *cellRun) (keys []int, w []float64, total int) {
	for k, na := range a.n {
		if nb, ok := b.n[k]; ok {
			keys = append(keys, k)
			total += min(na, nb)
		}
	}
	slices.Sort(keys) // the draws repeat with the seed
	for _, k := range keys {
		w = append(w, float64(min(a.n[k], b.n[k])))
	}
	return keys, w, total
}

// weightedMean is the weighted mean over keys of the run's cell means,
// each times 1 + the mean of its resampled residuals (r nil: the means as
// they are).
func (c *cellRun) weightedMean(keys []int, w []float64, r *rand.Rand) float64 {
	var s, ws float64
	for i, k := range keys {
		m := c.sum[k] / float64(c.n[k])
		if r != nil {
			m *= 1 + blockMean(r, c.resid, c.n[k])
		}
		s += w[i] * m
		ws += w[i]
	}
	return s / ws
}
