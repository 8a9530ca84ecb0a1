package model

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Resampling schemes, as model.json names them.
const (
	uslMethod    = "wild residual bootstrap, Rademacher weights"
	boundsMethod = "wild residual bootstrap, Rademacher weights, of the throughputs; R0 from the light quanta drawn with replacement"
)

// bootstrapUSL refits the USL to resamples pseudo-data sets around the fit
// q, keeping the held parameters, and records the refits.
func (p points) bootstrapUSL(q Params, held hold, resamples int, seed uint64) Bootstrap {
	fitted, resid := p.residuals(q, len(freeOf(held)))
	out := make([]Params, resamples)
	resample(resamples, seed, fitted, resid, func(y []float64, _ *rand.Rand, b int) {
		out[b] = points{n: p.n, x: y}.lm(q, held)
	})
	return Bootstrap{Resamples: resamples, Seed: seed, Method: uslMethod, Params: out}
}

// bootstrapBounds refits the bounds model f to resamples pseudo-data sets:
// throughputs drawn around the fitted curve, and R0 the median response
// time of the light quanta drawn with replacement.
func (p points) bootstrapBounds(f boundsFit, resamples int, seed uint64) Bootstrap {
	fitted, resid := p.residuals(f.params, boundsParamCount)
	out := make([]BoundsParams, resamples)
	resample(resamples, seed, fitted, resid, func(y []float64, rng *rand.Rand, b int) {
		r0 := p.resampleRT(f.light, rng)
		x, _ := points{n: p.n, x: y}.plateauGiven(f.order, r0)
		out[b] = BoundsParams{R0Ms: r0, Plateau: x}
	})
	return Bootstrap{Resamples: resamples, Seed: seed, Method: boundsMethod, Bounds: out}
}

// resample calls fit on resamples wild pseudo-data sets around fitted.
// Resample b draws from its own generator, seeded by (seed, b), which fit
// may draw from further, so the result does not depend on how the
// resamples are spread over goroutines.
func resample(resamples int, seed uint64, fitted, resid []float64, fit func(y []float64, rng *rand.Rand, b int)) {
	workers := min(runtime.GOMAXPROCS(0), resamples)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			y := make([]float64, len(fitted))
			for b := w; b < resamples; b += workers {
				rng := rand.New(rand.NewPCG(seed, uint64(b)))
				wildSample(y, fitted, resid, rng)
				fit(y, rng, b)
			}
		})
	}
	wg.Wait()
}

// residuals returns the fitted throughputs of c and the residuals,
// inflated by sqrt(n/(n−k)) for the k fitted parameters.
func (p points) residuals(c curve, k int) (fitted, resid []float64) {
	n := len(p.n)
	inflate := math.Sqrt(float64(n) / float64(max(n-k, 1)))
	fitted, resid = make([]float64, n), make([]float64, n)
	for i, load := range p.n {
		fitted[i] = c.Throughput(load)
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
