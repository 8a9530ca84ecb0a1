package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// medianRT is the call-weighted median of the mean response times (ms) of
// quanta idx: the quantum mean below which half the calls lie. A median,
// not a mean, so that one quantum caught in a stall of the machine running
// the clients does not move the response time of every light-load call.
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

// resampleRT is medianRT of as many of quanta idx as there are, drawn
// with replacement: R0 in a bootstrap refit.
func (p points) resampleRT(idx []int, rng *rand.Rand) float64 {
	draw := make([]int, len(idx))
	for k := range draw {
		draw[k] = idx[rng.IntN(len(idx))]
	}
	return p.medianRT(draw)
}
