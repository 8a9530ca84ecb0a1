// Package forecast predicts the next measurement of a series (bandwidth,
// latency) from the ones before it, as the Network Weather Service does:
// simple forecasters fed one measurement at a time, each tracked for its
// error, and an adaptive forecaster that predicts with whichever has had
// the lowest error over recent windows. It also evaluates forecasters on a
// trace as Gloperf §4 does (MAE and MSE by test period and test time).
// Pure computation: no files, clocks or network.
package forecast

import (
	"math"
	"time"
)

// Measurement is one value of a series and when it was measured.
type Measurement struct {
	At    time.Time
	Value float64
}

// Method is one forecasting technique fed a series one measurement at a
// time. Predict returns its forecast of the next measurement, false before
// it has seen enough to make one.
type Method interface {
	Name() string
	Predict() (float64, bool)
	Observe(m Measurement)
}

// Forecast is a prediction of the next measurement, the error to expect of
// it and the method that made it.
type Forecast struct {
	Value float64 `json:"value"`
	// Error is the mean absolute error of Method's forecasts so far, or,
	// from the adaptive forecaster, of the member it chose over that
	// member's last 30 forecasts, or right after a break over its
	// forecasts made right after breaks (NaN before it has been scored
	// once).
	Error float64 `json:"error"`
	// RMSE is the root mean squared error over the same forecasts.
	RMSE   float64 `json:"rmse"`
	Method string  `json:"method"`
	// Scored is how many of Method's forecasts the errors are over.
	Scored int `json:"scored"`
}

// Errors accumulates a method's forecast errors.
type Errors struct {
	N      int     // forecasts scored
	SumAbs float64 // Σ|forecast − measured|
	SumSq  float64 // Σ(forecast − measured)²
}

// Add scores one forecast against the measured value.
func (e *Errors) Add(forecast, measured float64) {
	d := forecast - measured
	e.N++
	e.SumAbs += math.Abs(d)
	e.SumSq += d * d
}

// MAE is the mean absolute error, NaN when nothing was scored.
func (e Errors) MAE() float64 {
	if e.N == 0 {
		return math.NaN()
	}
	return e.SumAbs / float64(e.N)
}

// MSE is the mean squared error, NaN when nothing was scored.
func (e Errors) MSE() float64 {
	if e.N == 0 {
		return math.NaN()
	}
	return e.SumSq / float64(e.N)
}

// Tracked is a Method with its forecast errors: each measurement first
// scores the method's forecast of it, then is fed to the method.
type Tracked struct {
	Method Method
	Errors Errors
}

// Observe scores the forecast of m (if there was one) and feeds m on.
func (t *Tracked) Observe(m Measurement) {
	if f, ok := t.Method.Predict(); ok {
		t.Errors.Add(f, m.Value)
	}
	t.Method.Observe(m)
}

// Forecast is the method's prediction with its errors so far; false before
// the method can predict.
func (t *Tracked) Forecast() (Forecast, bool) {
	v, ok := t.Method.Predict()
	if !ok {
		return Forecast{}, false
	}
	return Forecast{Value: v, Error: t.Errors.MAE(), RMSE: math.Sqrt(t.Errors.MSE()),
		Method: t.Method.Name(), Scored: t.Errors.N}, true
}
