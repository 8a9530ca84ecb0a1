package model

import "math"

// Floors of the residual variance RSS/n in the Bayesian information
// criterion, whose logarithm is −Inf for a perfect fit.
const (
	// relResidualFloor: residuals below this fraction of the largest
	// throughput are below what float64 arithmetic on the fit resolves.
	relResidualFloor = 1e-9
	// absResidualFloor keeps the floor positive (and its logarithm finite)
	// for data that are all zero, (calls/s)².
	absResidualFloor = 1e-300
)

// residualFloor is the smallest residual variance, (calls/s)², that the
// throughputs of p resolve, and so the smallest the BIC uses: the
// variance of rounding to a whole number of calls per quantum,
// resolution²/12 (a quantum's throughput is a count of calls over the
// quantum's length, so it moves in steps of 1/quantum calls/s), and at
// least (1e-9 × the largest throughput)². A fit closer to the data than
// this is not closer in any sense the data can show; without the floor a
// perfect fit (constant throughputs that a model matches exactly, as one
// tester calling at a fixed interval gives) has RSS = 0 and a BIC of −Inf.
func (p points) residualFloor() float64 {
	var top float64
	for _, x := range p.x {
		top = math.Max(top, math.Abs(x))
	}
	rel := relResidualFloor * top
	return math.Max(math.Max(p.res*p.res/12, rel*rel), absResidualFloor)
}

// resolution is the step in which the throughput of a quantum of quantumS
// seconds moves, calls/s: one call per quantum. 0 when the quantum is
// unknown.
func resolution(quantumS float64) float64 {
	if !(quantumS > 0) || math.IsInf(quantumS, 0) {
		return 0
	}
	return 1 / quantumS
}
