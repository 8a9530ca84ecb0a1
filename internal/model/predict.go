package model

import "github.com/diperf/diperf/internal/stats"

// Interval is a predicted value and its 95% bootstrap confidence interval:
// Value from the fitted parameters, Low and High the 2.5th and 97.5th
// percentiles (nearest rank) of the bootstrap predictions, widened to hold
// Value (Low ≤ Value ≤ High).
type Interval = stats.Interval

// Kinds of Prediction.Bound.
const (
	BoundInterval = "interval" // a 95% interval: Value, Low and High
	BoundLower    = "lower"    // a lower bound: Low alone; Value NaN and High +Inf (null in JSON)
)

// Prediction is what the model expects at one load.
type Prediction struct {
	Load           float64  `json:"load"`             // calls in flight
	Model          string   `json:"model"`            // the model that predicts: ModelUSL or ModelBounds
	Bound          string   `json:"bound"`            // BoundInterval or BoundLower
	Throughput     Interval `json:"throughput"`       // calls/s
	ResponseTimeMs Interval `json:"response_time_ms"` // mean response time, ms
	// Extrapolated is true when Load lies outside the loads the run
	// tested (by more than LoadSlack).
	Extrapolated bool `json:"extrapolated"`
	// Note says what the prediction cannot know: set with BoundLower.
	Note string `json:"note,omitempty"`
}

// LoadSlack is how far (relative) outside the measured loads a prediction
// may be before it is called an extrapolation: a run holding 20 calls in
// flight measures a mean load just under 20.
const LoadSlack = 0.01

// Predict returns the throughput and mean response time the chosen model
// expects at load n (calls in flight). Within the tested range, and
// beyond it when the data show the service saturated, they come with 95%
// confidence intervals of the mean from the bootstrap refits, widened to
// reach what the models of Selection.Covered predict: they do not include
// the scatter of a single quantum. Beyond the tested range of a run that
// did not saturate, no model knows where the knee is: Predict gives lower
// bounds only (see lowerBound). Both intervals are zero when n is not
// positive.
func (m *Model) Predict(n float64) Prediction {
	if !(n > 0) {
		return Prediction{Load: n, Model: m.Predictor()}
	}
	pr := m.interval(n)
	lo, hi := m.USL.MinLoad, m.USL.MaxLoad
	pr.Extrapolated = n < lo*(1-LoadSlack) || n > hi*(1+LoadSlack)
	if n > hi*(1+LoadSlack) && !m.Saturated() {
		return m.lowerBound(n)
	}
	return pr
}

// Saturated reports whether the data show the service saturated within
// the tested range; false for a model.json of an older version.
func (m *Model) Saturated() bool {
	return m.Saturation != nil && m.Saturation.Shown
}

// interval is the two-sided prediction at load n > 0.
func (m *Model) interval(n float64) Prediction {
	pr := Prediction{Load: n, Model: m.Predictor(), Bound: BoundInterval}
	fit, refits := m.curves()
	xs := make([]float64, len(refits))
	rs := make([]float64, len(refits))
	for i, c := range refits {
		xs[i], rs[i] = c.Throughput(n), c.ResponseTimeMs(n)
	}
	pr.Throughput = interval(fit.Throughput(n), xs)
	pr.ResponseTimeMs = interval(fit.ResponseTimeMs(n), rs)
	for _, name := range m.Selection.Covered {
		if c := m.fit(name); c != nil && name != pr.Model {
			pr.Throughput = pr.Throughput.Cover(c.Throughput(n))
			pr.ResponseTimeMs = pr.ResponseTimeMs.Cover(c.ResponseTimeMs(n))
		}
	}
	return m.coverLine(m.coverPlateau(pr))
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
	return m.fit(m.Predictor())
}

// fit returns the fitted curve of the model named name, nil when there is
// none.
func (m *Model) fit(name string) curve {
	switch {
	case name == ModelUSL:
		return m.USL.curve()
	case name == ModelBounds && m.Bounds != nil:
		return m.Bounds.BoundsParams
	default:
		return nil
	}
}

// curves returns the chosen model's fitted curve and its bootstrap refits,
// each held flat beyond its own peak when the fitted USL is.
func (m *Model) curves() (curve, []curve) {
	var refits []curve
	if m.Predictor() == ModelBounds {
		for _, b := range m.Bootstrap.Bounds {
			refits = append(refits, b)
		}
	} else {
		flat := m.USL.FlatBeyondPeak()
		for _, q := range m.Bootstrap.Params {
			refits = append(refits, uslCurve{q: q, flat: flat})
		}
	}
	return m.fitted(), refits
}

// interval puts value between the 2.5th and 97.5th percentiles of
// samples, which it sorts; with no samples the interval is the value alone.
func interval(value float64, samples []float64) Interval {
	return stats.BootstrapInterval(value, samples).Cover(value)
}
