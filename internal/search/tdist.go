package search

import "math"

// tUpper is P(T > t) for Student's t with nu (≥ 1) degrees of freedom,
// t ≥ 0, by the finite series of Abramowitz and Stegun 26.7.3 and 26.7.4
// for a whole number of degrees of freedom.
func tUpper(t float64, nu int) float64 {
	th := math.Atan(t / math.Sqrt(float64(nu)))
	c2, s := math.Cos(th)*math.Cos(th), math.Sin(th)
	var a float64 // P(|T| < t)
	if nu%2 == 1 {
		sum, term := 0.0, 1.0
		if nu > 1 {
			sum = 1
			for k := 3; k <= nu-2; k += 2 {
				term *= float64(k-1) / float64(k) * c2
				sum += term
			}
		}
		a = 2 / math.Pi * (th + s*math.Cos(th)*sum)
	} else {
		sum, term := 1.0, 1.0
		for k := 2; k <= nu-2; k += 2 {
			term *= float64(k-1) / float64(k) * c2
			sum += term
		}
		a = s * sum
	}
	return (1 - a) / 2
}

// tQuantile is the t with P(T > t) = p (0 < p < 1/2) for nu degrees of
// freedom, by bisection on tUpper.
func tQuantile(p float64, nu int) float64 {
	lo, hi := 0.0, 1e7
	for range 200 {
		mid := (lo + hi) / 2
		if tUpper(mid, nu) > p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
