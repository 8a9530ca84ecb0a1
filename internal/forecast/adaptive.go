package forecast

import "math"

// Criterion is the error by which a forecaster is chosen.
type Criterion int

// The criteria: mean absolute or mean squared error.
const (
	ByMAE Criterion = iota
	ByMSE
)

// Adaptive is NWS's forecaster of forecasters. Every measurement first
// scores each member's forecast of it, over each of the error windows (the
// last 2, 5, 10 and 30 forecasts and all of them), then is fed to the
// members. A selector per window and criterion (MAE, MSE) forecasts with
// the member whose error over its window is lowest; the ensemble, members
// × windows × criteria, forecasts with the selector whose own forecasts
// had the lowest MAE over the last 30. After a step in the series, last
// value and the short windows fit the new level first, the short-window
// selectors choose them after one or two measurements, and the ensemble
// follows those selectors. Ties go to the member, and selector, listed
// first; members that cannot predict yet are skipped. Memory is fixed:
// each member's window and a ring of 30 errors per member and selector.
type Adaptive struct {
	members   []member
	selectors []selector
	top       int // the selector forecasting, −1 before any can
}

// member is one forecaster of the ensemble with its recent errors and its
// forecast of the next measurement.
type member struct {
	m    Method
	errs recentErrors
	pred float64
	ok   bool // whether it has a forecast
}

// selector forecasts with the member of lowest error over one window by
// one criterion; its own forecasts are scored too.
type selector struct {
	window int // index into errorWindows
	by     Criterion
	pick   int // the member it forecasts with, −1 when none can
	errs   recentErrors
}

// NewAdaptive returns an adaptive forecaster over methods (Defaults()
// when none).
func NewAdaptive(methods ...Method) *Adaptive {
	if len(methods) == 0 {
		methods = Defaults()
	}
	a := &Adaptive{members: make([]member, len(methods)), top: -1}
	for i, m := range methods {
		a.members[i].m = m
	}
	for w := range errorWindows {
		for _, by := range []Criterion{ByMAE, ByMSE} {
			a.selectors = append(a.selectors, selector{window: w, by: by, pick: -1})
		}
	}
	return a
}

// Defaults are the single forecasters, in the order ties are broken: last
// value, running mean, exponential averages (weights 0.1, 0.35, 0.75),
// sliding medians (5, 21), trimmed mean (10) and adaptive-window median
// (3 to 21): NWS's kinds, each at a short and a long memory.
func Defaults() []Method {
	return []Method{&LastValue{}, &RunningMean{},
		&ExpAverage{Weight: 0.1}, &ExpAverage{}, &ExpAverage{Weight: 0.75},
		NewSlidingMedian(DefaultWindow), NewSlidingMedian(21), NewTrimmedMean(10), NewAdaptiveMedian(3, 21)}
}

// Name is "adaptive".
func (*Adaptive) Name() string { return "adaptive" }

// Observe scores every selector's and member's forecast of m, feeds m to
// the members and chooses again.
func (a *Adaptive) Observe(m Measurement) {
	for i := range a.selectors {
		if s := &a.selectors[i]; s.pick >= 0 {
			s.errs.add(a.members[s.pick].pred, m.Value)
		}
	}
	for i := range a.members {
		t := &a.members[i]
		if t.ok {
			t.errs.add(t.pred, m.Value)
		}
		t.m.Observe(m)
		t.pred, t.ok = t.m.Predict()
	}
	a.top = -1
	best := math.Inf(1)
	for i := range a.selectors {
		s := &a.selectors[i]
		s.pick = a.bestMember(s.window, s.by)
		if e := s.errs.score(recentWindow, ByMAE); s.pick >= 0 && (a.top < 0 || e < best) {
			a.top, best = i, e
		}
	}
}

// bestMember is the member that can predict with the lowest error over
// window w by criterion by, −1 when none can predict.
func (a *Adaptive) bestMember(w int, by Criterion) int {
	best, bestErr := -1, math.Inf(1)
	for i := range a.members {
		t := &a.members[i]
		if !t.ok {
			continue
		}
		if e := t.errs.score(w, by); best < 0 || e < bestErr {
			best, bestErr = i, e
		}
	}
	return best
}

// Predict returns the chosen member's forecast.
func (a *Adaptive) Predict() (float64, bool) {
	if a.top < 0 {
		return 0, false
	}
	return a.members[a.selectors[a.top].pick].pred, true
}

// Forecast is the chosen member's forecast, named after it. Its Error,
// RMSE and Scored are that member's over its last 30 forecasts (fewer
// while it has made fewer; NaN before the first is scored): the error to
// expect of the forecast actually made, as recent as the choice, where
// the member's whole past would keep the errors of a level the series
// has left.
func (a *Adaptive) Forecast() (Forecast, bool) {
	if a.top < 0 {
		return Forecast{}, false
	}
	t := &a.members[a.selectors[a.top].pick]
	f := Forecast{Value: t.pred, Error: math.NaN(), RMSE: math.NaN(), Method: t.m.Name(), Scored: t.errs.scored(recentWindow)}
	if f.Scored > 0 {
		f.Error, f.RMSE = t.errs.score(recentWindow, ByMAE), math.Sqrt(t.errs.score(recentWindow, ByMSE))
	}
	return f, true
}

// EnsembleDescription says, in a line, how the adaptive forecaster
// chooses (for `diperf sensor evaluate`).
const EnsembleDescription = "NWS's ensemble of the single forecasters listed: one selector per error window " +
	"(last 2, 5, 10, 30 forecasts, all) and criterion (MAE, MSE) forecasts with the forecaster of lowest error over it; " +
	"the ensemble forecasts with the selector of lowest MAE over its last 30 forecasts"
