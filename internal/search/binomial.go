package search

import "math"

// Decisions of an SLO or a step.
const (
	Undecided     = ""
	Meets         = "meets"
	Fails         = "fails"
	TesterLimited = "tester-limited" // a step only: the testers were the limit
	Unmeasured    = "unmeasured"     // a step only: cut (budget, refused seconds) before a call was measured
)

// sprt is Wald's sequential probability ratio test of a binomial share p
// against the objective b: H0 p = p0 = b·(1−δ) (meets) against H1 p = p1
// = b·(1+δ) (fails), δ the indifference. It errs with probability at most
// α when p ≤ p0 (says fails) and β when p ≥ p1 (says meets), however
// often it looks; between p0 and p1 it may take long, and the step's
// time limit decides by the point estimate.
type sprt struct {
	up, down float64 // log-likelihood ratio of one call over, of one under
	a, b     float64 // decide fails at llr ≥ a, meets at llr ≤ b
}

// newSPRT is the test of share b with indifference delta and error
// rates alpha, beta.
func newSPRT(b, delta, alpha, beta float64) sprt {
	p0, p1 := b*(1-delta), math.Min(b*(1+delta), (1+b)/2)
	return sprt{
		up:   math.Log(p1 / p0),
		down: math.Log((1 - p1) / (1 - p0)),
		a:    math.Log((1 - beta) / alpha),
		b:    math.Log(beta / (1 - alpha)),
	}
}

// decide is the test's decision after k of n calls were over.
func (t sprt) decide(k, n uint64) string {
	llr := float64(k)*t.up + float64(n-k)*t.down
	switch {
	case llr >= t.a:
		return Fails
	case llr <= t.b:
		return Meets
	}
	return Undecided
}

// z95 is the standard normal's 97.5th percentile: two-sided 95%.
const z95 = 1.959963984540054

// wilson is the 95% Wilson score interval of the share k/n (the
// interval the records show; the decision is the SPRT's).
func wilson(k, n uint64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	nf, p := float64(n), float64(k)/float64(n)
	z2 := z95 * z95
	c := (p + z2/(2*nf)) / (1 + z2/nf)
	h := z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	return math.Max(0, c-h), math.Min(1, c+h)
}
