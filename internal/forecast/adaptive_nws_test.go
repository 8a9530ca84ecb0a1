package forecast

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// fixed always predicts its value.
type fixed float64

func (fixed) Name() string               { return "fixed" }
func (f fixed) Predict() (float64, bool) { return float64(f), true }
func (fixed) Observe(Measurement)        {}

// TestAdaptiveRecentWindow: a constant 0 (listed first) and last value on
// 1, 0, 1, 0 … (40 measurements), then 9, 9. On the alternation the
// constant misses by 0.5 on average and last value by 1, so the ensemble
// forecasts with the constant. The first 9 lies far beyond the spread of
// the 10 before it, a break: no forecast made after a break has been
// scored yet, so the member listed first, the constant, forecasts. The
// second 9 is a break too (the window's quartiles are still 0 and 1), and
// the forecasts of it made after the first were last value's exact 9 and
// the constant's 0, so the ensemble forecasts 9, while by the whole
// history the constant still leads, (19+18)/41 against (39+9)/41. The
// forecast's error is last value's over its forecasts made right after a
// break: one, exact.
func TestAdaptiveRecentWindow(t *testing.T) {
	a := NewAdaptive(fixed(0), &LastValue{})
	vs := make([]float64, 0, 42)
	for i := range 40 {
		vs = append(vs, float64((i+1)%2))
	}
	for i, m := range feed(append(vs, 9, 9)...) {
		a.Observe(m)
		f, _ := a.Forecast()
		want := "fixed"
		if i == 41 {
			want = "last"
		}
		if f.Method != want {
			t.Fatalf("after %d measurements: forecast by %s (%g), want %s", i+1, f.Method, f.Value, want)
		}
	}
	f, _ := a.Forecast()
	if f.Value != 9 || f.Error != 0 || f.RMSE != 0 || f.Scored != 1 {
		t.Errorf("final forecast %+v, want 9 with error 0 over the 1 forecast made after a break", f)
	}
	var cum [2]Errors
	for i, m := range []Method{fixed(0), &LastValue{}} {
		tr := Tracked{Method: m}
		for _, x := range feed(append(vs, 9, 9)...) {
			tr.Observe(x)
		}
		cum[i] = tr.Errors
	}
	if !(cum[0].MAE() < cum[1].MAE()) {
		t.Errorf("by the whole history the constant should still lead: %g against %g", cum[0].MAE(), cum[1].MAE())
	}
}

// TestAdaptiveFollowsStep is the step: 300 measurements at 100
// Mbit/s (a pair's history in the directory is long) then 20 at 20 Mbit/s.
// Without noise every member is exact before the step and last value,
// listed first, wins the ties: the forecast after the first 20 is 20.
// With Gaussian noise of 2% (so that 10% of 20 Mbit/s is 5 standard
// deviations: a miss beyond it is the forecaster's, not the noise's), over
// 50 seeds: from the third measurement at 20 Mbit/s on, every forecast is
// within 10% of it. Why 3: the first 20 could be a one-off dip, which
// every member missed alike, so each selector keeps the smoother that won
// the noisy stretch (on 300 points of steady noise, the running mean);
// the second shows last value right and the smoothers wrong, so the
// short-window selectors take last value; the third shows those selectors
// right and the others wrong, so the ensemble takes them. The forecaster
// before (the lowest error over all history) took 10+ measurements: a
// smoother's lead over 300 points outlasts its misses after the step.
func TestAdaptiveFollowsStep(t *testing.T) {
	for _, tt := range []struct {
		sd    float64
		seeds uint64
		k     int // measurements at 20 Mbit/s after which every forecast is within 10%
	}{{0, 1, 1}, {0.02, 50, 3}} {
		for seed := uint64(1); seed <= tt.seeds; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			a := NewAdaptive()
			for i := range 320 {
				level := 100e6
				if i >= 300 {
					level = 20e6
				}
				a.Observe(Measurement{At: time.Unix(int64(i), 0), Value: level * (1 + tt.sd*rng.NormFloat64())})
				if f, _ := a.Forecast(); i+1 >= 300+tt.k && math.Abs(f.Value-20e6) > 2e6 {
					t.Fatalf("noise %g, seed %d: after %d measurements at 20 Mbit/s the forecast is %.4g (%s)", tt.sd, seed, i-299, f.Value, f.Method)
				}
			}
		}
	}
}

// TestAdaptiveErrorWindowsAfterStep: the forecast's Error is the chosen
// member's MAE over its last 30 forecasts, so 30 measurements after a step
// the step's miss has left it.
func TestAdaptiveErrorWindowsAfterStep(t *testing.T) {
	a := NewAdaptive()
	vs := make([]float64, 0, 80)
	for i := range 80 {
		vs = append(vs, map[bool]float64{true: 100, false: 20}[i < 40])
	}
	for _, m := range feed(vs...) {
		a.Observe(m)
	}
	if f, _ := a.Forecast(); f.Value != 20 || f.Error != 0 || f.Scored != 30 || f.Method != "last" {
		t.Errorf("30+ measurements after the step: %+v, want last's 20 with error 0 over 30", f)
	}
}
