package model

import "math"

// clopperPearson is the exact 95% confidence interval of a binomial
// proportion, k successes in n trials, by bisection on the binomial tail.
func clopperPearson(k, n int) (lo, hi float64) {
	lo, hi = 0, 1
	if k > 0 {
		lo = bisect(func(p float64) bool { return binomTail(k, n, p) < 0.025 })
	}
	if k < n {
		hi = bisect(func(p float64) bool { return 1-binomTail(k+1, n, p) > 0.025 })
	}
	return lo, hi
}

// binomTail is P(X ≥ k) for X binomial(n, p).
func binomTail(k, n int, p float64) float64 {
	var s float64
	for i := k; i <= n; i++ {
		lg, _ := math.Lgamma(float64(n + 1))
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		s += math.Exp(lg - a - b + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return s
}

// bisect returns the p in (0, 1) where below turns from true to false.
func bisect(below func(float64) bool) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
