package bench

import (
	"fmt"
	"math"
)

// stationary solves π P = π, Σ π = 1 for the transition matrix p: the
// balance equations with the last one replaced by the normalization.
func stationary(p [][]float64) ([]float64, error) {
	n := len(p)
	m := make([][]float64, n) // m[j] = row j of Pᵀ − I, then the rhs
	for j := range m {
		m[j] = make([]float64, n+1)
		for i := range n {
			m[j][i] = p[i][j]
		}
		m[j][j]--
	}
	for i := range n {
		m[n-1][i] = 1
	}
	m[n-1][n] = 1
	return solve(m)
}

// solve solves the augmented system m (n rows of n coefficients and the
// right-hand side) by Gaussian elimination with partial pivoting; it
// clamps the rounding below 0 of a tail probability to 0.
func solve(m [][]float64) ([]float64, error) {
	n := len(m)
	for col := range n {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if m[piv][col] == 0 {
			return nil, fmt.Errorf("m/d/c: the balance equations are singular")
		}
		m[col], m[piv] = m[piv], m[col]
		for r := col + 1; r < n; r++ {
			if f := m[r][col] / m[col][col]; f != 0 {
				for k := col; k <= n; k++ {
					m[r][k] -= f * m[col][k]
				}
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = max(s/m[r][r], 0)
	}
	return x, nil
}

// MDCWaitCDF is P(W ≤ x) in the M/D/c queue: c servers, service time s
// (seconds), Poisson arrivals at lambda calls/s (λs < c), x ≥ 0 seconds.
func MDCWaitCDF(c int, lambda, s, x float64) (float64, error) {
	q, err := newMDC(c, lambda, s)
	if err != nil {
		return 0, err
	}
	return q.waitCDF(x), nil
}

// mdc is one M/D/c queue with its law of the calls in the system.
type mdc struct {
	c         int
	lambda, s float64
	pi        []float64
}

func newMDC(c int, lambda, s float64) (*mdc, error) {
	if !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("m/d/c: want a service time > 0, got %g", s)
	}
	pi, err := mdcInSystem(c, lambda*s)
	if err != nil {
		return nil, err
	}
	return &mdc{c: c, lambda: lambda, s: s, pi: pi}, nil
}

// waitCDF is P(W ≤ x), x ≥ 0 seconds (0 for x < 0 or NaN).
func (q *mdc) waitCDF(x float64) float64 {
	if !(x >= 0) {
		return 0
	}
	k := math.Floor(x / q.s)
	u := min(max(x-k*q.s, 0), q.s)
	room := (int(min(k, 1e6))+1)*q.c - 1 // calls ahead of it still there, at most
	cdf := poissonCDF(poissonPMF(q.lambda*(q.s-u), 1e-18))
	var p float64
	for n, pn := range q.pi {
		if left := room - max(n-q.c, 0); left >= 0 {
			p += pn * cdf(left)
		}
	}
	return math.Min(p, 1)
}

// poissonCDF turns a pmf into k ↦ P(A ≤ k).
func poissonCDF(pmf []float64) func(int) float64 {
	cum := make([]float64, len(pmf))
	s := 0.0
	for k, v := range pmf {
		s += v
		cum[k] = s
	}
	return func(k int) float64 {
		if k >= len(cum) {
			return 1
		}
		return cum[k]
	}
}
