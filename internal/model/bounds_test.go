package model

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// kneeRun is a run of a service with C slots of S seconds each, its
// clients adding o seconds to every call: X = min(N/(S+o), C/S), the load
// ramped from 0.5 to 2.5·C in steps of 0.5 and held there for as many
// quanta. Throughput carries 2% noise, response time an independent 1%.
func kneeRun(c, s, o float64, seed uint64) (*analyze.Result, BoundsParams) {
	truth := BoundsParams{R0Ms: 1000 * (s + o), Plateau: c / s}
	var n []float64
	for l := 0.5; l <= 2.5*c; l += 0.5 {
		n = append(n, l)
	}
	for range len(n) {
		n = append(n, 2.5*c)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	r := &analyze.Result{Quanta: make([]analyze.Quantum, len(n))}
	for i, load := range n {
		x := truth.Throughput(load) * (1 + 0.02*rng.NormFloat64())
		r.Quanta[i] = analyze.Quantum{
			T: float64(i), Load: load, Active: 1, Throughput: x,
			RT: analyze.RTStats{N: max(1, int(x)), Mean: truth.ResponseTimeMs(load) * (1 + 0.01*rng.NormFloat64())},
		}
	}
	return r, truth
}

func TestFitHardKnee(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		c, s, o float64 // slots, service time (s), client overhead (s)
	}{
		// the demo's target, clients adding nothing: the knee at C = 8
		{"demo", 8, 0.2, 0},
		// the demo as measured: ~10 ms of client process start moves the knee to 8.4
		{"demo with client start", 8, 0.2, 0.010},
		// a small service
		{"C=4 S=200ms", 4, 0.2, 0.008},
		// a wider, slower service
		{"C=12 S=300ms", 12, 0.3, 0.008},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, truth := kneeRun(tt.c, tt.s, tt.o, 11)
			m, err := Fit(r)
			if err != nil {
				t.Fatal(err)
			}
			b, knee := m.Bounds, truth.Knee()
			if m.Chosen != ModelBounds || b == nil {
				t.Fatalf("model %q (%s), want the bounds", m.Chosen, m.Selection.Reason)
			}
			t.Logf("R0 %.2f ms X* %.2f knee %.2f (truth %+v, knee %.2f); %s", b.R0Ms, b.Plateau, b.KneeLoad, truth, knee, m.Selection.Reason)
			if relErr(b.R0Ms, truth.R0Ms) > 0.02 || relErr(b.Plateau, truth.Plateau) > 0.02 || relErr(b.KneeLoad, knee) > 0.03 {
				t.Errorf("fit %+v, want %+v", b, truth)
			}
			for _, n := range []float64{tt.c / 2, tt.c, knee, 2 * tt.c} {
				p := m.Predict(n)
				if want := truth.Throughput(n); relErr(p.Throughput.Value, want) > 0.05 {
					t.Errorf("X(%g) = %+v, want %g ± 5%%", n, p.Throughput, want)
				}
				if !(p.Throughput.Low <= p.Throughput.Value && p.Throughput.Value <= p.Throughput.High) {
					t.Errorf("X(%g) interval %+v does not hold its value", n, p.Throughput)
				}
			}
			if at := m.Predict(knee).Throughput.Value; relErr(at, tt.c/tt.s) > 0.05 {
				t.Errorf("X(knee %g) = %g, want C/S = %g ± 5%%", knee, at, tt.c/tt.s)
			}
		})
	}
}

func TestHardKneeIntervals(t *testing.T) {
	t.Parallel()
	r, truth := kneeRun(8, 0.2, 0.010, 12)
	m, err := Fit(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Bootstrap.Bounds) != DefaultResamples || len(m.Bootstrap.Params) != 0 {
		t.Fatalf("%d bounds refits and %d USL refits, want %d and 0", len(m.Bootstrap.Bounds), len(m.Bootstrap.Params), DefaultResamples)
	}
	// away from the knee, where the fit is a line or a plateau: the
	// interval holds the truth and is narrow
	for _, n := range []float64{2, 6, 12, 19} {
		p := m.Predict(n)
		t.Logf("N %g: X %+v R %+v (true %g, %g)", n, p.Throughput, p.ResponseTimeMs, truth.Throughput(n), truth.ResponseTimeMs(n))
		checkInterval(t, "throughput", p.Throughput, truth.Throughput(n))
		checkInterval(t, "response time", p.ResponseTimeMs, truth.ResponseTimeMs(n))
	}
}

func TestNeverSaturating(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		curve func(float64) float64
		loads []float64
	}{
		// linear scaling: 50 calls/s per call in flight, up to 30 in flight
		{"linear", usl(50, 0, 0), loads(1, 30, 3)},
		// a long ramp, few quanta per load
		{"linear, long ramp", usl(20, 0, 0), loads(1, 60, 1)},
		// scaling that bends but never levels off within the data
		{"mild contention", usl(50, 0.01, 0), loads(1, 30, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := Fit(synthetic(tt.loads, tt.curve, 0.03, 13))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("model %s: %s; USL %+v", m.Chosen, m.Selection.Reason, m.USL)
			if m.Chosen != ModelUSL || m.USL.PeakLoad != 0 || m.Selection.Reason == "" {
				t.Errorf("model %q, peak %g, reason %q: want the USL, no peak, a reason", m.Chosen, m.USL.PeakLoad, m.Selection.Reason)
			}
			_, hi := minMax(tt.loads)
			for _, n := range []float64{2, hi / 2, hi} {
				if p := m.Predict(n); relErr(p.Throughput.Value, tt.curve(n)) > 0.05 || p.Model != ModelUSL {
					t.Errorf("X(%g) = %+v by %s, want %g ± 5%% by the USL", n, p.Throughput, p.Model, tt.curve(n))
				}
			}
		})
	}
}

func TestPredictResponseTime(t *testing.T) {
	t.Parallel()
	knee, truth := kneeRun(8, 0.2, 0.010, 14)
	curve := Params{100, 0.05, 0.002}
	tests := []struct {
		name string
		r    *analyze.Result
		want func(float64) float64 // mean response time at a load, ms
		at   []float64
	}{
		// bounds: R0 = 210 ms below the knee, N/X* above it (Little's law)
		{"hard knee", knee, truth.ResponseTimeMs, []float64{1, 4, 8, 12, 20}},
		// USL: R = (1 + σ(N−1) + κN(N−1)) / λ
		{"usl", synthetic(loads(1, 60, 3), curve.Throughput, 0.03, 14), curve.ResponseTimeMs, []float64{1, 10, 30, 60}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := Fit(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.at {
				p := m.Predict(n).ResponseTimeMs
				t.Logf("R(%g) = %+v ms, true %g", n, p, tt.want(n))
				if relErr(p.Value, tt.want(n)) > 0.05 || !(p.Low <= p.Value && p.Value <= p.High) {
					t.Errorf("R(%g) = %+v ms, want %g ± 5%%", n, p, tt.want(n))
				}
			}
			if m.ResponseTime.R2 < 0.95 {
				t.Errorf("response time R² %g, want > 0.95", m.ResponseTime.R2)
			}
		})
	}
}

func TestPredictionJSONKeys(t *testing.T) {
	t.Parallel()
	r, _ := kneeRun(8, 0.2, 0, 15)
	m, err := Fit(r)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m.Predict(8))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got["model"] != ModelBounds || got["load"] != 8.0 {
		t.Errorf("model %v load %v in %s", got["model"], got["load"], data)
	}
	for _, k := range []string{"throughput", "response_time_ms"} {
		iv, ok := got[k].(map[string]any)
		if !ok {
			t.Fatalf("no object %q in %s", k, data)
		}
		for _, f := range []string{"value", "low", "high"} {
			if v, ok := iv[f].(float64); !ok || !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s.%s = %v in %s", k, f, iv[f], data)
			}
		}
	}
}
