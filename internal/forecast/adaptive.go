package forecast

import "math"

// Criterion is what the adaptive forecaster minimizes when it picks a
// member.
type Criterion int

// The criteria: the member's mean absolute or mean squared error so far.
const (
	ByMAE Criterion = iota
	ByMSE
)

// Adaptive predicts, at each step, with the member whose forecasts have
// had the lowest error so far (NWS): every measurement scores every
// member's forecast of it before the members see it. Ties go to the
// member listed first; until a member has been scored, the first member
// that can predict does.
type Adaptive struct {
	Members   []Tracked
	Criterion Criterion
}

// NewAdaptive returns an adaptive forecaster over methods (Defaults()
// when none), choosing by MAE.
func NewAdaptive(methods ...Method) *Adaptive {
	if len(methods) == 0 {
		methods = Defaults()
	}
	a := &Adaptive{Members: make([]Tracked, len(methods))}
	for i, m := range methods {
		a.Members[i].Method = m
	}
	return a
}

// Defaults are the single forecasters, in the order ties are broken: last
// value, running mean, exponential average (0.35), sliding median (5).
func Defaults() []Method {
	return []Method{&LastValue{}, &RunningMean{}, &ExpAverage{}, NewSlidingMedian(DefaultWindow)}
}

// Name is "adaptive".
func (*Adaptive) Name() string { return "adaptive" }

// Observe scores every member's forecast of m, then feeds m to them.
func (a *Adaptive) Observe(m Measurement) {
	for i := range a.Members {
		a.Members[i].Observe(m)
	}
}

// Predict returns the chosen member's forecast.
func (a *Adaptive) Predict() (float64, bool) {
	i := a.best()
	if i < 0 {
		return 0, false
	}
	return a.Members[i].Method.Predict()
}

// Forecast is the chosen member's forecast, named after it, with its
// errors so far as the error to expect.
func (a *Adaptive) Forecast() (Forecast, bool) {
	i := a.best()
	if i < 0 {
		return Forecast{}, false
	}
	return a.Members[i].Forecast()
}

// best is the index of the member that can predict with the lowest error
// so far, −1 when none can predict.
func (a *Adaptive) best() int {
	best, bestErr := -1, math.Inf(1)
	for i := range a.Members {
		t := &a.Members[i]
		if _, ok := t.Method.Predict(); !ok {
			continue
		}
		e := a.score(t.Errors)
		if best < 0 || e < bestErr {
			best, bestErr = i, e
		}
	}
	return best
}

// score is the criterion's error; +Inf for a member never scored, so that
// a scored member is preferred.
func (a *Adaptive) score(e Errors) float64 {
	if e.N == 0 {
		return math.Inf(1)
	}
	if a.Criterion == ByMSE {
		return e.MSE()
	}
	return e.MAE()
}
