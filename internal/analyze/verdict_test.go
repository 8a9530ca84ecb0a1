package analyze

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
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

// jitter multiplies the response time, and so the calls in flight, of
// the quanta by 1 to 5 in turn.
func jitter(qs []Quantum) []Quantum {
	for i := range qs {
		f := 1 + 4*float64(i%7)/6
		qs[i].Load *= f
		qs[i].RT.Mean *= f
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
		// Response times that vary for reasons of their own (1 to 5 times
		// the service time) move the calls in flight while the throughput
		// stays at the arrival rate: flat against the load, yet the
		// service kept up. The fit against the load called it saturated.
		{"open at a constant rate", jitter(openQuanta(steps(100, 100, 30), 1, oc, os)), VerdictNotSaturated, 100, 0,
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

// TestVerdictTesterLimited checks that a plateau made by the testers
// (their quanta tester-bound) is never called saturated, whether the
// plateau or most loaded quanta are bound, and that the reason given is
// the quanta's.
func TestVerdictTesterLimited(t *testing.T) {
	t.Parallel()
	const why = "tester CPU 97% ≥ 90%"
	plateau := closedQuanta(40, 3, 20, 0.1)
	for i := range plateau {
		if plateau[i].Load >= 21 {
			plateau[i].TesterBound = why
		}
	}
	most := closedQuanta(12, 3, 20, 0.1)
	for i := range most {
		if i%4 != 0 {
			most[i].TesterBound = why
		}
	}
	few := closedQuanta(40, 3, 20, 0.1)
	for i := range few {
		if i%5 == 0 {
			few[i].TesterBound = "lag"
		}
	}
	for name, tc := range map[string]struct {
		qs   []Quantum
		want string
	}{"plateau bound": {plateau, VerdictTesterLimited}, "most bound": {most, VerdictTesterLimited},
		"a fifth bound": {few, VerdictSaturated}} {
		got := JudgeSaturation(tc.qs, false)
		t.Logf("%s: %+v: %s", name, got, got.Text())
		if got.Verdict != tc.want || got.Saturated != (tc.want == VerdictSaturated) {
			t.Errorf("%s: verdict %q, want %q", name, got.Verdict, tc.want)
		}
		if tc.want == VerdictTesterLimited && !strings.HasPrefix(got.Text(), "limited by the testers ("+why) {
			t.Errorf("%s: words %q, want the quanta's reason", name, got.Text())
		}
	}
}

// TestVerdictTooLittleData checks that a run of two calls, or of too few
// loaded quanta, is too little to tell, at any quantum, and that the
// verdict says why.
func TestVerdictTooLittleData(t *testing.T) {
	t.Parallel()
	calls := []sample.Call{call(0, 0.1, 0.3, sample.OK), call(0, 0.3, 0.5, sample.OK)}
	for _, q := range []time.Duration{time.Second, 100 * time.Millisecond, 10 * time.Millisecond} {
		got := mustCompute(t, q, []Tester{tester(0, 0, 0.6)}, calls).Summary.Saturation
		if got.Verdict != VerdictTooLittleData || got.Saturated || !strings.HasPrefix(got.Text(), "too little data to tell (") {
			t.Errorf("quantum %v: %+v %q, want too little data", q, got, got.Text())
		}
	}
	// The quanta of a real run of two calls of 700 ms, analyzed at 10 ms:
	// both in flight for 69 quanta, then both end in one. A fit that
	// trusts them finds a "plateau" of 0 calls/s at a load of 2.
	pts := []loadPoint{{l: 1.1734}, {l: 1.1603, x: 200, n: 2, rt: 700}}
	for range 69 {
		pts = append(pts, loadPoint{l: 2})
	}
	if got := verdict(pts, false); got.Verdict != VerdictTooLittleData || got.Saturated {
		t.Errorf("two calls of a real run: %+v, want too little data", got)
	}
	// Plenty of calls in 4 quanta: a plateau of 4 points is no evidence.
	four := closedQuanta(40, 3, 20, 0.1)[:4]
	if got := JudgeSaturation(four, false); got.Verdict != VerdictTooLittleData {
		t.Errorf("4 quanta: %+v, want too little data", got)
	}
	if got := JudgeSaturation(closedQuanta(40, 3, 20, 0.1)[:5], false); got.Verdict == VerdictTooLittleData {
		t.Errorf("5 quanta of 10 calls and more: %+v, want a verdict", got)
	}
}
