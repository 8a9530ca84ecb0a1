package model

import "math"

// Levenberg–Marquardt settings.
const (
	lmMaxIter  = 200   // iterations at most
	lmMaxTries = 40    // damping increases per iteration at most
	lmRelTol   = 1e-12 // stop when an iteration lowers the RSS by less than this fraction
	lmMuStart  = 1e-3  // initial damping
	lmMuMin    = 1e-15 // damping never falls below this
)

// hold marks the parameters a fit keeps at their starting value.
type hold [nParams]bool

// lm minimises the RSS by Levenberg–Marquardt from start, keeping the held
// parameters and the bounds paramLow..paramHigh.
func (p points) lm(start Params, held hold) Params {
	q, cost, mu := start, p.rss(start), lmMuStart
	for range lmMaxIter {
		a, g := p.normal(q)
		next, nextCost, ok := p.lmStep(q, cost, a, g, freeParams(q, g, held), &mu)
		if !ok {
			break
		}
		done := cost-nextCost <= lmRelTol*cost
		q, cost = next, nextCost
		if done {
			break
		}
	}
	return q
}

// lmStep tries damped steps from q, raising the damping *mu until one
// lowers the RSS; ok is false when none does.
func (p points) lmStep(q Params, cost float64, a [nParams][nParams]float64, g Params, free []int, mu *float64) (Params, float64, bool) {
	if len(free) == 0 {
		return q, cost, false
	}
	for range lmMaxTries {
		if d, ok := dampedStep(a, g, free, *mu); ok {
			next := project(q, d)
			if c := p.rss(next); c < cost {
				*mu = math.Max(*mu/10, lmMuMin)
				return next, c, true
			}
		}
		*mu *= 10
	}
	return q, cost, false
}

// normal returns JᵀJ and Jᵀr at q, J being the Jacobian of the model and r
// the residuals; Jᵀr points the way the RSS falls.
func (p points) normal(q Params) (a [nParams][nParams]float64, g Params) {
	for i, n := range p.n {
		j := q.gradient(n)
		r := p.x[i] - q.Throughput(n)
		for k := range nParams {
			g[k] += j[k] * r
			for l := range nParams {
				a[k][l] += j[k] * j[l]
			}
		}
	}
	return a, g
}

// freeParams lists the parameters that may move: not held, and not on a
// bound that the gradient pushes against.
func freeParams(q, g Params, held hold) []int {
	var free []int
	for k := range nParams {
		atLow := q[k] <= paramLow[k] && g[k] <= 0
		atHigh := q[k] >= paramHigh[k] && g[k] >= 0
		if !held[k] && !atLow && !atHigh {
			free = append(free, k)
		}
	}
	return free
}

// dampedStep solves (JᵀJ + μ·diag(JᵀJ)) δ = Jᵀr over the free parameters,
// scaled so the diagonal is 1 (Marquardt), and returns δ.
func dampedStep(a [nParams][nParams]float64, g Params, free []int, mu float64) (Params, bool) {
	m := len(free)
	scale := make([]float64, m)
	for i, k := range free {
		if a[k][k] <= 0 {
			return Params{}, false
		}
		scale[i] = 1 / math.Sqrt(a[k][k])
	}
	mat := make([][]float64, m)
	rhs := make([]float64, m)
	for i, k := range free {
		mat[i] = make([]float64, m)
		for j, l := range free {
			mat[i][j] = a[k][l] * scale[i] * scale[j]
		}
		mat[i][i] += mu
		rhs[i] = g[k] * scale[i]
	}
	z, ok := solve(mat, rhs)
	if !ok {
		return Params{}, false
	}
	var d Params
	for i, k := range free {
		d[k] = z[i] * scale[i]
	}
	return d, true
}

// project returns q+d clamped to the parameter bounds.
func project(q, d Params) Params {
	for k := range nParams {
		q[k] = math.Min(math.Max(q[k]+d[k], paramLow[k]), paramHigh[k])
	}
	return q
}
