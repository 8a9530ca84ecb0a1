package model

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
	BIC            float64 `json:"bic"`      // Bayesian information criterion of the throughput fit
	Points         int     `json:"points"`   // quanta fitted
	MinLoad        float64 `json:"min_load"` // lowest load fitted: predictions outside MinLoad..MaxLoad extrapolate
	MaxLoad        float64 `json:"max_load"` // highest load fitted
}

// Params returns the fitted λ, σ, κ.
func (u *USL) Params() Params {
	return Params{u.Lambda, u.Sigma, u.Kappa}
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

// bic is the Bayesian information criterion of the USL fit q with k
// parameters.
func (p points) bic(q Params, k int) float64 {
	return p.bicOf(p.rss(q), k)
}

// newUSL describes the fit q of p, made with the held parameters fixed.
func newUSL(p points, q Params, held hold) USL {
	lo, hi := minMax(p.n)
	rss := p.rss(q)
	u := USL{
		Lambda: q[pLambda], Sigma: q[pSigma], Kappa: q[pKappa],
		R2: rSquared(p.x, rss), BIC: p.bicOf(rss, len(freeOf(held))),
		Points: len(p.n), MinLoad: lo, MaxLoad: hi,
	}
	if n, x, ok := q.Peak(); ok {
		u.PeakLoad, u.PeakThroughput = n, x
	}
	return u
}
