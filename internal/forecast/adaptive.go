package forecast

import "math"

// Criterion is the error by which a forecaster is chosen.
type Criterion int

// The criteria: mean absolute or mean squared error.
const (
	ByMAE Criterion = iota
	ByMSE
)

// Adaptive is NWS's forecaster of forecasters, with the forecasts made
// right after a shift accounted apart. Every measurement first scores
// each member's forecast of it, over each of the error windows (the last
// 2, 5, 10 and 30 forecasts and all of them), then is fed to the members.
// A selector per window and criterion (MAE, MSE) forecasts with the
// member whose error over its window is lowest. The ensemble forecasts
// with whichever selector or member has the lowest MAE over all its
// forecasts, so that where one member is best throughout, the ensemble
// converges to it and stops paying for switches. When the latest
// measurement broke from the ones before it (shiftDetector), the next
// forecast is instead the member's whose forecasts right after such
// breaks have had the lowest MAE (last value, listed first, before any
// was scored): whether a break is a level shift, where last value is
// right, or a one-off spike, where a smoother is, is the series' habit,
// learnt from its past breaks, and mixing those forecasts into the
// ordinary errors would make every smoother look worse than it is
// between breaks, or last value better. After a step the detector fires
// until the recent window has taken the new level, so the ensemble
// follows the step at once. Ties go to the selector, then member, listed
// first; members that cannot predict yet are skipped. Memory is fixed:
// each member's window, a ring of 30 errors per member and selector, and
// the detector's window.
type Adaptive struct {
	members   []member
	selectors []selector
	pick      int  // the member forecasting, −1 before any can
	shifted   bool // whether the latest measurement broke from the ones before
	shift     shiftDetector
}

// member is one forecaster of the ensemble with its recent errors and its
// forecast of the next measurement.
type member struct {
	m       Method
	errs    recentErrors
	shifted Errors // of its forecasts made right after a break
	pred    float64
	ok      bool // whether it has a forecast
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
	a := &Adaptive{members: make([]member, len(methods)), pick: -1, shift: newShiftDetector()}
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
			if a.shifted {
				t.shifted.Add(t.pred, m.Value)
			}
		}
		t.m.Observe(m)
		t.pred, t.ok = t.m.Predict()
	}
	a.shifted = a.shift.observe(m.Value)
	for i := range a.selectors {
		s := &a.selectors[i]
		s.pick = a.bestMember(s.window, s.by)
	}
	a.pick = a.choose()
}

// choose is the member to forecast with: after a break, the one of lowest
// MAE after breaks; else the pick of the selector, or the member, of
// lowest MAE over all its forecasts.
func (a *Adaptive) choose() int {
	if a.shifted {
		return a.bestAfterShift()
	}
	pick, best := -1, math.Inf(1)
	for i := range a.selectors {
		s := &a.selectors[i]
		if e := s.errs.score(allWindow, ByMAE); s.pick >= 0 && (pick < 0 || e < best) {
			pick, best = s.pick, e
		}
	}
	for i := range a.members {
		if e := a.members[i].errs.score(allWindow, ByMAE); a.members[i].ok && e < best {
			pick, best = i, e
		}
	}
	return pick
}

// bestAfterShift is the member that can predict with the lowest MAE over
// its forecasts made right after a break (the first that can predict
// before any was scored), −1 when none can predict.
func (a *Adaptive) bestAfterShift() int {
	best, bestErr := -1, math.Inf(1)
	for i := range a.members {
		t := &a.members[i]
		e := math.Inf(1)
		if t.shifted.N > 0 {
			e = t.shifted.MAE()
		}
		if t.ok && (best < 0 || e < bestErr) {
			best, bestErr = i, e
		}
	}
	return best
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
	if a.pick < 0 {
		return 0, false
	}
	return a.members[a.pick].pred, true
}

// Forecast is the chosen member's forecast, named after it. Its Error,
// RMSE and Scored are that member's over its last 30 forecasts (fewer
// while it has made fewer; NaN before the first is scored): the error to
// expect of the forecast actually made, as recent as the choice, where
// the member's whole past would keep the errors of a level the series
// has left. Right after a break they are the member's over its forecasts
// made right after breaks, once there is one.
func (a *Adaptive) Forecast() (Forecast, bool) {
	if a.pick < 0 {
		return Forecast{}, false
	}
	t := &a.members[a.pick]
	f := Forecast{Value: t.pred, Error: math.NaN(), RMSE: math.NaN(), Method: t.m.Name(), Scored: t.errs.scored(recentWindow)}
	switch {
	case a.shifted && t.shifted.N > 0:
		f.Error, f.RMSE, f.Scored = t.shifted.MAE(), math.Sqrt(t.shifted.MSE()), t.shifted.N
	case f.Scored > 0:
		f.Error, f.RMSE = t.errs.score(recentWindow, ByMAE), math.Sqrt(t.errs.score(recentWindow, ByMSE))
	}
	return f, true
}

// EnsembleDescription says, in a line, how the adaptive forecaster
// chooses (for `diperf sensor evaluate`).
const EnsembleDescription = "NWS's ensemble of the single forecasters listed: one selector per error window " +
	"(last 2, 5, 10, 30 forecasts, all) and criterion (MAE, MSE) forecasts with the forecaster of lowest error over it; " +
	"the ensemble forecasts with the selector or forecaster of lowest MAE over all its forecasts, and right after " +
	"a measurement more than 4 robust σ from the median of the 10 before it, with the forecaster of lowest MAE " +
	"over the forecasts made right after such breaks"
