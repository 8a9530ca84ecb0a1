package model

import "math"

// gridSteps is the number of nonzero values of σ and of κ the start grid
// tries (plus zero for each).
const gridSteps = 16

// sigmaGrid is 0 and σ from 1e-4 to 0.9, evenly in log.
func sigmaGrid() []float64 {
	return append([]float64{0}, logSpace(1e-4, 0.9, gridSteps)...)
}

// kappaGrid is 0 and κ placing the peak N* ≈ sqrt(1/κ) from 30 times the
// largest load down to a 30th of it.
func kappaGrid(maxLoad float64) []float64 {
	m2 := maxLoad * maxLoad
	return append([]float64{0}, logSpace(1e-3/m2, 1e3/m2, gridSteps)...)
}

// logSpace returns k values from lo to hi evenly spaced in log.
func logSpace(lo, hi float64, k int) []float64 {
	v := make([]float64, k)
	step := math.Log(hi/lo) / float64(k-1)
	for i := range v {
		v[i] = lo * math.Exp(step*float64(i))
	}
	return v
}

// bestLambda returns the least-squares λ for fixed σ and κ, where the USL is
// linear in λ, and the resulting residual sum of squares.
func (p points) bestLambda(sigma, kappa float64) (lambda, rss float64) {
	q := Params{1, sigma, kappa}
	var sxg, sgg, sxx float64
	for i, n := range p.n {
		g := q.Throughput(n)
		sxg += p.x[i] * g
		sgg += g * g
		sxx += p.x[i] * p.x[i]
	}
	if sgg == 0 {
		return 0, sxx
	}
	lambda = math.Max(0, sxg/sgg)
	return lambda, sxx - 2*lambda*sxg + lambda*lambda*sgg
}

// gridStart returns the best parameters on the σ×κ grid, κ held at 0 when
// fixKappa is set.
func (p points) gridStart(fixKappa bool) Params {
	_, maxLoad := minMax(p.n)
	kappas := []float64{0}
	if !fixKappa {
		kappas = kappaGrid(maxLoad)
	}
	best, bestRSS := Params{}, math.Inf(1)
	for _, s := range sigmaGrid() {
		for _, k := range kappas {
			if l, rss := p.bestLambda(s, k); rss < bestRSS {
				best, bestRSS = Params{l, s, k}, rss
			}
		}
	}
	return best
}
