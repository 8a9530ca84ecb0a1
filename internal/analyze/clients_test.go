package analyze

import (
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// okCalls returns successful calls of tester i ending at the given seconds,
// each lasting 100 ms.
func okCalls(i int32, ends ...float64) []sample.Call {
	out := make([]sample.Call, len(ends))
	for k, e := range ends {
		out[k] = call(i, e-0.1, e, sample.OK)
	}
	return out
}

func TestUtilization(t *testing.T) {
	t.Parallel()
	// A lives [0, 10], B [5, 15]; the peak window is their overlap [5, 10].
	testers := []Tester{tester(1, 5, 15), tester(0, 0, 10)} // any order
	calls := append(okCalls(0, 1, 2, 3, 6, 7), okCalls(1, 6, 8, 11, 12)...)
	calls = append(calls, call(0, 8, 9, sample.Failed), call(1, 13, 14, sample.Cancelled))
	r := mustCompute(t, time.Second, testers, calls)
	tests := []struct {
		name  string
		got   Share
		ok    int
		fail  int
		util  float64
		isNil bool
	}{
		// A's window [0, 10] holds A's 5 and B's 2 completions.
		{"A whole", r.Clients[0].Whole, 5, 1, 5.0 / 7, false},
		// B's window [5, 15] holds A's 2 and B's 4; the cancelled call is not failed.
		{"B whole", r.Clients[1].Whole, 4, 0, 4.0 / 6, false},
		// The peak window [5, 10] holds 2 of A's and 2 of B's completions.
		{"A peak", r.Clients[0].Peak, 2, 1, 0.5, false},
		{"B peak", r.Clients[1].Peak, 2, 0, 0.5, false},
	}
	for _, tc := range tests {
		if tc.got.OK != tc.ok || tc.got.Failed != tc.fail || !near(tc.got.Utilization, tc.util) {
			t.Errorf("%s: got %+v, want ok=%d failed=%d util=%v", tc.name, tc.got, tc.ok, tc.fail, tc.util)
		}
	}
	if c := r.Clients[0]; c.Index != 0 || c.StartS != 0 || c.EndS != 10 || !near(c.Whole.MeanRTms, 100) || !near(c.Whole.P99RTms, 100) {
		t.Errorf("client 0: %+v", c)
	}
	if r.Clients[1].Index != 1 || r.Clients[1].StartS != 5 {
		t.Errorf("client 1: %+v", r.Clients[1])
	}
	if p := r.Summary.Peak; p != (Peak{StartS: 5, EndS: 10, Testers: 2}) {
		t.Errorf("peak %+v", p)
	}
	if j := r.Summary.Fairness.Jain; !near(j, 1) {
		t.Errorf("jain %v", j)
	}
}

func TestPeakShareOutside(t *testing.T) {
	t.Parallel()
	// A [0, 10] and B [2, 8] overlap in [2, 8]; C [12, 14] runs alone later.
	testers := []Tester{tester(0, 0, 10), tester(1, 2, 8), tester(2, 12, 14)}
	calls := append(okCalls(0, 3, 4, 5), okCalls(1, 5)...)
	calls = append(calls, okCalls(2, 13, 13.5)...)
	r := mustCompute(t, time.Second, testers, calls)
	if c := r.Clients[2]; c.Peak != (Share{}) || c.Whole.OK != 2 || c.Whole.Utilization != 1 {
		t.Errorf("C: %+v", c)
	}
	// Peak counts (3, 1): Jain = 16 / (2·10) = 0.8.
	if j := r.Summary.Fairness.Jain; !near(j, 0.8) {
		t.Errorf("jain %v", j)
	}
	if a := r.Clients[0].Peak; a.OK != 3 || !near(a.Utilization, 0.75) {
		t.Errorf("A peak %+v", a)
	}
}

func TestAvgLoad(t *testing.T) {
	t.Parallel()
	// One tester over [0, 10]: one call the whole time, one over [0, 5):
	// mean load 1.5 over its lifetime; B [5, 10] sees load 1 (peak window).
	testers := []Tester{tester(0, 0, 10), tester(1, 5, 10)}
	calls := []sample.Call{call(0, 0, 10, sample.OK), call(0, 0, 5, sample.OK)}
	r := mustCompute(t, time.Second, testers, calls)
	if got := r.Clients[0].Whole.AvgLoad; !near(got, 1.5) {
		t.Errorf("A avg load %v, want 1.5", got)
	}
	if got := r.Clients[1].Whole.AvgLoad; !near(got, 1) {
		t.Errorf("B avg load %v, want 1", got)
	}
	if got := r.Clients[0].Peak.AvgLoad; !near(got, 1) {
		t.Errorf("A peak avg load %v, want 1", got)
	}
}
