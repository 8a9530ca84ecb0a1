package model

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestIntervalsContainTruth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		truth Params
		loads []float64
		at    []float64 // loads to predict at, inside the data
	}{
		// retrograde curve, from low load through the peak to the far end
		{"retrograde", Params{100, 0.05, 0.002}, loads(1, 60, 3), []float64{2, 10, 22, 40, 59}},
		// Amdahl curve: κ held at 0 in the refits too
		{"amdahl", Params{100, 0.05, 0}, loads(1, 60, 3), []float64{3, 15, 30, 55}},
		// data stopping at the peak: wider intervals near the top
		{"up to the peak", Params{100, 0.05, 0.002}, loads(1, 25, 5), []float64{2, 12, 24}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := Fit(synthetic(tt.loads, tt.truth.Throughput, 0.03, 8))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.at {
				p := m.Predict(n)
				t.Logf("N %g: X %+v R %+v (true %g, %g)", n, p.Throughput, p.ResponseTimeMs, tt.truth.Throughput(n), tt.truth.ResponseTimeMs(n))
				checkInterval(t, "throughput", p.Throughput, tt.truth.Throughput(n))
				checkInterval(t, "response time", p.ResponseTimeMs, tt.truth.ResponseTimeMs(n))
			}
		})
	}
}

// checkInterval wants low ≤ value ≤ high, truth inside, and an interval
// narrower than a fifth of the value.
func checkInterval(t *testing.T, what string, iv Interval, truth float64) {
	t.Helper()
	if !(iv.Low <= iv.Value && iv.Value <= iv.High) || truth < iv.Low || truth > iv.High {
		t.Errorf("%s %+v does not hold the true %g", what, iv, truth)
	}
	if iv.High-iv.Low > iv.Value/5 {
		t.Errorf("%s interval %+v is too wide", what, iv)
	}
}

func TestPredictEdgeCases(t *testing.T) {
	t.Parallel()
	m := &Model{USL: USL{Lambda: 10, Sigma: 0.1, Kappa: 0.01, MinLoad: 1, MaxLoad: 5}}
	tests := []struct {
		name string
		n    float64
		want Prediction
	}{
		// no load: nothing to predict
		{"zero", 0, Prediction{Model: ModelUSL}},
		// negative load: nothing to predict
		{"negative", -3, Prediction{Load: -3, Model: ModelUSL}},
		// no bootstrap refits, no model named (an older model.json): the USL
		// predicts, the interval is the value alone
		{"no refits", 1, Prediction{Load: 1, Model: ModelUSL, Bound: BoundInterval, Throughput: Interval{Value: 10, Low: 10, High: 10}, ResponseTimeMs: Interval{Value: 100, Low: 100, High: 100}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := m.Predict(tt.n); got != tt.want {
				t.Errorf("Predict(%g) = %+v, want %+v", tt.n, got, tt.want)
			}
		})
	}
}

func TestPredictSurvivesTheFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func() (*Model, error)
	}{
		// a retrograde fit, with a peak
		{"retrograde", func() (*Model, error) { return Fit(synthetic(loads(1, 60, 3), usl(100, 0.05, 0.002), 0.03, 9)) }},
		// an Amdahl fit, with no peak (omitted from the JSON)
		{"amdahl", func() (*Model, error) { return Fit(synthetic(loads(1, 60, 3), usl(100, 0.05, 0), 0.03, 9)) }},
		// a hard knee: the bounds model predicts
		{"bounds", func() (*Model, error) { r, _ := kneeRun(8, 0.2, 0.01, 9); return Fit(r) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := WriteFile(dir, m); err != nil {
				t.Fatal(err)
			}
			back, err := ReadFile(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []float64{0.5, 1, 7.3, 21.8, 60, 200} {
				if a, b := m.Predict(n), back.Predict(n); a != b {
					t.Errorf("Predict(%g): %+v before, %+v after", n, a, b)
				}
			}
			if !reflect.DeepEqual(back, m) {
				t.Errorf("read back %+v, wrote %+v", back, m)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("dir holds %d files, want model.json alone", len(entries))
			}
		})
	}
}

func TestReadFileErrors(t *testing.T) {
	t.Parallel()
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, FileName), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
	}{
		// no model.json
		{"missing", t.TempDir()},
		// not JSON
		{"corrupt", bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := ReadFile(tt.dir); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestReadsOlderModelFile(t *testing.T) {
	t.Parallel()
	// model.json as the USL-only version wrote it: no "model", no "bounds"
	old := `{"usl": {"lambda": 10, "sigma": 0.1, "kappa": 0.01, "r2": 0.9, "points": 9, "min_load": 1, "max_load": 9},
	"response_time": {"r2": 0.8, "points": 9},
	"bootstrap": {"resamples": 2, "seed": 1, "method": "wild", "params": [[9, 0.1, 0.01], [11, 0.1, 0.01]]}}`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	// two refits, λ 9 and 11: the 2.5th and 97.5th percentiles by nearest
	// rank (internal/stats) are the lower and the upper refit
	rLo, rHi := 1000/11.0, 1000/9.0
	want := Prediction{Load: 1, Model: ModelUSL, Throughput: Interval{Value: 10, Low: 9, High: 11},
		ResponseTimeMs: Interval{Value: 100, Low: rLo, High: rHi}}
	got := m.Predict(1)
	if got.Model != want.Model || got.Throughput != want.Throughput || relErr(got.ResponseTimeMs.Low, want.ResponseTimeMs.Low) > 1e-12 ||
		relErr(got.ResponseTimeMs.High, want.ResponseTimeMs.High) > 1e-12 {
		t.Errorf("Predict(1) = %+v, want %+v", got, want)
	}
	// a file naming the bounds without their fit falls back on the USL
	m.Chosen = ModelBounds
	if p := m.Predict(1); p.Model != ModelUSL || p.Throughput.Value != 10 {
		t.Errorf("bounds named but missing: %+v", p)
	}
}
