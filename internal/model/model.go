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

// Names of the models, as Model.Chosen and Prediction.Model give them.
const (
	ModelUSL    = "usl"    // the Universal Scalability Law
	ModelBounds = "bounds" // the asymptotic bounds, min(N/R0, X*)
)

// Model is the fitted models of performance against load; it is the
// content of model.json, and a Model read back predicts exactly as the one
// written.
type Model struct {
	// Chosen names the model that predicts, ModelUSL or ModelBounds; empty
	// (in a model.json of an older version) means ModelUSL.
	Chosen    string    `json:"model"`
	Selection Selection `json:"selection"` // why Chosen predicts
	USL       USL       `json:"usl"`       // always fitted
	// Bounds is nil when the data show no plateau to fit it to.
	Bounds       *Bounds      `json:"bounds,omitempty"`
	ResponseTime ResponseTime `json:"response_time"` // of the chosen model
	Bootstrap    Bootstrap    `json:"bootstrap"`     // of the chosen model
	// Saturation says whether the data show the service saturated within
	// the tested range; nil in a model.json of an older version, which
	// Predict reads as not shown.
	Saturation *Saturation `json:"saturation,omitempty"`
	// TesterBound is the number of quanta left out of the fit because the
	// testers, not the service, limited their load (analyze.Quantum's
	// TesterBound).
	TesterBound int `json:"tester_bound_quanta,omitempty"`
}

// ResponseTime checks the response times that Little's law derives from
// the chosen model's throughput, R(N) = N / X(N), against the measured
// per-quantum means.
type ResponseTime struct {
	R2     float64 `json:"r2"`     // coefficient of determination; may be negative
	Points int     `json:"points"` // quanta with a response time compared
}

// Bootstrap holds the bootstrap refits of the chosen model, which Predict
// draws its intervals from: Params for the USL, Bounds for the bounds.
type Bootstrap struct {
	Resamples int            `json:"resamples"`        // refits made
	Seed      uint64         `json:"seed"`             // seed of the generator
	Method    string         `json:"method"`           // how the pseudo-data were drawn
	Params    []Params       `json:"params,omitempty"` // λ, σ, κ of each USL refit
	Bounds    []BoundsParams `json:"bounds,omitempty"` // R0, X* of each bounds refit
}

// Fit fits the USL and the bounds model to the quanta of r in which a
// tester was active, the load was positive and the testers did not limit
// the load, tests the data for saturation, chooses the model that
// predicts, and bootstraps it. The bounds model applies only where the
// data show its plateau. It fails, wrapping ErrTooFewPoints, with
// fewer than MinPoints such quanta, a single load, or no call completed.
func Fit(r *analyze.Result) (*Model, error) {
	pts, err := throughputPoints(r)
	if err != nil {
		return nil, err
	}
	q, held := pts.fitUSL()
	m := &Model{USL: newUSL(pts, q, held), TesterBound: testerBound(r)}
	bf, plateau, ok := pts.fitPlateau()
	if ok {
		m.Bounds = newBounds(pts, bf)
	}
	m.Saturation = pts.saturation(&m.USL, bf, plateau)
	m.Chosen, m.Selection = choose(&m.USL, m.Bounds)
	m.ResponseTime = responseTimeCheck(r, m.fitted())
	if m.Chosen == ModelBounds {
		m.Bootstrap = pts.bootstrapBounds(bf, DefaultResamples, DefaultSeed)
	} else {
		m.Bootstrap = pts.bootstrapUSL(q, held, DefaultResamples, DefaultSeed)
	}
	return m, nil
}

// responseTimeCheck compares Little's-law response times from c with the
// mean response time of every usable quantum that completed a call.
func responseTimeCheck(r *analyze.Result, c curve) ResponseTime {
	var obs []float64
	var rss float64
	for i := range r.Quanta {
		qu := &r.Quanta[i]
		if !usable(qu) || qu.RT.N == 0 {
			continue
		}
		d := qu.RT.Mean - c.ResponseTimeMs(qu.Load)
		obs = append(obs, qu.RT.Mean)
		rss += d * d
	}
	if len(obs) == 0 || math.IsNaN(rss) || math.IsInf(rss, 0) {
		return ResponseTime{Points: len(obs)}
	}
	return ResponseTime{R2: rSquared(obs, rss), Points: len(obs)}
}

// fitPlateau fits the bounds model to p and tests its plateau; ok is true
// when the fit applies and the data show the plateau.
func (p points) fitPlateau() (boundsFit, Saturation, bool) {
	bf, ok := p.fitBounds()
	if !ok {
		return bf, Saturation{}, false
	}
	s := p.plateauShown(bf.params)
	return bf, s, s.Shown
}

// testerBound counts the quanta of r that the testers limited.
func testerBound(r *analyze.Result) int {
	var k int
	for i := range r.Quanta {
		if r.Quanta[i].TesterBound != "" {
			k++
		}
	}
	return k
}
