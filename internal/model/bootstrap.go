package model

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// bootstrap refits the USL to resamples pseudo-data sets around the fit q,
// keeping the held parameters, and records the refits. Resample b draws
// from its own generator, seeded by (seed, b), so the result does not
// depend on how the refits are spread over goroutines.
func (p points) bootstrap(q Params, held hold, resamples int, seed uint64) Bootstrap {
	fitted, resid := p.residuals(q, len(freeOf(held)))
	out := make([]Params, resamples)
	workers := min(runtime.GOMAXPROCS(0), resamples)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			y := make([]float64, len(fitted))
			for b := w; b < resamples; b += workers {
				rng := rand.New(rand.NewPCG(seed, uint64(b)))
				wildSample(y, fitted, resid, rng)
				out[b] = points{n: p.n, x: y}.lm(q, held)
			}
		})
	}
	wg.Wait()
	return Bootstrap{Resamples: resamples, Seed: seed, Method: bootstrapMethod, Params: out}
}

// residuals returns the fitted values of q and the residuals, inflated by
// sqrt(n/(n−k)) for the k fitted parameters.
func (p points) residuals(q Params, k int) (fitted, resid []float64) {
	n := len(p.n)
	inflate := math.Sqrt(float64(n) / float64(max(n-k, 1)))
	fitted, resid = make([]float64, n), make([]float64, n)
	for i, load := range p.n {
		fitted[i] = q.Throughput(load)
		resid[i] = (p.x[i] - fitted[i]) * inflate
	}
	return fitted, resid
}

// wildSample fills y with fitted ± resid, each sign drawn at random.
func wildSample(y, fitted, resid []float64, rng *rand.Rand) {
	for i := range y {
		if rng.Uint64()&1 == 0 {
			y[i] = fitted[i] + resid[i]
		} else {
			y[i] = fitted[i] - resid[i]
		}
	}
}

// freeOf lists the parameters a fit does not hold.
func freeOf(held hold) []int {
	var free []int
	for k, h := range held {
		if !h {
			free = append(free, k)
		}
	}
	return free
}
