package model

import (
	"fmt"
	"math"
	"slices"
)

// The test of whether a run saturated the service within the loads it
// tested.
const (
	// plateauReach: the quanta that show a plateau lie at 1.25 times the
	// bounds' knee or more, where the line N/R0 and the plateau differ by
	// 20%, more than a quantum's noise and the round knee of a real
	// closed system (some 3% below the corner near it) account for.
	plateauReach = 1.25
	// plateauRatio: their mean throughput must lie below this fraction of
	// the line N/R0 at their loads, with 95% confidence (one-sided t).
	plateauRatio = 0.9
	plateauLevel = 0.05
)

// Saturation is the evidence, in the quanta fitted, that the service
// saturated within the tested range: a plateau (throughput held below
// what the light-load response time R0 allows, N/R0, while the load grew
// well beyond the knee), or the decline beyond the USL's peak. Without
// it the run did not saturate within the tested range: the capacity is
// unknown, and beyond the highest load tested Predict gives lower bounds
// only.
type Saturation struct {
	Shown  bool   `json:"shown"`  // the data show the service saturated
	Reason string `json:"reason"` // the evidence, or why there is none
	// Points are the quanta at 1.25 times the bounds' knee or more; Ratio
	// their mean throughput over N/R0, and Upper its one-sided 95% upper
	// confidence limit (a plateau is shown when Upper < 0.9). All 0 when
	// no bounds fit was made.
	Points int     `json:"points"`
	Ratio  float64 `json:"ratio"`
	Upper  float64 `json:"upper"`
	// Plateau is the mean throughput of those quanta, calls/s, with its
	// 95% t interval: an estimate of the plateau free of the round knee's
	// pull on the bounds' X*, which the intervals of Predict reach at
	// loads of 1.25 times the knee or more. Absent without a plateau.
	Plateau *Interval `json:"plateau,omitempty"`
	// R0Ms is the light-load response time of a run that did not
	// saturate, ms (0 when it did, or no quantum had a response time):
	// whatever the service, its throughput is at most N/R0 (the
	// asymptotic bounds), which it reaches below its knee; the intervals
	// of Predict within the range reach that line.
	R0Ms float64 `json:"r0_ms,omitempty"`
	// R0HalfMs is the half-width of R0's 95% t interval, ms, its variance
	// from every quantum (all below the knee, which the run never passed).
	R0HalfMs float64 `json:"r0_half_ms,omitempty"`
}

// plateauShown tests the quanta of p at plateauReach times the knee of
// b or more for a throughput held below N/R0.
func (p points) plateauShown(b BoundsParams) Saturation {
	var s Saturation
	var ratios, xs []float64
	knee := b.Knee()
	for i, n := range p.n {
		if n >= plateauReach*knee && b.R0Ms > 0 {
			ratios = append(ratios, p.x[i]*b.R0Ms/(1000*n))
			xs = append(xs, p.x[i])
		}
	}
	s.Points = len(ratios)
	if s.Points < plateauMin {
		s.Reason = fmt.Sprintf("no plateau: %d quanta at %g times the bounds' corner X*·R0 (%.3g calls in flight) or more, want at least %d",
			s.Points, plateauReach, knee, plateauMin)
		return s
	}
	var half float64
	s.Ratio, half = meanHalfWidth(ratios, 1-plateauLevel)
	s.Upper = s.Ratio + half
	s.Shown = s.Upper < plateauRatio
	if s.Shown {
		x, h := meanHalfWidth(xs, 0.975)
		s.Plateau = &Interval{Value: x, Low: x - h, High: x + h}
		s.Reason = fmt.Sprintf("plateau: %d quanta at %g times the knee (%.3g calls in flight) or more give %.0f%% of N/R0 (95%% upper limit %.0f%%)",
			s.Points, plateauReach, knee, 100*s.Ratio, 100*s.Upper)
	} else {
		s.Reason = fmt.Sprintf("no plateau: %d quanta at %g times the bounds' corner X*·R0 (%.3g calls in flight) or more give %.0f%% of N/R0 (95%% upper limit %.0f%%, want below %.0f%%)",
			s.Points, plateauReach, knee, 100*s.Ratio, 100*s.Upper, 100*plateauRatio)
	}
	return s
}

// saturation is the evidence of saturation in p: the plateau s (from
// plateauShown, zero when no bounds fit was made) or u's decline; when
// neither, the light-load response time of the bounds fit bf and its
// interval.
func (p points) saturation(u *USL, bf boundsFit, s Saturation) *Saturation {
	switch {
	case s.Shown:
	case u.Decline != nil && u.Decline.Shown:
		s.Shown = true
		s.Reason = fmt.Sprintf("decline: throughput falls beyond the USL's peak at %.3g calls in flight (t = %.2f)", u.PeakLoad, u.Decline.T)
	default:
		if s.Reason == "" {
			s.Reason = "no plateau: too few quanta above a knee to fit the bounds model"
		}
		if r0 := bf.params.R0Ms; r0 > 0 {
			s.R0Ms, s.R0HalfMs = r0, p.lightRTHalfWidth(bf.light, p.timed(bf.order), r0)
		}
	}
	return &s
}

// meanHalfWidth returns the mean of v (at least 2 values) and the
// half-width of its t interval at quantile q: t(q, len−1)·sd/sqrt(len).
func meanHalfWidth(v []float64, q float64) (mean, half float64) {
	k := float64(len(v))
	var sum, sumSq float64
	for _, x := range v {
		sum, sumSq = sum+x, sumSq+x*x
	}
	mean = sum / k
	sd := math.Sqrt(math.Max(0, sumSq-k*mean*mean) / (k - 1))
	return mean, tQuantile(q, len(v)-1) * sd / math.Sqrt(k)
}

// coverPlateau widens pr, at a load of 1.25 times the bounds' knee or
// more, to hold the plateau that the quanta there measured
// (Saturation.Plateau) and the response time Little's law gives for it;
// not when the data show the USL's decline there, which is no plateau.
// It also reaches what the bounds give at either end of R0's interval
// (coverR0). Both only when the bounds predict or are not ruled out.
func (m *Model) coverPlateau(pr Prediction) Prediction {
	s, b, d := m.Saturation, m.Bounds, m.USL.Decline
	if !m.boundsInPlay() {
		return pr
	}
	pr = m.coverR0(pr)
	if s == nil || s.Plateau == nil || b == nil || pr.Load < plateauReach*b.Knee() || (d != nil && d.Shown) {
		return pr
	}
	pr.Throughput = pr.Throughput.Cover(s.Plateau.Low).Cover(s.Plateau.High)
	if s.Plateau.Low > 0 {
		pr.ResponseTimeMs = pr.ResponseTimeMs.Cover(1000 * pr.Load / s.Plateau.High).Cover(1000 * pr.Load / s.Plateau.Low)
	}
	return pr
}

// coverR0 widens pr to hold what the bounds give with R0 at either end
// of its t interval (Bounds.R0HalfMs).
func (m *Model) coverR0(pr Prediction) Prediction {
	b := m.Bounds
	if b == nil || !(b.R0HalfMs > 0) {
		return pr
	}
	for _, r0 := range []float64{b.R0Ms - b.R0HalfMs, b.R0Ms + b.R0HalfMs} {
		if r0 > 0 {
			c := BoundsParams{R0Ms: r0, Plateau: b.Plateau}
			pr.Throughput = pr.Throughput.Cover(c.Throughput(pr.Load))
			pr.ResponseTimeMs = pr.ResponseTimeMs.Cover(c.ResponseTimeMs(pr.Load))
		}
	}
	return pr
}

// boundsInPlay reports whether the bounds model predicts or the
// selection does not rule it out.
func (m *Model) boundsInPlay() bool {
	return m.Bounds != nil && (m.Predictor() == ModelBounds || slices.Contains(m.Selection.Covered, ModelBounds))
}

// coverLine widens pr, for a run that did not saturate, to hold the line
// N/R0 of the asymptotic bounds (Saturation.R0Ms, and R0 at the lower end
// of its 95% t interval) and the response time R0: a service below its
// knee is on them, and the quanta of a ramp, whose completions lag its
// load, pull a fitted curve below them.
func (m *Model) coverLine(pr Prediction) Prediction {
	s := m.Saturation
	if s == nil || s.Shown || !(s.R0Ms > 0) {
		return pr
	}
	for _, r0 := range []float64{s.R0Ms, s.R0Ms - s.R0HalfMs} {
		if r0 > 0 {
			pr.Throughput = pr.Throughput.Cover(1000 * pr.Load / r0)
			pr.ResponseTimeMs = pr.ResponseTimeMs.Cover(r0)
		}
	}
	return pr
}
