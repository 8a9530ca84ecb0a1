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
	// Decline tests the quanta beyond the peak for the fall in throughput
	// that κ implies; nil when κ = 0 (and in a model.json of an older
	// version, whose USL predicts the decline). When the test does not
	// show it, the USL predicts PeakThroughput at every load beyond
	// PeakLoad.
	Decline *Decline `json:"decline,omitempty"`
}

// Params returns the fitted λ, σ, κ.
func (u *USL) Params() Params {
	return Params{u.Lambda, u.Sigma, u.Kappa}
}

// FlatBeyondPeak reports whether the USL is held at its peak throughput
// beyond its peak load: κ > 0 and the data do not show the decline.
func (u *USL) FlatBeyondPeak() bool {
	return u.Kappa > 0 && u.Decline != nil && !u.Decline.Shown
}

// Throughput is the throughput the USL predicts at load n, calls/s: the
// fitted curve, held at its peak beyond the peak load when FlatBeyondPeak.
func (u *USL) Throughput(n float64) float64 {
	return u.curve().Throughput(n)
}

// ResponseTimeMs is the mean response time the USL predicts at load n by
// Little's law, ms.
func (u *USL) ResponseTimeMs(n float64) float64 {
	return u.curve().ResponseTimeMs(n)
}

// curve is the USL as it predicts.
func (u *USL) curve() uslCurve {
	return uslCurve{q: u.Params(), flat: u.FlatBeyondPeak()}
}

// paramCount is the number of parameters of the USL fit: 3 with κ, 2
// without.
func (u *USL) paramCount() int {
	if u.Kappa > 0 {
		return 3
	}
	return 2
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

// newUSL describes the fit q of p, made with the held parameters fixed:
// with κ > 0, whether the data show the decline beyond the peak, and the
// R² and BIC of the curve as it predicts.
func newUSL(p points, q Params, held hold) USL {
	lo, hi := minMax(p.n)
	u := USL{
		Lambda: q[pLambda], Sigma: q[pSigma], Kappa: q[pKappa],
		Points: len(p.n), MinLoad: lo, MaxLoad: hi,
	}
	if n, x, ok := q.Peak(); ok {
		u.PeakLoad, u.PeakThroughput = n, x
		d := p.declineBeyond(n)
		u.Decline = &d
	}
	rss := p.rssOf(u.curve())
	u.R2, u.BIC = rSquared(p.x, rss), p.bicOf(rss, len(freeOf(held)))
	return u
}
