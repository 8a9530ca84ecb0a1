package model

import (
	"fmt"
	"math"
)

// Margins of the Bayesian information criterion in the choice of the
// model that predicts, on Kass and Raftery's scale (a difference below 2
// is not worth more than a bare mention, 6 or more is strong evidence).
const (
	// tieBIC: the USL with κ, a parameter more than the bounds, must have
	// a BIC lower by more than this to predict: a near tie goes to the
	// model with fewer parameters.
	tieBIC = 2
	// bendBIC replaces tieBIC when the data do not show the decline that
	// κ implies: κ then only bends the curve near the knee, which the
	// bounds' corner does with a parameter fewer.
	bendBIC = 6
	// coverBIC: a model whose BIC is within this of the chosen one's is
	// not ruled out (its BIC weight is at least e⁻³ ≈ 5% of the chosen
	// one's), and the intervals of Predict cover what it predicts.
	coverBIC = 6
)

// selectionCriterion says in model.json how the predicting model is chosen.
const selectionCriterion = "lowest BIC of the throughput fit, the USL on a tie; the USL with κ needs a BIC lower than the bounds' by more than 2 " +
	"(by more than 6 when the data beyond its peak do not decline); the intervals cover every model within 6 of the chosen one's BIC"

// Selection records how Fit chose the model that predicts.
type Selection struct {
	Criterion string `json:"criterion"` // the rule
	Reason    string `json:"reason"`    // how it applied to these data
	// Weights are the BIC weights of the models fitted, exp(−BIC/2)
	// normalised to sum to 1: how far the data favour each. Absent when
	// only the USL applies.
	Weights map[string]float64 `json:"weights,omitempty"`
	// Covered names the models besides the chosen one that the data do not
	// rule out (BIC within 6 of the chosen one's): the intervals of Predict
	// reach what they predict as well.
	Covered []string `json:"covered,omitempty"`
}

// choose returns the model that predicts, u or b (nil when the bounds
// model does not apply), by the Bayesian information criterion and the
// margins above.
func choose(u *USL, b *Bounds) (string, Selection) {
	s := Selection{Criterion: selectionCriterion}
	if b == nil {
		s.Reason = fmt.Sprintf("no plateau shown (fewer than max(%d, %.0f%% of the quanta) above a knee, or their throughput not held below N/R0), "+
			"so the bounds model does not apply", plateauMin, 100*plateauShare)
		return ModelUSL, s
	}
	s.Weights = bicWeights(map[string]float64{ModelUSL: u.BIC, ModelBounds: b.BIC})
	chosen, other := ModelBounds, ModelUSL
	margin := uslMargin(u)
	if u.BIC < b.BIC-margin || (margin == 0 && u.BIC == b.BIC) {
		chosen, other = ModelUSL, ModelBounds
	}
	if math.Abs(u.BIC-b.BIC) <= coverBIC {
		s.Covered = []string{other}
	}
	s.Reason = reason(chosen, u, b, margin)
	return chosen, s
}

// uslMargin is how much lower than the bounds' the BIC of u must be for
// the USL to predict.
func uslMargin(u *USL) float64 {
	switch {
	case u.paramCount() == 2:
		return 0
	case u.FlatBeyondPeak():
		return bendBIC
	default:
		return tieBIC
	}
}

// reason says how the choice of chosen between u and b came about.
func reason(chosen string, u *USL, b *Bounds, margin float64) string {
	switch {
	case chosen == ModelUSL && margin == 0:
		return fmt.Sprintf("USL BIC %.1f not above bounds BIC %.1f", u.BIC, b.BIC)
	case chosen == ModelUSL:
		return fmt.Sprintf("USL BIC %.1f more than %g below bounds BIC %.1f", u.BIC, margin, b.BIC)
	case u.BIC >= b.BIC:
		return fmt.Sprintf("bounds BIC %.1f below USL BIC %.1f", b.BIC, u.BIC)
	case u.FlatBeyondPeak():
		return fmt.Sprintf("USL BIC %.1f less than %g below bounds BIC %.1f, and the data beyond its peak do not decline (t = %.2f): "+
			"its κ only bends the curve, which the bounds do with a parameter fewer", u.BIC, margin, b.BIC, u.Decline.T)
	default:
		return fmt.Sprintf("USL BIC %.1f less than %g below bounds BIC %.1f: a near tie goes to the model with fewer parameters",
			u.BIC, margin, b.BIC)
	}
}

// bicWeights returns exp(−BIC/2) of each model, normalised to sum to 1.
func bicWeights(bic map[string]float64) map[string]float64 {
	best := math.Inf(1)
	for _, v := range bic {
		best = math.Min(best, v)
	}
	w := make(map[string]float64, len(bic))
	var sum float64
	for k, v := range bic {
		w[k] = math.Exp(-(v - best) / 2)
		sum += w[k]
	}
	for k := range w {
		w[k] /= sum
	}
	return w
}

// bicOf is the Bayesian information criterion of a least-squares fit of
// p's throughputs with k parameters and residual sum of squares rss, for
// Gaussian errors: n·ln(max(RSS/n, floor)) + k·ln(n), the floor being p's
// residualFloor: a fit that matches the data to within their resolution
// (a perfect fit, RSS = 0) has a finite BIC, and two such fits differ by
// their parameter counts alone.
func (p points) bicOf(rss float64, k int) float64 {
	n := float64(len(p.n))
	return n*math.Log(math.Max(rss/n, p.residualFloor())) + float64(k)*math.Log(n)
}
