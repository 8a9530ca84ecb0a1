package analyze

import (
	"bytes"
	"encoding/csv"
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// healthRun is a closed-loop run of n testers over [0, dur) s after t0,
// each making back-to-back calls of rtMs, with the health rows health
// gives for each tester and whole second (nil: no row).
func healthRun(t *testing.T, q time.Duration, n int, from, dur, rtMs float64, health func(slot int, s int64) *sample.Health) *Result {
	t.Helper()
	in := &Input{Name: "health", Quantum: q, Planned: n}
	for i := range n {
		in.Testers = append(in.Testers, tester(i, from, dur))
		for s := from; s+rtMs/1000 <= dur; s += rtMs / 1000 {
			in.Calls = append(in.Calls, call(int32(i), s, s+rtMs/1000, sample.OK))
		}
		for s := int64(math.Floor(from)); float64(s) < dur; s++ {
			if h := health(i, s); h != nil {
				h.Slot, h.T = i, t0/1e9+s
				in.Health = append(in.Health, *h)
			}
		}
	}
	r, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// healthy is a tester with CPU, host and schedule to spare: 5% of its
// CPU, its host 20% busy, calls started 0.3 ms late, 40 of 1024
// descriptors.
func healthy() *sample.Health {
	return &sample.Health{CPUPct: 5, CPUCores: 2, HostBusyPct: 20, HostStealPct: 0,
		LagMeanMs: 0.3, LagMaxMs: 1, Starts: 10, FDs: 40, FDLimit: 1024}
}

// boundQuanta returns the TesterBound of each quantum of r.
func boundQuanta(r *Result) []string {
	out := make([]string, len(r.Quanta))
	for i, q := range r.Quanta {
		out[i] = q.TesterBound
	}
	return out
}

// TestTesterBoundPinnedCore: a tester pinned with taskset onto one core
// that a busy loop keeps at 100% gets half the core (its own CPU 50%),
// its calls start late, and its host CPU is all busy: every quantum it
// ran in is tester-bound, for its host's CPU and its schedule.
func TestTesterBoundPinnedCore(t *testing.T) {
	t.Parallel()
	r := healthRun(t, time.Second, 1, 0, 6, 100, func(int, int64) *sample.Health {
		return &sample.Health{CPUPct: 50, CPUCores: 1, HostBusyPct: 100, HostStealPct: 0,
			LagMeanMs: 40, LagMaxMs: 90, Starts: 7, FDs: 12, FDLimit: 1024}
	})
	want := "host CPU busy 100% (tester 0); schedule late by 40 ms (tester 0)"
	for i, b := range boundQuanta(r) {
		if b != want {
			t.Errorf("quantum %d: tester_bound %q, want %q", i, b, want)
		}
	}
	if s := r.Summary.Testers; s.HealthQuanta != 6 || s.BoundQuanta != 6 {
		t.Errorf("summary: %d quanta with health, %d tester-bound; want 6 and 6", s.HealthQuanta, s.BoundQuanta)
	}
}

// TestTesterBoundSaturatedService: healthy testers on an idle host
// driving a saturated service (its response times grow with the load,
// queueing at the server) limit nothing.
func TestTesterBoundSaturatedService(t *testing.T) {
	t.Parallel()
	r := healthRun(t, time.Second, 8, 0, 10, 400, func(int, int64) *sample.Health { return healthy() })
	for i, b := range boundQuanta(r) {
		if b != "" {
			t.Errorf("quantum %d: tester_bound %q, want none", i, b)
		}
	}
	if s := r.Summary.Testers; s.HealthQuanta != 10 || s.BoundQuanta != 0 {
		t.Errorf("summary: %d quanta with health, %d tester-bound; want 10 and 0", s.HealthQuanta, s.BoundQuanta)
	}
}

// TestTesterBoundMinority: one starved tester of five was asked for 20%
// of the load, under a quarter: the quantum is the service's; two of five
// (40%) make it tester-bound, and the reason names them.
func TestTesterBoundMinority(t *testing.T) {
	t.Parallel()
	starve := func(slots ...int) func(int, int64) *sample.Health {
		return func(slot int, _ int64) *sample.Health {
			h := healthy()
			for _, s := range slots {
				if s == slot {
					h.CPUPct = 97
				}
			}
			return h
		}
	}
	for _, c := range []struct {
		slots []int
		want  string
	}{
		{[]int{3}, ""},
		{[]int{1, 3}, "tester CPU 97% (tester 1, 3)"},
		{[]int{0, 1, 2, 4}, "tester CPU 97% (4 of 5 testers)"},
	} {
		r := healthRun(t, time.Second, 5, 0, 4, 100, starve(c.slots...))
		for i, b := range boundQuanta(r) {
			if b != c.want {
				t.Errorf("testers %v starved, quantum %d: tester_bound %q, want %q", c.slots, i, b, c.want)
			}
		}
	}
}

// TestTesterBoundLag: a tester whose calls of 100 ms start 180 ms late
// loses 180 / 280 of its loop's time: tester-bound. A tester of a fast
// service 1 ms late on each of its 500 calls a second loses half its
// loop to lag, but 1 ms is the ordinary cost of a call loop (below
// starvedLagMs): not tester-bound. A busy host starves a tester that
// uses its CPU (or whose CPU is unknown), not one that needs 5% of it and
// starts its calls on time (as beside a CPU-bound service on its host).
// Steal and descriptors name theirs.
func TestTesterBoundReasons(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		set  func(h *sample.Health)
		want string
	}{
		{"late", func(h *sample.Health) { h.LagMeanMs, h.LagMaxMs, h.Starts = 180, 300, 4 }, "schedule late by 180 ms (tester 0)"},
		{"fast loop", func(h *sample.Health) { h.LagMeanMs, h.LagMaxMs, h.Starts = 1, 3, 500 }, ""},
		{"steal", func(h *sample.Health) { h.HostStealPct = 25 }, "host CPU steal 25% (tester 0)"},
		{"busy host, idle tester", func(h *sample.Health) { h.HostBusyPct = 100 }, ""},
		{"busy host, busy tester", func(h *sample.Health) { h.HostBusyPct, h.CPUPct = 99, 30 }, "host CPU busy 99% (tester 0)"},
		{"busy host, CPU unknown", func(h *sample.Health) { h.HostBusyPct, h.CPUPct = 100, math.NaN() }, "host CPU busy 100% (tester 0)"},
		{"descriptors", func(h *sample.Health) { h.FDs, h.FDLimit = 1019, 1024 }, "descriptors 1019/1024 (tester 0)"},
		{"no figures", func(h *sample.Health) {
			*h = sample.Health{CPUPct: math.NaN(), CPUCores: math.NaN(), HostBusyPct: math.NaN(), HostStealPct: math.NaN(),
				LagMeanMs: math.NaN(), LagMaxMs: math.NaN()}
		}, ""},
	} {
		r := healthRun(t, time.Second, 1, 0, 3, 100, func(int, int64) *sample.Health {
			h := healthy()
			c.set(h)
			return h
		})
		for i, b := range boundQuanta(r) {
			if b != c.want {
				t.Errorf("%s, quantum %d: tester_bound %q, want %q", c.name, i, b, c.want)
			}
		}
	}
}

// TestTesterBoundNoHealth: a run without health knows nothing of its
// testers: no quantum is marked, and summary.json says nothing of it.
func TestTesterBoundNoHealth(t *testing.T) {
	t.Parallel()
	r := healthRun(t, time.Second, 2, 0, 3, 100, func(int, int64) *sample.Health { return nil })
	for i, b := range boundQuanta(r) {
		if b != "" {
			t.Errorf("quantum %d: tester_bound %q without health", i, b)
		}
	}
	if s := r.Summary.Testers; s.HealthQuanta != 0 || s.BoundQuanta != 0 || r.TesterHealth(0, len(r.Quanta)).Known {
		t.Errorf("summary %+v, health %+v: want nothing known", s, r.TesterHealth(0, len(r.Quanta)))
	}
}

// TestTesterBoundCSV: quanta.csv has the reason in its tester_bound
// column, read by header.
func TestTesterBoundCSV(t *testing.T) {
	t.Parallel()
	r := healthRun(t, time.Second, 1, 0, 2, 100, func(_ int, s int64) *sample.Health {
		h := healthy()
		if s == 1 {
			h.CPUPct = 99
		}
		return h
	})
	var b bytes.Buffer
	if err := WriteQuanta(&b, r.Quanta); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range recs[0] {
		if h == "tester_bound" {
			col = i
		}
	}
	if col < 0 || len(recs) != 3 {
		t.Fatalf("quanta.csv: header %v, %d rows; want a tester_bound column and 2 rows", recs[0], len(recs)-1)
	}
	if recs[1][col] != "" || recs[2][col] != "tester CPU 99% (tester 0)" {
		t.Errorf("tester_bound %q, %q; want \"\" and %q", recs[1][col], recs[2][col], "tester CPU 99% (tester 0)")
	}
}
