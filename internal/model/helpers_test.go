package model

import (
	"math"
	"math/rand/v2"

	"github.com/diperf/diperf/internal/analyze"
)

// usl returns the USL throughput curve with parameters λ, σ, κ.
func usl(lambda, sigma, kappa float64) func(float64) float64 {
	return Params{lambda, sigma, kappa}.Throughput
}

// saturating is the demo target's curve: C workers each serving a call in
// S seconds, X = min(N, C)/S.
func saturating(workers, serviceS float64) func(float64) float64 {
	return func(n float64) float64 { return math.Min(n, workers) / serviceS }
}

// loads returns each of lo, lo+1, …, hi repeated k times.
func loads(lo, hi, k int) []float64 {
	var v []float64
	for n := lo; n <= hi; n++ {
		for range k {
			v = append(v, float64(n))
		}
	}
	return v
}

// synthetic builds a run whose quantum i has load n[i] and throughput
// curve(n[i]) times 1+ε, ε normal with standard deviation noise (seeded),
// and the mean response time Little's law gives for that throughput.
func synthetic(n []float64, curve func(float64) float64, noise float64, seed uint64) *analyze.Result {
	rng := rand.New(rand.NewPCG(seed, 0))
	r := &analyze.Result{Quanta: make([]analyze.Quantum, len(n))}
	for i, load := range n {
		x := curve(load) * (1 + noise*rng.NormFloat64())
		r.Quanta[i] = analyze.Quantum{
			T: float64(i), Load: load, Active: 1, Throughput: x,
			RT: analyze.RTStats{N: 1, Mean: 1000 * load / x},
		}
	}
	return r
}

// relErr is |got − want| / |want|.
func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Abs(want)
}
