package model

import (
	"fmt"
	"math"
)

// selectionCriterion says in model.json how the predicting model is chosen.
const selectionCriterion = "lowest BIC of the throughput fit; the USL on a tie or when the bounds do not apply"

// Selection records how Fit chose the model that predicts.
type Selection struct {
	Criterion string `json:"criterion"` // the rule
	Reason    string `json:"reason"`    // how it applied to these data
}

// choose returns the model that predicts, u or b (nil when the bounds
// model does not apply), by the Bayesian information criterion.
func choose(u *USL, b *Bounds) (string, Selection) {
	s := Selection{Criterion: selectionCriterion}
	switch {
	case b == nil:
		s.Reason = fmt.Sprintf("no plateau: fewer than max(%d, %.0f%% of the quanta) above a knee, so the bounds model does not apply",
			plateauMin, 100*plateauShare)
		return ModelUSL, s
	case b.BIC < u.BIC:
		s.Reason = fmt.Sprintf("bounds BIC %.1f below USL BIC %.1f", b.BIC, u.BIC)
		return ModelBounds, s
	default:
		s.Reason = fmt.Sprintf("USL BIC %.1f not above bounds BIC %.1f", u.BIC, b.BIC)
		return ModelUSL, s
	}
}

// bicOf is the Bayesian information criterion of a least-squares fit of
// p's throughputs with k parameters and residual sum of squares rss, for
// Gaussian errors: n·ln(RSS/n) + k·ln(n).
func (p points) bicOf(rss float64, k int) float64 {
	n := float64(len(p.n))
	rss = math.Max(rss, math.SmallestNonzeroFloat64)
	return n*math.Log(rss/n) + float64(k)*math.Log(n)
}
