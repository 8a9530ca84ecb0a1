package analyze

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

func TestLoadSweep(t *testing.T) {
	t.Parallel()
	ok, cancelled := sample.OK, sample.Cancelled
	tests := []struct {
		name    string
		testers []Tester
		calls   []sample.Call
		load    []float64 // per quantum (1 s)
		max     []int
	}{
		// Two calls overlapping for half of the quantum: 1 + 0.5 in flight.
		{"half overlap", []Tester{tester(0, 0, 1)},
			[]sample.Call{call(0, 0, 1, ok), call(0, 0.5, 1, ok)},
			[]float64{1.5}, []int{2}},
		// One call crossing two quantum boundaries.
		{"crossing", []Tester{tester(0, 0, 3)},
			[]sample.Call{call(0, 0.5, 2.5, ok)},
			[]float64{0.5, 1, 0.5}, []int{1, 1, 1}},
		// Back to back: an end and a start at the same instant never overlap.
		{"back to back", []Tester{tester(0, 0, 1)},
			[]sample.Call{call(0, 0, 0.5, ok), call(0, 0.5, 1, ok)},
			[]float64{1}, []int{1}},
		// A zero-length call is never in flight.
		{"zero length", []Tester{tester(0, 0, 1)},
			[]sample.Call{call(0, 0.3, 0.3, ok)},
			[]float64{0}, []int{0}},
		// Cancelled calls count as in flight too.
		{"cancelled in flight", []Tester{tester(0, 0, 1)},
			[]sample.Call{call(0, 0, 1, cancelled), call(0, 0, 0.25, ok)},
			[]float64{1.25}, []int{2}},
		// A call starting before the origin is clipped to it.
		{"before origin", []Tester{tester(0, 1, 2)},
			[]sample.Call{call(0, 0.5, 1.5, ok)},
			[]float64{0.5}, []int{1}},
		// An idle quantum between two calls.
		{"gap", []Tester{tester(0, 0, 3)},
			[]sample.Call{call(0, 0, 1, ok), call(0, 2, 3, ok)},
			[]float64{1, 0, 1}, []int{1, 0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mustCompute(t, time.Second, tc.testers, tc.calls)
			if len(r.Quanta) != len(tc.load) {
				t.Fatalf("got %d quanta, want %d", len(r.Quanta), len(tc.load))
			}
			for q, want := range tc.load {
				if got := r.Quanta[q]; !near(got.Load, want) || got.LoadMax != tc.max[q] {
					t.Errorf("quantum %d: load %v max %d, want %v max %d", q, got.Load, got.LoadMax, want, tc.max[q])
				}
			}
		})
	}
}

// TestLoadSweepBruteForce checks the sweep line against a direct count of
// the overlap of every call with every quantum on random data.
func TestLoadSweepBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const qn = int64(100 * time.Millisecond)
	calls := make([]sample.Call, 500)
	for i := range calls {
		s := t0 + rng.Int64N(10*int64(time.Second))
		calls[i] = sample.Call{Start: s, End: s + rng.Int64N(int64(time.Second))}
	}
	r := mustCompute(t, time.Duration(qn), nil, calls)
	for q, got := range r.Quanta {
		lo, hi := r.Origin+int64(q)*qn, r.Origin+int64(q+1)*qn
		var area int64
		for _, c := range calls {
			area += max(0, min(c.End, hi)-max(c.Start, lo))
		}
		if want := float64(area) / float64(qn); !near(got.Load, want) {
			t.Fatalf("quantum %d: load %v, want %v", q, got.Load, want)
		}
		if got.LoadMax < int(got.Load) || (got.Load > 0) != (got.LoadMax > 0) {
			t.Fatalf("quantum %d: max %d inconsistent with load %v", q, got.LoadMax, got.Load)
		}
	}
}
