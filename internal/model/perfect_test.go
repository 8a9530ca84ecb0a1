package model

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	smp "github.com/diperf/diperf/internal/sample"
)

// rowSevenRun is the run of issue 8's row 7 as the analyzer sees it: one
// tester calling a client that sleeps 200 ms every 500 ms for 6 s, each
// start and end a few ms late at random. Every whole quantum of 1 s
// completes 2 calls: the throughput is constant, and a model matches it
// exactly.
func rowSevenRun(t *testing.T, seed uint64) *analyze.Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	const origin = int64(1_700_000_000) * int64(time.Second)
	ms := func(v float64) int64 { return int64(v * 1e6) }
	var calls []smp.Call
	for k := range 12 {
		start := origin + ms(500*float64(k)+1+3*rng.Float64())
		calls = append(calls, smp.Call{Start: start, End: start + ms(200+2*rng.Float64()), Status: smp.OK})
	}
	testers := []analyze.Tester{{ID: "h:1", Host: "h", Start: origin, End: origin + 6*int64(time.Second)}}
	r, err := analyze.Compute(&analyze.Input{Name: "row7", Quantum: time.Second, Planned: 1, Calls: calls, Testers: testers})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPerfectFitHasFiniteModel(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		r := rowSevenRun(t, seed)
		m, err := Fit(r)
		if errors.Is(err, ErrTooFewPoints) {
			continue // every quantum at the same load: no fit, and no model.json
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkFiniteModel(t, m)
	}
}

func TestPerfectFitOfConstantThroughput(t *testing.T) {
	t.Parallel()
	// throughputs exactly 2 calls/s at loads 0.40 to 0.41: both models
	// match them exactly (RSS = 0)
	r := &analyze.Result{Summary: analyze.Summary{QuantumS: 1}}
	for i := range 6 {
		load := 0.4 + 0.002*float64(i)
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i), Load: load, Active: 1, Throughput: 2, OK: 2,
			RT: analyze.RTStats{N: 2, Mean: 1000 * load / 2}})
	}
	m, err := Fit(r)
	if err != nil {
		t.Fatal(err)
	}
	checkFiniteModel(t, m)
	// at the floor two fits differ by their parameter counts alone
	u := m.USL
	if m.Bounds != nil && u.paramCount() == boundsParamCount && u.BIC != m.Bounds.BIC {
		t.Errorf("equal fits at the floor: USL BIC %g, bounds BIC %g", u.BIC, m.Bounds.BIC)
	}
	floor := points{x: []float64{2}, res: 1}.residualFloor()
	if want := 6*math.Log(floor) + float64(u.paramCount())*math.Log(6); u.R2 > 0.999 && math.Abs(u.BIC-want) > 1e-9 {
		t.Errorf("USL BIC %g with R² %g, want the floor's %g", u.BIC, u.R2, want)
	}
}

func TestResidualFloor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    points
		want float64
	}{
		{"a 1 s quantum resolves one call/s", points{n: []float64{1, 2}, x: []float64{2, 3}, res: 1}, 1.0 / 12},
		{"a 100 ms quantum, 10 calls/s", points{n: []float64{1, 2}, x: []float64{2, 3}, res: 10}, 100.0 / 12},
		{"unknown quantum: the data's scale", points{n: []float64{1, 2}, x: []float64{-5, 3e6}}, 9e12 * 1e-18},
		{"all zero", points{n: []float64{1, 2}, x: []float64{0, 0}}, absResidualFloor},
	}
	for _, tt := range tests {
		if got := tt.p.residualFloor(); math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("%s: %g, want %g", tt.name, got, tt.want)
		}
		if bic := tt.p.bicOf(0, 2); math.IsInf(bic, 0) || math.IsNaN(bic) {
			t.Errorf("%s: BIC of a perfect fit %g", tt.name, bic)
		}
	}
	if resolution(0) != 0 || resolution(math.Inf(1)) != 0 || resolution(math.NaN()) != 0 || resolution(0.25) != 4 {
		t.Error("resolution of an unknown quantum must be 0, of 250 ms 4 calls/s")
	}
}

// checkFiniteModel fails t unless m encodes as JSON with every number
// finite.
func checkFiniteModel(t *testing.T, m *Model) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("model.json: %v (BIC USL %g, selection %+v)", err, m.USL.BIC, m.Selection)
	}
	var back Model
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{m.USL.BIC, m.USL.R2, m.USL.Lambda, m.ResponseTime.R2} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("non-finite figure %g in %s", v, b)
		}
	}
}
