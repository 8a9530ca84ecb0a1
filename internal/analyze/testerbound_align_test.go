package analyze

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// starvedAt returns health rows that are healthy but for a CPU of 97% in
// the seconds (after t0) of starved.
func starvedAt(starved ...int64) func(int, int64) *sample.Health {
	return func(_ int, s int64) *sample.Health {
		h := healthy()
		if slices.Contains(starved, s) {
			h.CPUPct = 97
		}
		return h
	}
}

// boundIndices returns the indices of r's tester-bound quanta.
func boundIndices(r *Result) []int {
	var out []int
	for i, q := range r.Quanta {
		if q.TesterBound != "" {
			out = append(out, i)
		}
	}
	return out
}

// TestTesterBoundHalfSecondQuanta: with 0.5 s quanta from an origin half a
// second past a whole second, the health of global second t0+1 covers the
// quanta at 0.5 s and 1 s since the origin, and no other.
func TestTesterBoundHalfSecondQuanta(t *testing.T) {
	t.Parallel()
	r := healthRun(t, 500*time.Millisecond, 1, 0.5, 4, 100, starvedAt(1))
	if r.Origin != at(0.5) {
		t.Fatalf("origin %d, want t0 + 0.5 s", r.Origin)
	}
	if got := boundIndices(r); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("tester-bound quanta %v, want [1 2] (t = 0.5 s and 1 s: global second t0+1)", got)
	}
	if h := r.TesterHealth(1, 3); !h.Known || h.CPUPct != 97 {
		t.Errorf("health over quanta 1-2 %+v, want CPU 97%%", h)
	}
	if h := r.TesterHealth(3, 5); h.CPUPct != 5 {
		t.Errorf("health over quanta 3-4 %+v, want CPU 5%%", h)
	}
}

// TestTesterBoundTwoSecondQuanta: a 2 s quantum holds two seconds of
// health; the tester's CPU over it is their mean, so two starved seconds
// make it tester-bound and one of two does not (97 and 5: 51%).
func TestTesterBoundTwoSecondQuanta(t *testing.T) {
	t.Parallel()
	r := healthRun(t, 2*time.Second, 1, 1, 8, 100, starvedAt(2, 3, 5))
	if r.Origin != at(0) {
		t.Fatalf("origin %d, want t0", r.Origin)
	}
	if got := boundIndices(r); !slices.Equal(got, []int{1}) {
		t.Errorf("tester-bound quanta %v, want [1] (seconds 2 and 3 starved; of quantum 2 only second 5)", got)
	}
	if got := r.Quanta[1].TesterBound; got != "tester CPU 97% (tester 0)" {
		t.Errorf("quantum 1: %q", got)
	}
	if h := r.TesterHealth(2, 3); h.CPUPct != 97 {
		t.Errorf("health over quantum 2 %+v: want its highest second's CPU, 97%%", h)
	}
}

// TestTesterHealthRefused: rows no tester of the run can have measured
// (an unknown tester, CPU past what it may use, a busy host beyond 100%,
// a negative lag, more descriptors than the limit, a second far outside
// its life, a repeated second) are refused, counted and never used.
func TestTesterHealthRefused(t *testing.T) {
	t.Parallel()
	in := &Input{Name: "refused", Quantum: time.Second, Planned: 1, Testers: []Tester{tester(0, 0, 3)}}
	for s := 0.0; s < 3; s += 0.1 {
		in.Calls = append(in.Calls, call(0, s, s+0.1, sample.OK))
	}
	sec := t0 / 1e9
	good := *healthy()
	good.T = sec + 1
	bad := func(f func(h *sample.Health)) sample.Health {
		h := *healthy()
		h.T = sec
		f(&h)
		return h
	}
	in.Health = []sample.Health{
		bad(func(h *sample.Health) { h.Slot, h.CPUPct = 7, 99 }),
		bad(func(h *sample.Health) { h.CPUPct = 500 }),
		bad(func(h *sample.Health) { h.HostBusyPct = 101 }),
		bad(func(h *sample.Health) { h.LagMeanMs = -5 }),
		bad(func(h *sample.Health) { h.FDs, h.FDLimit = 2000, 1024 }),
		bad(func(h *sample.Health) { h.T, h.CPUPct = math.MaxInt64, 99 }),
		bad(func(h *sample.Health) { h.T, h.CPUPct = math.MinInt64, 99 }),
		bad(func(h *sample.Health) { h.HostBusyPct = math.Inf(1) }),
		good,
		func() sample.Health { h := good; h.CPUPct = 99; return h }(),
	}
	r, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary.Testers
	if s.HealthRefused != 9 || s.HealthRefusedReason != "tester 7: not a tester of the run" {
		t.Errorf("%d rows refused (first: %q), want 9 (first: tester 7: not a tester of the run)", s.HealthRefused, s.HealthRefusedReason)
	}
	if got := boundIndices(r); len(got) != 0 || s.HealthQuanta != 1 {
		t.Errorf("tester-bound quanta %v, %d with health; want none of 1 (only the good row of second 1)", got, s.HealthQuanta)
	}
}
