package forecast

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// shortfall is a trace on which the adaptive forecaster's MAE exceeds the
// best single forecaster's: the excess measured when it was added (a
// ceiling, in percent) and whether it is all in the forecasts right
// after a level shift.
type shortfall struct {
	ceiling     float64
	afterShifts bool
}

// shortfalls are the traces of testdata on which the adaptive
// forecaster's MAE is above the best single forecaster's, and why
// (docs/sensors.md, "The criterion"). No forecaster meets the
// criterion on every trace (TestNoForecasterBeatsEveryMember shows a
// trace against any one), so these are ceilings, measured when the
// design was last changed, not goals:
//   - mixed, steps, cross-long: the level moves every few measurements by
//     far more than the noise, so last value is the best single
//     forecaster. Breaks (shiftDetector) are level shifts, where last value
//     is right, or TCP's overshoots and cross-traffic dips, where a
//     smoother is; the ensemble learns which from 8 to 25 breaks a trace,
//     and a wrong pick costs the size of the break (on steps, one:
//     median21 after the cap fell from 100 to 20 Mbit/s, having been
//     closest after the one break before). On mixed and cross-long, some
//     of the excess is in the ordinary forecasts, during the few
//     measurements of TCP reaching a new cap. Away from the forecasts
//     right after a shift the ensemble beats every single forecaster; the
//     test checks both.
//   - steps-slow: the adaptive-window median is best from start to end,
//     readings alternate between strata, members are close, and the
//     switches before the median's lead is clear cost what they pick
//     wrong.
//
// Any other trace, and any trace added to testdata, must meet the
// criterion strictly.
var shortfalls = map[string]shortfall{
	"bandwidth-mixed.csv":      {ceiling: 6.5, afterShifts: true},
	"bandwidth-steps.csv":      {ceiling: 6.5, afterShifts: true},
	"bandwidth-cross-long.csv": {ceiling: 3.5, afterShifts: true},
	"bandwidth-steps-slow.csv": {ceiling: 3.5},
}

// TestAdaptiveOnTraces is the criterion on every trace in
// testdata (each test time of each) and on the synthetic one: the adaptive
// forecaster's MAE over the whole trace, as Evaluate scores it (every
// method on the same measurements: all from the second), is at most
// the lowest of the single forecasters' (Defaults(), every member of the
// ensemble), except on the traces of shortfalls, where it is within their
// ceiling and, for those of level shifts, at most the lowest away from the
// forecasts right after a shift.
func TestAdaptiveOnTraces(t *testing.T) {
	files, err := filepath.Glob("testdata/*.csv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	traces := map[string][]Measurement{"synthetic": Synthetic(2000, 100, 5, 42)}
	for _, f := range files {
		for _, s := range readTraceFile(t, f) {
			traces[filepath.Base(f)+s.TestTime] = s.Points
		}
	}
	for name, points := range traces {
		t.Run(name, func(t *testing.T) {
			mae := map[string]float64{}
			for _, s := range Evaluate(points, Options{Seed: 1, MaxPeriod: 1}).Full { // periods do not change Full
				mae[s.Method] = s.MAE
				if s.N != len(points)-1 { // every method is scored on the same forecasts, from the second measurement on
					t.Errorf("%s scored on %d forecasts, want %d", s.Method, s.N, len(points)-1)
				}
			}
			bestName, best := bestSingle(mae)
			excess := 100 * (mae["adaptive"]/best - 1)
			t.Logf("%d points: adaptive MAE %.4g, best single %s %.4g (%+.2f%%)", len(points), mae["adaptive"], bestName, best, excess)
			sf, known := shortfalls[name]
			switch {
			case !known && mae["adaptive"] > best:
				t.Errorf("adaptive MAE %g above %s's %g (%+.2f%%)", mae["adaptive"], bestName, best, excess)
			case known && mae["adaptive"] <= best:
				t.Errorf("adaptive MAE %g now at most %s's %g: remove the trace from shortfalls", mae["adaptive"], bestName, best)
			case known && excess > sf.ceiling:
				t.Errorf("adaptive MAE %+.2f%% above %s's, ceiling %+.1f%%", excess, bestName, sf.ceiling)
			case known && sf.afterShifts:
				awayFromShifts(t, points)
			}
		})
	}
}

// bestSingle is the single forecaster of lowest MAE.
func bestSingle(mae map[string]float64) (string, float64) {
	name, best := "", math.Inf(1)
	for _, m := range Defaults() {
		if v := mae[m.Name()]; v < best {
			name, best = m.Name(), v
		}
	}
	return name, best
}

// awayFromShifts checks that the adaptive forecaster's absolute errors,
// summed over the forecasts that do not follow a level shift, are at most
// every single forecaster's. A forecast follows a shift when the
// measurement before it moved from the one before that by more than half
// the trace's median.
func awayFromShifts(t *testing.T, points []Measurement) {
	t.Helper()
	vs := make([]float64, len(points))
	for i, p := range points {
		vs[i] = p.Value
	}
	sorted := slices.Sorted(slices.Values(vs))
	jump := sorted[len(sorted)/2] / 2
	ms := append(Defaults(), NewAdaptive())
	away := make([]float64, len(ms))
	shifts := 0
	for j, p := range points {
		after := j >= 2 && math.Abs(vs[j-1]-vs[j-2]) > jump
		if after {
			shifts++
		}
		for i, m := range ms {
			if f, ok := m.Predict(); ok && !after {
				away[i] += math.Abs(f - p.Value)
			}
			m.Observe(p)
		}
	}
	ad := away[len(ms)-1]
	for i, m := range ms[:len(ms)-1] {
		if ad > away[i] {
			t.Errorf("away from the %d forecasts after a shift, adaptive's errors sum to %g, above %s's %g", shifts, ad, m.Name(), away[i])
		}
	}
	t.Logf("away from the %d forecasts after a shift: adaptive %.4g, best %.4g", shifts, ad, slices.Min(away[:len(ms)-1]))
}

// readTraceFile reads a trace from testdata.
func readTraceFile(t *testing.T, path string) []Series {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	series, err := ReadTrace(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return series
}
