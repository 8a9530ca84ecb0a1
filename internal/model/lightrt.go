package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// stallFactor marks a light quantum as caught in a stall of the machine
// running the clients: its mean response time exceeds stallFactor times
// the call-weighted median of the light quanta's.
const stallFactor = 2

// lightRT is R0 from the light quanta idx: the mean response time of
// their calls, the quanta caught in a stall left out. A mean, as Little's
// law X = N/R0 needs, and one that does not depend on the quantum length
// (a median of quantum means falls as the quanta shorten and their means
// grow skewed, by 1-2% from 1 s to 250 ms quanta when client start times
// have a long tail); without the stalled quanta, so that one quantum of a
// stalled machine does not move the response time of every light-load
// call.
func (p points) lightRT(idx []int) float64 {
	fence := stallFactor * p.medianRT(idx)
	var calls int
	var sum float64
	for _, i := range idx {
		if p.rt[i] <= fence {
			calls += p.calls[i]
			sum += float64(p.calls[i]) * p.rt[i]
		}
	}
	if calls == 0 {
		return 0
	}
	return sum / float64(calls)
}

// medianRT is the call-weighted median of the mean response times (ms) of
// quanta idx: the quantum mean below which half the calls lie.
func (p points) medianRT(idx []int) float64 {
	idx = slices.Clone(idx)
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(p.rt[a], p.rt[b]) })
	var total, run int
	for _, i := range idx {
		total += p.calls[i]
	}
	for _, i := range idx {
		run += p.calls[i]
		if 2*run >= total {
			return p.rt[i]
		}
	}
	return 0
}

// resampleRT is lightRT of as many of quanta idx as there are, drawn
// with replacement: R0 in a bootstrap refit.
func (p points) resampleRT(idx []int, rng *rand.Rand) float64 {
	draw := make([]int, len(idx))
	for k := range draw {
		draw[k] = idx[rng.IntN(len(idx))]
	}
	return p.lightRT(draw)
}
