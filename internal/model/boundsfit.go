package model

import (
	"cmp"
	"math"
	"slices"
)

// Bounds fit settings, as in the analyzer's saturation detector.
const (
	lightShare   = 0.1 // without quanta below half the knee, R0 comes from the lightest tenth
	plateauShare = 0.1 // a plateau holds at least this share of the quanta
	plateauMin   = 3   // and at least this many
)

// boundsFit is a fit of the bounds model and what the bootstrap needs to
// repeat it.
type boundsFit struct {
	params  BoundsParams
	light   []int // quanta whose response times gave R0
	plateau int   // quanta above the knee
	order   []int // every quantum, by load
}

// fitBounds fits the bounds model to p: R0 is the mean response time of
// the calls of the quanta at less than half the knee (lightRT), X* the
// least-squares plateau for that R0. ok is false when no quantum has a
// response time or too few lie above the knee to show a plateau.
func (p points) fitBounds() (f boundsFit, ok bool) {
	f.order = p.byLoad()
	timed := p.timed(f.order)
	if len(timed) == 0 {
		return boundsFit{}, false
	}
	f.light = timed[:int(math.Ceil(lightShare*float64(len(timed))))]
	r0 := p.lightRT(f.light)
	x, _ := p.plateauGiven(f.order, r0)
	if light := p.upTo(timed, BoundsParams{r0, x}.Knee()/2); len(light) > 0 {
		f.light = light
	}
	f.params.R0Ms = p.lightRT(f.light)
	f.params.Plateau, f.plateau = p.plateauGiven(f.order, f.params.R0Ms)
	need := max(plateauMin, int(math.Ceil(plateauShare*float64(len(p.n)))))
	ok = f.plateau >= need && f.params.R0Ms > 0 && f.params.Plateau > 0
	return f, ok
}

// byLoad returns the indices of p's quanta in order of load.
func (p points) byLoad() []int {
	order := make([]int, len(p.n))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.n[a], p.n[b]) })
	return order
}

// timed keeps the quanta of order that completed a call.
func (p points) timed(order []int) []int {
	var out []int
	for _, i := range order {
		if p.calls[i] > 0 {
			out = append(out, i)
		}
	}
	return out
}

// upTo returns the leading quanta of order (by load) with load at most l.
func (p points) upTo(order []int, l float64) []int {
	k, _ := slices.BinarySearchFunc(order, l, func(i int, l float64) int {
		if p.n[i] <= l {
			return -1
		}
		return 1
	})
	return order[:k]
}

// plateauGiven returns the X* that minimises the squared throughput
// residuals of min(N/R0, X*) for the given R0 (ms), and the number of
// quanta above the knee (0 when the best X* is above every point). order
// lists the quanta by load. With the quanta from j on above the knee the
// best X* is their mean throughput, clamped to keep quantum j−1 below the
// knee and quantum j above it; every j is tried, with running sums.
func (p points) plateauGiven(order []int, r0Ms float64) (xStar float64, above int) {
	m := len(order)
	slope := 1000 / r0Ms
	rise := make([]float64, m+1) // rise[j]: squared residuals of quanta order[:j] on the line
	for j, i := range order {
		d := p.x[i] - slope*p.n[i]
		rise[j+1] = rise[j] + d*d
	}
	best := rise[m]
	xStar = slope * p.n[order[m-1]]
	var sx, sxx float64
	for j := m - 1; j >= 0; j-- {
		i := order[j]
		sx, sxx = sx+p.x[i], sxx+p.x[i]*p.x[i]
		k := float64(m - j)
		lo := 0.0
		if j > 0 {
			lo = slope * p.n[order[j-1]]
		}
		c := math.Min(math.Max(sx/k, lo), slope*p.n[i])
		if sse := rise[j] + sxx - 2*c*sx + k*c*c; sse < best {
			best, xStar, above = sse, c, m-j
		}
	}
	return xStar, above
}
