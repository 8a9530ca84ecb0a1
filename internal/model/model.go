package model

import (
	"math"

	"github.com/diperf/diperf/internal/analyze"
)

// Bootstrap settings of Fit.
const (
	DefaultResamples        = 200 // bootstrap refits
	DefaultSeed      uint64 = 1   // seed of the bootstrap's generator
)

// Model is a fitted model of performance against load; it is the content
// of model.json, and a Model read back predicts exactly as the one written.
type Model struct {
	USL          USL          `json:"usl"`
	ResponseTime ResponseTime `json:"response_time"`
	Bootstrap    Bootstrap    `json:"bootstrap"`
}

// USL is the Universal Scalability Law fitted to throughput against load.
type USL struct {
	Lambda float64 `json:"lambda"` // λ, calls/s with one call in flight
	Sigma  float64 `json:"sigma"`  // σ, contention, in [0, 1]
	Kappa  float64 `json:"kappa"`  // κ, coherency, ≥ 0; 0 when the data do not support it
	// PeakLoad is the load N* = sqrt((1−σ)/κ) at which throughput peaks and
	// PeakThroughput the throughput there; both 0 (absent from the JSON)
	// when κ = 0 and throughput only levels off.
	PeakLoad       float64 `json:"peak_load,omitempty"`
	PeakThroughput float64 `json:"peak_throughput,omitempty"`
	R2             float64 `json:"r2"`       // coefficient of determination of the throughput fit
	Points         int     `json:"points"`   // quanta fitted
	MinLoad        float64 `json:"min_load"` // lowest load fitted: predictions outside MinLoad..MaxLoad extrapolate
	MaxLoad        float64 `json:"max_load"` // highest load fitted
}

// ResponseTime checks the response times that Little's law derives from
// the USL, R(N) = N / X(N), against the measured per-quantum means.
type ResponseTime struct {
	R2     float64 `json:"r2"`     // coefficient of determination; may be negative
	Points int     `json:"points"` // quanta with a response time compared
}

// Bootstrap holds the bootstrap refits that Predict draws its intervals
// from.
type Bootstrap struct {
	Resamples int      `json:"resamples"` // refits made
	Seed      uint64   `json:"seed"`      // seed of the generator
	Method    string   `json:"method"`    // how the pseudo-data were drawn
	Params    []Params `json:"params"`    // λ, σ, κ of each refit
}

// bootstrapMethod names the resampling scheme in model.json.
const bootstrapMethod = "wild residual bootstrap, Rademacher weights"

// Params returns the fitted λ, σ, κ.
func (u *USL) Params() Params {
	return Params{u.Lambda, u.Sigma, u.Kappa}
}

// Fit fits the model to the quanta of r in which a tester was active and
// the load was positive. It fails, wrapping ErrTooFewPoints, with fewer
// than MinPoints such quanta, a single load, or no call completed.
func Fit(r *analyze.Result) (*Model, error) {
	pts, err := throughputPoints(r)
	if err != nil {
		return nil, err
	}
	q, held := pts.fitUSL()
	return &Model{
		USL:          newUSL(pts, q),
		ResponseTime: responseTimeCheck(r, q),
		Bootstrap:    pts.bootstrap(q, held, DefaultResamples, DefaultSeed),
	}, nil
}

// fitUSL fits the full USL and the USL with κ = 0 and returns the one the
// Bayesian information criterion prefers, with the parameters it held.
func (p points) fitUSL() (Params, hold) {
	full := p.lm(p.gridStart(false), hold{})
	noKappa := hold{pKappa: true}
	amdahl := p.lm(p.gridStart(true), noKappa)
	if p.bic(amdahl, 2) <= p.bic(full, 3) {
		return amdahl, noKappa
	}
	return full, hold{}
}

// bic is the Bayesian information criterion of a least-squares fit with k
// parameters q, for Gaussian errors: n·ln(RSS/n) + k·ln(n).
func (p points) bic(q Params, k int) float64 {
	n := float64(len(p.n))
	rss := math.Max(p.rss(q), math.SmallestNonzeroFloat64)
	return n*math.Log(rss/n) + float64(k)*math.Log(n)
}

// newUSL describes the fit q of p.
func newUSL(p points, q Params) USL {
	lo, hi := minMax(p.n)
	u := USL{
		Lambda: q[pLambda], Sigma: q[pSigma], Kappa: q[pKappa],
		R2: rSquared(p.x, p.rss(q)), Points: len(p.n), MinLoad: lo, MaxLoad: hi,
	}
	if n, x, ok := q.Peak(); ok {
		u.PeakLoad, u.PeakThroughput = n, x
	}
	return u
}

// responseTimeCheck compares Little's-law response times from q with the
// mean response time of every usable quantum that completed a call.
func responseTimeCheck(r *analyze.Result, q Params) ResponseTime {
	var obs []float64
	var rss float64
	for i := range r.Quanta {
		qu := &r.Quanta[i]
		if !usable(qu) || qu.RT.N == 0 {
			continue
		}
		d := qu.RT.Mean - q.ResponseTimeMs(qu.Load)
		obs = append(obs, qu.RT.Mean)
		rss += d * d
	}
	if len(obs) == 0 || math.IsNaN(rss) || math.IsInf(rss, 0) {
		return ResponseTime{Points: len(obs)}
	}
	return ResponseTime{R2: rSquared(obs, rss), Points: len(obs)}
}
