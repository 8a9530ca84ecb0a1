package model

import "math"

// Indices of the USL parameters in a Params.
const (
	pLambda = iota // λ, calls/s at one call in flight
	pSigma         // σ, contention
	pKappa         // κ, coherency
	nParams
)

// Params holds the USL parameters λ, σ, κ, in that order.
type Params [nParams]float64

// paramLow and paramHigh bound the parameters.
var (
	paramLow  = Params{0, 0, 0}
	paramHigh = Params{math.Inf(1), 1, math.Inf(1)}
)

// denom is the USL denominator 1 + σ(N−1) + κN(N−1).
func (p Params) denom(n float64) float64 {
	return 1 + p[pSigma]*(n-1) + p[pKappa]*n*(n-1)
}

// Throughput is the USL throughput at load n, calls/s.
func (p Params) Throughput(n float64) float64 {
	return p[pLambda] * n / p.denom(n)
}

// ResponseTimeMs is the mean response time at load n by Little's law,
// R = N/X, in milliseconds; +Inf when λ is 0.
func (p Params) ResponseTimeMs(n float64) float64 {
	if p[pLambda] <= 0 {
		return math.Inf(1)
	}
	return 1000 * p.denom(n) / p[pLambda]
}

// Peak returns the load at which throughput peaks, sqrt((1−σ)/κ), and the
// throughput there; ok is false when κ = 0 and throughput only levels off,
// and when σ = 1: throughput then falls from the lowest load on, and the
// formula's peak at load 0 is 0/0.
func (p Params) Peak() (load, throughput float64, ok bool) {
	if p[pKappa] <= 0 || p[pSigma] >= 1 {
		return 0, 0, false
	}
	load = math.Sqrt((1 - p[pSigma]) / p[pKappa])
	return load, p.Throughput(load), true
}

// gradient returns the partial derivatives of the USL throughput at load n
// with respect to λ, σ and κ.
func (p Params) gradient(n float64) Params {
	d := p.denom(n)
	g := -p[pLambda] * n * (n - 1) / (d * d)
	return Params{n / d, g, g * n}
}

// uslCurve is the USL with parameters q as it predicts: when flat, held at
// its peak throughput beyond its peak load, where the data show no
// decline, and with Little's law giving the response time there.
type uslCurve struct {
	q    Params
	flat bool
}

// load is where on the USL curve c reads a load of n: n itself, or the
// peak load when c is flat and n lies beyond it.
func (c uslCurve) load(n float64) float64 {
	if !c.flat {
		return n
	}
	if peak, _, ok := c.q.Peak(); ok && n > peak {
		return peak
	}
	return n
}

// Throughput is the USL throughput at load n, held at the peak's beyond
// it when c is flat, calls/s.
func (c uslCurve) Throughput(n float64) float64 {
	return c.q.Throughput(c.load(n))
}

// ResponseTimeMs is the mean response time at load n by Little's law,
// R = N/X(N), in milliseconds.
func (c uslCurve) ResponseTimeMs(n float64) float64 {
	at := c.load(n)
	if at == n {
		return c.q.ResponseTimeMs(n)
	}
	if x := c.q.Throughput(at); x > 0 {
		return 1000 * n / x
	}
	return math.Inf(1)
}
