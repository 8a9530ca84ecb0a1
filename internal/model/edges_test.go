package model

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// TestFitOfDegenerateQuanta fits quanta at the edges of what the fit
// divides and takes logarithms of: each gives a model that encodes, or
// ErrTooFewPoints (no model.json, and the report says so).
func TestFitOfDegenerateQuanta(t *testing.T) {
	t.Parallel()
	q := func(load, x float64, rtN int, rt float64) analyze.Quantum {
		return analyze.Quantum{Load: load, Active: 1, Throughput: x, OK: rtN, RT: analyze.RTStats{N: rtN, Mean: rt}}
	}
	run := func(qs ...analyze.Quantum) *analyze.Result {
		return &analyze.Result{Summary: analyze.Summary{QuantumS: 1}, Quanta: qs}
	}
	repeat := func(n int, f func(i int) analyze.Quantum) []analyze.Quantum {
		out := make([]analyze.Quantum, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	tests := []struct {
		name string
		r    *analyze.Result
		fits bool
	}{
		{"no quanta", run(), false},
		{"single quantum", run(q(1, 2, 2, 500)), false},
		{"zero load", run(repeat(8, func(int) analyze.Quantum { return q(0, 0, 0, 0) })...), false},
		{"no successful call", run(repeat(8, func(i int) analyze.Quantum { return q(float64(i+1), 0, 0, 0) })...), false},
		{"one load", run(repeat(8, func(int) analyze.Quantum { return q(0.4, 2, 2, 200) })...), false},
		{"one call in all", run(append(repeat(7, func(i int) analyze.Quantum { return q(0.1*float64(i+1), 0, 0, 0) }), q(0.2, 1, 1, 200))...), true},
		{"no response times", run(repeat(8, func(i int) analyze.Quantum { return q(float64(i+1), float64(i+1), 0, 0) })...), true},
		{"equal response times", run(repeat(8, func(i int) analyze.Quantum { return q(float64(i+1), 5*float64(i+1), 5, 200) })...), true},
		{"a line through the origin", run(repeat(8, func(i int) analyze.Quantum { return q(float64(i+1), 10*float64(i+1), 10, 100) })...), true},
		{"one quantum apart", run(append(repeat(7, func(int) analyze.Quantum { return q(1, 5, 5, 200) }), q(2, 5, 5, 400))...), true},
		{"tiny throughputs", run(repeat(8, func(i int) analyze.Quantum { return q(1e-12*float64(i+1), 1e-300, 1, 1e-3) })...), true},
		{"huge throughputs", run(repeat(8, func(i int) analyze.Quantum { return q(1e6*float64(i+1), 1e150, 1, 1e-3) })...), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := Fit(tt.r)
			switch {
			case errors.Is(err, ErrTooFewPoints) && !tt.fits:
			case err != nil:
				t.Fatalf("%v (want a model: %v)", err, tt.fits)
			case !tt.fits:
				t.Fatalf("a model %+v, want ErrTooFewPoints", m.USL)
			default:
				checkFiniteModel(t, m)
			}
		})
	}
}

// TestFitOfRandomQuantaEncodes fits small runs of random quanta, counts of
// calls over quanta of 10 ms to 2 s, some idle: whatever Fit returns
// encodes as model.json.
func TestFitOfRandomQuantaEncodes(t *testing.T) {
	t.Parallel()
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 9))
		qs := 0.01 + 2*rng.Float64()
		r := &analyze.Result{Summary: analyze.Summary{QuantumS: qs}}
		load := func() float64 { return float64(rng.IntN(4)) / 2 }
		if seed%2 == 1 {
			load = func() float64 { return 1.5 * rng.Float64() } // fractional loads, below one call in flight
		}
		for range 5 + rng.IntN(10) {
			ok := rng.IntN(4)
			rt := 0.0
			if ok > 0 {
				rt = float64(rng.IntN(3)) * 100
			}
			r.Quanta = append(r.Quanta, analyze.Quantum{Load: load(), Active: rng.IntN(2),
				Throughput: float64(ok) / qs, OK: ok, RT: analyze.RTStats{N: ok, Mean: rt}})
		}
		m, err := Fit(r)
		if errors.Is(err, ErrTooFewPoints) {
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkFiniteModel(t, m)
	}
}

func TestNoPeakAtFullContention(t *testing.T) {
	t.Parallel()
	// σ = 1: X(N) = λ/(1+κ(N−1)) falls from the lowest load on; the
	// formula's peak, sqrt((1−σ)/κ) = 0, has a throughput of 0/0
	if n, x, ok := (Params{2, 1, 6}).Peak(); ok {
		t.Errorf("a peak of %g at load %g", x, n)
	}
	if n, x, ok := (Params{2, 0.5, 0.005}).Peak(); !ok || n != 10 || x != 2*10/(1+0.5*9+0.005*90) {
		t.Errorf("peak %g at %g (%v), want at load 10", x, n, ok)
	}
}
