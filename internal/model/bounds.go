package model

import "math"

// curve is a fitted model's prediction of throughput (calls/s) and mean
// response time (ms) at a load.
type curve interface {
	Throughput(n float64) float64
	ResponseTimeMs(n float64) float64
}

// BoundsParams are the parameters of the asymptotic-bounds model: the
// response time of a call that does not queue, and the plateau throughput.
type BoundsParams struct {
	R0Ms    float64 `json:"r0_ms"`   // R0, response time at light load, ms
	Plateau float64 `json:"plateau"` // X*, calls/s the service levels off at
}

// Throughput is min(N/R0, X*), calls/s: below the knee every call in
// flight is served at once, above it the service is saturated.
func (b BoundsParams) Throughput(n float64) float64 {
	if b.R0Ms <= 0 {
		return b.Plateau
	}
	return math.Min(1000*n/b.R0Ms, b.Plateau)
}

// ResponseTimeMs is max(R0, N/X*) by Little's law, in milliseconds: R0
// below the knee, queueing above it; +Inf when X* is 0.
func (b BoundsParams) ResponseTimeMs(n float64) float64 {
	if b.Plateau <= 0 {
		return math.Inf(1)
	}
	return math.Max(b.R0Ms, 1000*n/b.Plateau)
}

// Knee is the load N* = X*·R0 at which the two bounds meet.
func (b BoundsParams) Knee() float64 {
	return b.Plateau * b.R0Ms / 1000
}

// Bounds is the asymptotic-bounds model fitted to throughput against load:
// X(N) = min(N/R0, X*) (Denning and Buzen's bounds of a closed system, the
// shape of a service with a fixed number of slots).
type Bounds struct {
	BoundsParams
	KneeLoad      float64 `json:"knee_load"`      // N* = X*·R0, calls in flight
	R2            float64 `json:"r2"`             // coefficient of determination of the throughput fit
	BIC           float64 `json:"bic"`            // Bayesian information criterion of the throughput fit
	Points        int     `json:"points"`         // quanta fitted
	LightPoints   int     `json:"light_points"`   // quanta whose response times gave R0
	PlateauPoints int     `json:"plateau_points"` // quanta above the knee, which gave X*
	// R0HalfMs is the half-width of the 95% t interval of R0 from the
	// light quanta, ms: the intervals of Predict reach what the bounds
	// give with R0 at either end of it.
	R0HalfMs float64 `json:"r0_half_ms,omitempty"`
}

// boundsParamCount is the number of parameters of the bounds model, R0 and X*.
const boundsParamCount = 2

// newBounds describes the bounds fit b of p.
func newBounds(p points, f boundsFit) *Bounds {
	return &Bounds{
		BoundsParams:  f.params,
		KneeLoad:      f.params.Knee(),
		R2:            rSquared(p.x, p.rssOf(f.params)),
		BIC:           p.bicOf(p.rssOf(f.params), boundsParamCount),
		Points:        len(p.n),
		LightPoints:   len(f.light),
		PlateauPoints: f.plateau,
		R0HalfMs:      p.lightRTHalfWidth(f.light, p.upTo(p.timed(f.order), f.params.Knee()), f.params.R0Ms),
	}
}
