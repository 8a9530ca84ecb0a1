package model

import (
	"math"
	"slices"
)

// Percentiles of the bootstrap predictions that bound an Interval.
const (
	lowPercentile  = 2.5
	highPercentile = 97.5
)

// Interval is a predicted value and its 95% bootstrap confidence interval.
type Interval struct {
	Value float64 `json:"value"` // from the fitted parameters
	Low   float64 `json:"low"`   // 2.5% percentile of the bootstrap predictions (at most Value)
	High  float64 `json:"high"`  // 97.5% percentile of the bootstrap predictions (at least Value)
}

// Prediction is what the model expects at one load.
type Prediction struct {
	Load           float64  `json:"load"`             // calls in flight
	Model          string   `json:"model"`            // the model that predicts: ModelUSL or ModelBounds
	Throughput     Interval `json:"throughput"`       // calls/s
	ResponseTimeMs Interval `json:"response_time_ms"` // mean response time, ms
}

// Predict returns the throughput and mean response time the chosen model
// expects at load n (calls in flight), with 95% confidence intervals of the
// mean from the bootstrap refits: they do not include the scatter of a
// single quantum. Both intervals are zero when n is not positive.
func (m *Model) Predict(n float64) Prediction {
	pr := Prediction{Load: n, Model: m.Predictor()}
	if !(n > 0) {
		return pr
	}
	fit, refits := m.curves()
	xs := make([]float64, len(refits))
	rs := make([]float64, len(refits))
	for i, c := range refits {
		xs[i], rs[i] = c.Throughput(n), c.ResponseTimeMs(n)
	}
	pr.Throughput = interval(fit.Throughput(n), xs)
	pr.ResponseTimeMs = interval(fit.ResponseTimeMs(n), rs)
	return pr
}

// Throughput is the throughput the chosen model fitted at load n, calls/s,
// without an interval: what a report draws.
func (m *Model) Throughput(n float64) float64 {
	return m.fitted().Throughput(n)
}

// ResponseTimeMs is the mean response time the chosen model fitted at load
// n, ms, without an interval.
func (m *Model) ResponseTimeMs(n float64) float64 {
	return m.fitted().ResponseTimeMs(n)
}

// Predictor names the model that predicts: Chosen, or ModelUSL when Chosen
// is empty (a model.json of an older version) or names a missing fit.
func (m *Model) Predictor() string {
	if m.Chosen == ModelBounds && m.Bounds != nil {
		return ModelBounds
	}
	return ModelUSL
}

// fitted returns the chosen model's fitted curve.
func (m *Model) fitted() curve {
	if m.Predictor() == ModelBounds {
		return m.Bounds.BoundsParams
	}
	return m.USL.Params()
}

// curves returns the chosen model's fitted curve and its bootstrap refits.
func (m *Model) curves() (curve, []curve) {
	var refits []curve
	if m.Predictor() == ModelBounds {
		for _, b := range m.Bootstrap.Bounds {
			refits = append(refits, b)
		}
	} else {
		for _, q := range m.Bootstrap.Params {
			refits = append(refits, q)
		}
	}
	return m.fitted(), refits
}

// interval puts value between the low and high percentiles of samples,
// which it sorts; with no samples the interval is the value alone.
func interval(value float64, samples []float64) Interval {
	iv := Interval{Value: value, Low: value, High: value}
	if len(samples) == 0 {
		return iv
	}
	slices.Sort(samples)
	iv.Low = math.Min(value, percentile(samples, lowPercentile))
	iv.High = math.Max(value, percentile(samples, highPercentile))
	return iv
}

// percentile returns the pc-th percentile of sorted, interpolating linearly
// between order statistics.
func percentile(sorted []float64, pc float64) float64 {
	pos := pc / 100 * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}
