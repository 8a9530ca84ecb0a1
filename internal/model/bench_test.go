package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
)

// benchRun is a 2,000-quantum run on a retrograde USL curve, its loads
// spread evenly over 1..60 as a ramp would.
func benchRun() *analyze.Result {
	rng := rand.New(rand.NewPCG(10, 0))
	n := make([]float64, 2000)
	for i := range n {
		n[i] = 1 + 59*rng.Float64()
	}
	return synthetic(n, usl(100, 0.05, 0.002), 0.03, 10)
}

func BenchmarkFit(b *testing.B) {
	r := benchRun()
	for b.Loop() {
		if _, err := Fit(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitDemoLike fits the run (16 testers, 7 workers × 70 ms
// on a busy machine) analyzed at 250 ms: a hard knee, the bounds predict.
func BenchmarkFitDemoLike(b *testing.B) {
	r, err := demoLike(16, time.Second, 20*time.Second, 7, 70*time.Millisecond).simulate(1, 250*time.Millisecond)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Fit(r); err != nil {
			b.Fatal(err)
		}
	}
}
