package model

import (
	"cmp"
	"math"
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

// lightRTHalfWidth is the half-width of the 95% t interval of R0 = r0
// from the light quanta: t(0.975, k−1) times sqrt(s²/calls), calls being
// those of the light quanta and s² the variance per call of the quantum
// means about r0, Σcᵢ(rᵢ−r0)²/(k−1), over the k quanta below the knee
// (below, which holds the light ones). A variance from the light quanta
// alone is too small too often: they are a handful (6 in the default
// demo), and a stall of the client machine, which lengthens a few calls a
// lot, is then missed in the variance and in the mean together. Quanta
// closer to the knee only add to it. 0 with fewer than 2 quanta.
func (p points) lightRTHalfWidth(light, below []int, r0 float64) float64 {
	var k, calls int
	var ss float64
	for _, i := range below {
		if c := p.calls[i]; c > 0 {
			d := p.rt[i] - r0
			k, ss = k+1, ss+float64(c)*d*d
		}
	}
	for _, i := range light {
		calls += p.calls[i]
	}
	if k < 2 || calls == 0 {
		return 0
	}
	return tQuantile(0.975, k-1) * math.Sqrt(ss/float64(k-1)/float64(calls))
}
