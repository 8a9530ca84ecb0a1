package model

import (
	"fmt"
	"math"
)

// lowerBound is the prediction at a load n beyond the tested range of a
// run that did not saturate. The capacity is unknown: the service may
// saturate just beyond the highest load tested, or far beyond it. What
// the data support is a lower bound, under the assumption that the
// service's throughput does not fall as load grows (a closed system
// without a retrograde region, as every service the operational laws
// bound is up to its knee): X(n) ≥ X(Lmax), of which the lower end of
// the 95% interval at the highest load tested, Lmax, is the bound.
// Likewise the mean response time is at least R(Lmax), assuming it does
// not fall as load grows (a call does not get faster when more are in
// flight, as in a closed network of queues); and whatever the service, at
// least the light-load response time R0, since X(N) ≤ N/R0 (the
// asymptotic bounds).
func (m *Model) lowerBound(n float64) Prediction {
	top := m.interval(m.USL.MaxLoad)
	return Prediction{
		Load: n, Model: m.Predictor(), Bound: BoundLower, Extrapolated: true,
		Throughput:     Interval{Value: math.NaN(), Low: top.Throughput.Low, High: math.Inf(1)},
		ResponseTimeMs: Interval{Value: math.NaN(), Low: top.ResponseTimeMs.Low, High: math.Inf(1)},
		Note: fmt.Sprintf("capacity unknown: the run did not saturate within the tested range (load ≤ %.3g); "+
			"beyond it lower bounds only, assuming throughput and response time do not fall as load grows", m.USL.MaxLoad),
	}
}
