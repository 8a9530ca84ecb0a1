package analyze

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// closedQuanta are 1 s quanta of a closed-loop ramp of loads 1..top and
// back, reps quanta a level, against a service of c slots of s seconds:
// X = min(L, c)/s ±3%, the response time s (more once queued).
func closedQuanta(top, reps int, c, s float64) []Quantum {
	loads, thr := rampPoints(top, reps, 0.03, func(l float64) float64 { return math.Min(l, c) / s })
	qs := make([]Quantum, len(loads))
	for i := range loads {
		rt := 1000 * s * math.Max(1, loads[i]/c)
		qs[i] = Quantum{Load: loads[i], Throughput: thr[i], Active: 1, RT: RTStats{N: int(thr[i]), Mean: rt}}
	}
	return qs
}

// openQuanta are 1 s quanta of an open-model run whose offered rate
// steps through rates, reps quanta each, against a service of capacity
// c calls/s and service time s: X = min(λ, c) ±3%; the calls in flight
// are λ·s below capacity and pile up (one more second of backlog per
// quantum) above it.
func openQuanta(rates []float64, reps int, c, s float64) []Quantum {
	rng := rand.New(rand.NewPCG(3, uint64(c)))
	var qs []Quantum
	backlog := 0.0
	for _, r := range rates {
		for range reps {
			x := math.Min(r, c) * (1 + 0.03*(2*rng.Float64()-1))
			backlog = max(0, backlog+r-c)
			rt := 1000 * (s + backlog/c)
			load := x * rt / 1000
			qs = append(qs, Quantum{Load: load, Throughput: x, Active: 1, RT: RTStats{N: int(x), Mean: rt},
				Open: &OpenQuantum{OfferedPS: r, AchievedPS: x}})
		}
	}
	return qs
}

// steps returns n rates from lo to hi.
func steps(lo, hi float64, n int) []float64 {
	rs := make([]float64, n)
	for i := range rs {
		rs[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return rs
}

// TestVerdictKnownAnswers checks each verdict on quanta whose truth is
// set by their parameters.
func TestVerdictKnownAnswers(t *testing.T) {
	t.Parallel()
	const c, s = 20.0, 0.1 // closed: 20 slots of 100 ms, capacity 200 calls/s
	const oc, os = 400.0, 0.02
	tests := []struct {
		name     string
		qs       []Quantum
		verdict  string
		thr      float64 // the plateau (saturated) or capacity_at_least (not saturated)
		load     float64 // the saturation load, when saturated
		contains string  // in the words
	}{
		{"closed plateau at C", closedQuanta(40, 3, c, s), VerdictSaturated, c / s, c,
			"saturated at load"},
		{"closed ramp to 60% of C", closedQuanta(12, 3, c, s), VerdictNotSaturated, 12 / s, 0,
			"not saturated within the tested range (capacity ≥ "},
		{"open below capacity", openQuanta(steps(20, 200, 10), 3, oc, os), VerdictNotSaturated, 200, 0,
			"not saturated within the tested range"},
		{"open beyond capacity", openQuanta(steps(50, 800, 16), 3, oc, os), VerdictSaturated, oc, oc * os,
			"saturated at load"},
		{"open at a constant rate", openQuanta(steps(100, 100, 20), 1, oc, os), VerdictNotSaturated, 100, 0,
			"not saturated within the tested range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := JudgeSaturation(tc.qs, false)
			t.Logf("%+v: %s", got, got.Text())
			if got.Verdict != tc.verdict || got.Saturated != (tc.verdict == VerdictSaturated) {
				t.Fatalf("verdict %q (saturated %v), want %q", got.Verdict, got.Saturated, tc.verdict)
			}
			if !strings.Contains(got.Text(), tc.contains) || got.Evidence == "" {
				t.Errorf("words %q (evidence %q), want them to say %q", got.Text(), got.Evidence, tc.contains)
			}
			x := got.Throughput
			if tc.verdict == VerdictNotSaturated {
				x = got.CapacityAtLeast
			}
			if math.Abs(x-tc.thr) > 0.05*tc.thr {
				t.Errorf("throughput %.1f, want %.1f ± 5%%", x, tc.thr)
			}
			if tc.load > 0 && math.Abs(got.Load-tc.load) > 0.15*tc.load {
				t.Errorf("saturation load %.2f, want %.2f ± 15%%", got.Load, tc.load)
			}
		})
	}
}
