package bench

import (
	"fmt"
	"math"
)

// Arrivals of the search bench's open model.
const (
	ArrivalsUniform = "uniform"
	ArrivalsPoisson = "poisson"
)

// maxPoissonWorkers bounds c for the M/D/c truth: its chain has about
// 500 states at 64 servers (a second to solve to the truth), and grows
// as the truth's load nears 1.
const maxPoissonWorkers = 64

// SearchTruth is the known capacity of c servers of service time s
// (seconds) for the objective "the pNN of the response time (s + the
// wait) is below factor·s", NN = 100·(1 − share): under uniform arrivals
// (D/D/c) no call waits below c/s calls/s and the queue grows without
// bound above it, so it is c/s whatever the objective (factor > 1); under
// Poisson arrivals it is the highest λ at which P(W ≥ (factor − 1)·s) is
// below share in the M/D/c queue (MDCWaitCDF).
func SearchTruth(arrivals string, c int, s, factor, share float64) (float64, error) {
	if c < 1 || !(s > 0) || !(factor > 1) || !(share > 0 && share < 1) {
		return 0, fmt.Errorf("truth: want c ≥ 1, s > 0, factor > 1, 0 < share < 1, got %d, %g, %g, %g", c, s, factor, share)
	}
	switch arrivals {
	case ArrivalsUniform:
		return float64(c) / s, nil
	case ArrivalsPoisson:
		if c > maxPoissonWorkers {
			return 0, fmt.Errorf("truth: the M/D/c truth is computed for at most %d servers (a dense chain), got %d", maxPoissonWorkers, c)
		}
		return mdcCapacity(c, s, (factor-1)*s, share)
	}
	return 0, fmt.Errorf("truth: arrivals %q: want uniform or poisson", arrivals)
}

// mdcCapacity is the highest λ at which P(W > wait) < share in the M/D/c
// queue: the share grows with λ, so the loads ρ = 1 − 2⁻ᵏ are tried
// until one is over it, then the bracket is bisected to 1e−9 of c/s.
func mdcCapacity(c int, s, wait, share float64) (float64, error) {
	over := func(rho float64) (bool, error) {
		cdf, err := MDCWaitCDF(c, rho*float64(c)/s, s, wait)
		return 1-cdf >= share, err
	}
	lo, hi := 0.0, 0.5
	for {
		bad, err := over(hi)
		if err != nil {
			return 0, err
		}
		if bad {
			break
		}
		lo, hi = hi, (1+hi)/2
	}
	for hi-lo > 1e-9 {
		m := (lo + hi) / 2
		bad, err := over(m)
		if err != nil {
			return 0, err
		}
		if bad {
			hi = m
		} else {
			lo = m
		}
	}
	return lo * float64(c) / s, nil
}

// errorPct is the signed error of capacity against truth, in percent
// (null when there is no capacity).
func errorPct(capacity *float64, truth float64) *float64 {
	if capacity == nil || truth <= 0 {
		return nil
	}
	e := 100 * (*capacity - truth) / truth
	e = math.Round(e*1000) / 1000
	return &e
}
