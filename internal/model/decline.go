package model

import "math"

// The test for a decline beyond the USL's peak.
const (
	declineLevel = 0.05 // one-sided level
	// declineReach is how far beyond the peak load, as a multiple of it,
	// the quanta must reach for the test to be made: a USL curve falls by
	// only some 2.5% from its peak to 1.25 times the peak load, which the
	// noise of a quantum hides, and over a narrower range of loads the
	// slope is that of the noise (a client stall that delays completions
	// also keeps calls in flight longer: more load, less throughput).
	declineReach = 1.25
)

// Decline is the test of whether the throughput of the quanta at or beyond
// the USL's peak load falls with load: the least-squares slope of their
// throughput against load, against Student's t with Points−2 degrees of
// freedom, one-sided at 5%. It is made when at least 3 quanta lie at or
// beyond the peak and the highest load reaches 1.25 times the peak load.
// When it is not made or does not show
// a decline, the data are flat within their noise beyond the peak (or do
// not go far enough beyond it to tell) and the USL predicts its peak
// throughput at every higher load rather than the decline κ implies.
type Decline struct {
	Points   int     `json:"points"`   // quanta at or beyond the peak load
	Slope    float64 `json:"slope"`    // calls/s per call in flight; 0 when untested
	T        float64 `json:"t"`        // the slope over its standard error; 0 when untested or the quanta lie on a line
	Critical float64 `json:"critical"` // the t below which the decline is shown (negative); 0 when untested
	Shown    bool    `json:"shown"`    // the data show the decline: T < Critical (or an exact line that falls)
}

// declineBeyond tests the quanta of p at loads of at least peak for a
// falling throughput.
func (p points) declineBeyond(peak float64) Decline {
	var d Decline
	var sn, sx, top float64
	for i, n := range p.n {
		if n >= peak {
			d.Points++
			sn, sx, top = sn+n, sx+p.x[i], math.Max(top, n)
		}
	}
	if d.Points < 3 || top < declineReach*peak {
		return d
	}
	m := float64(d.Points)
	mn, mx := sn/m, sx/m
	var snn, snx, sxx float64
	for i, n := range p.n {
		if n >= peak {
			dn, dx := n-mn, p.x[i]-mx
			snn, snx, sxx = snn+dn*dn, snx+dn*dx, sxx+dx*dx
		}
	}
	if !(snn > 0) {
		return d
	}
	d.Slope = snx / snn
	d.Critical = -tQuantile(1-declineLevel, d.Points-2)
	resid := math.Max(0, sxx-d.Slope*snx) / (m - 2)
	if se := math.Sqrt(resid / snn); se > 0 {
		d.T = d.Slope / se
		d.Shown = d.T < d.Critical
	} else {
		d.Shown = d.Slope < 0
	}
	return d
}

// tQuantile returns the p-quantile of Student's t with df > 0 degrees of
// freedom, p in (0.5, 1): exact for 1 and 2 degrees of freedom, else the
// Cornish–Fisher expansion about the normal quantile (Abramowitz and
// Stegun 26.7.5), within 0.2% from 3 degrees of freedom on.
func tQuantile(p float64, df int) float64 {
	switch df {
	case 1:
		return math.Tan(math.Pi * (p - 0.5))
	case 2:
		return (2*p - 1) / math.Sqrt(2*p*(1-p))
	}
	z := math.Sqrt2 * math.Erfinv(2*p-1)
	v := float64(df)
	z2 := z * z
	g1 := z * (z2 + 1) / 4
	g2 := z * ((5*z2+16)*z2 + 3) / 96
	g3 := z * (((3*z2+19)*z2+17)*z2 - 15) / 384
	g4 := z * ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) / 92160
	return z + g1/v + g2/(v*v) + g3/(v*v*v) + g4/(v*v*v*v)
}
