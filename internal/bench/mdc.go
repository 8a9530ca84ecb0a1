package bench

import (
	"fmt"
	"math"
)

// The M/D/c queue, computed on its own (nothing of diperf's models or of
// package search): Poisson arrivals at rate λ, c servers, every call
// served in exactly S, first come first served. `diperf bench search`
// takes its known answer under Poisson arrivals from here.
//
// The number of calls in the system at an arbitrary time t, Q(t), and at
// t + S obey Q(t+S) = max(Q(t) − c, 0) + A, A the arrivals in (t, t+S],
// Poisson with mean a = λS (Crommelin 1932): every call in service at t
// is gone by t + S, no call waiting at t or arriving after it is. The
// chain's stationary law is Q's at an arbitrary time.
//
// A call arriving at τ waits at most x = kS + u (0 ≤ u < S) exactly when,
// at τ + x, fewer than c of the calls that arrived before it are still
// there (FCFS: they are served first; fewer than c left means a server
// is free). Those calls, counted at s = τ + u − S, are Q(s) plus the A'
// arrivals in (s, τ), Poisson with mean λ(S − u); after one S they are
// max(Q(s) − c, 0) + A', after k more S that less kc. So
// P(W ≤ kS + u) = P(max(Q − c, 0) + A' ≤ (k+1)c − 1), Q and A'
// independent (PASTA: the arrival at τ sees the time average).

// mdcMaxStates bounds the truncated chain (a dense solve of this size
// takes well under a second).
const mdcMaxStates = 2000

// mdcInSystem is the stationary law of the number of calls in an M/D/c
// system with offered load a = λS (a < c): π[n], n = 0.. until its tail
// is below 1e−15.
func mdcInSystem(c int, a float64) ([]float64, error) {
	if c < 1 || !(a > 0) || a >= float64(c) || a > 600 {
		return nil, fmt.Errorf("m/d/c: want c ≥ 1 and 0 < λS < c (at most 600), got c %d, λS %g", c, a)
	}
	n := mdcStates(c, a)
	if n > mdcMaxStates {
		return nil, fmt.Errorf("m/d/c: load %.4g of %d servers needs %d states, more than %d", a/float64(c), c, n, mdcMaxStates)
	}
	return stationary(mdcChain(c, a, n))
}

// mdcStates is how many states hold all but 1e−15 of the law: its tail
// falls as z⁻ⁿ, z > 1 the root of zᶜ = e^{a(z−1)}, plus the arrivals a
// step can bring.
func mdcStates(c int, a float64) int {
	f := func(z float64) float64 { return float64(c)*math.Log(z) - a*(z-1) } // > 0 just above 1, < 0 far out
	lo, hi := 1.0, 2.0
	for f(hi) > 0 {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		if m := (lo + hi) / 2; f(m) > 0 {
			lo = m
		} else {
			hi = m
		}
	}
	tail := math.Log(1e15) / math.Log(lo)
	return c + int(math.Ceil(tail)) + len(poissonPMF(a, 1e-18))
}

// mdcChain is the transition matrix P[i][j] of the chain truncated to n
// states: what would go past the last state stays in it.
func mdcChain(c int, a float64, n int) [][]float64 {
	pmf := poissonPMF(a, 1e-18)
	p := make([][]float64, n)
	for i := range p {
		p[i] = make([]float64, n)
		base := max(i-c, 0)
		for k, pk := range pmf {
			p[i][min(base+k, n-1)] += pk
		}
	}
	return p
}

// poissonPMF is P(A = k) for A Poisson with mean a, k = 0.. until past
// the mean a term is below tail.
func poissonPMF(a, tail float64) []float64 {
	if !(a > 0) {
		return []float64{1}
	}
	// Start at the mode in logs (e^{−a} underflows for large a) and walk
	// both ways.
	mode := int(math.Floor(a))
	lg, _ := math.Lgamma(float64(mode) + 1)
	at := math.Exp(-a + float64(mode)*math.Log(a) - lg)
	pmf := make([]float64, mode+1)
	pmf[mode] = at
	for k := mode; k > 0; k-- {
		pmf[k-1] = pmf[k] * float64(k) / a
	}
	for k := mode + 1; pmf[k-1] > tail; k++ {
		pmf = append(pmf, pmf[k-1]*a/float64(k))
	}
	return pmf
}
