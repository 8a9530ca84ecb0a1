package analyze

import (
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

func TestQuantaCompletions(t *testing.T) {
	t.Parallel()
	ok := sample.OK
	tests := []struct {
		name    string
		quantum time.Duration
		testers []Tester
		calls   []sample.Call
		want    []Quantum // only T, OK, Failed, Throughput, Active checked
	}{
		// 250 ms quanta: throughput is 4× the count.
		{"quarter second", 250 * time.Millisecond, []Tester{tester(0, 0, 0.5)},
			[]sample.Call{call(0, 0, 0.1, ok), call(0, 0.1, 0.2, ok), call(0, 0.2, 0.24, ok), call(0, 0.24, 0.3, ok)},
			[]Quantum{{T: 0, OK: 3, Throughput: 12, Active: 1}, {T: 0.25, OK: 1, Throughput: 4, Active: 1}}},
		// A call is attributed to the quantum in which it ends.
		{"attributed at end", time.Second, []Tester{tester(0, 0, 3)},
			[]sample.Call{call(0, 0.5, 2.5, ok)},
			[]Quantum{{T: 0, Active: 1}, {T: 1, Active: 1}, {T: 2, OK: 1, Throughput: 1, Active: 1}}},
		// Active counts testers overlapping each quantum with positive length.
		{"active", time.Second, []Tester{tester(0, 0, 2), tester(1, 1, 3)},
			nil,
			[]Quantum{{T: 0, Active: 1}, {T: 1, Active: 2}, {T: 2, Active: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mustCompute(t, tc.quantum, tc.testers, tc.calls)
			if len(r.Quanta) != len(tc.want) {
				t.Fatalf("got %d quanta, want %d", len(r.Quanta), len(tc.want))
			}
			for q, w := range tc.want {
				g := r.Quanta[q]
				if !near(g.T, w.T) || g.OK != w.OK || g.Failed != w.Failed || !near(g.Throughput, w.Throughput) || g.Active != w.Active {
					t.Errorf("quantum %d: got T=%v ok=%d failed=%d thr=%v active=%d, want T=%v ok=%d failed=%d thr=%v active=%d",
						q, g.T, g.OK, g.Failed, g.Throughput, g.Active, w.T, w.OK, w.Failed, w.Throughput, w.Active)
				}
			}
		})
	}
}

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	calls := []sample.Call{
		call(0, 0, 0.1, sample.OK),
		call(0, 0, 0.2, sample.Failed),
		call(0, 0, 0.3, sample.Timeout),
		call(0, 0, 0.4, sample.FailedToStart),
		call(0, 0, 0.5, sample.Cancelled),
		call(0, 0, 0.6, sample.Cancelled),
	}
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 1)}, calls)
	want := map[string]int{"failed": 1, "timeout": 1, "failed_to_start": 1, "cancelled": 2}
	q := r.Quanta[0]
	if q.OK != 1 || q.Failed != 3 || !maps.Equal(q.Errors, want) {
		t.Errorf("quantum: ok=%d failed=%d errors=%v", q.OK, q.Failed, q.Errors)
	}
	s := r.Summary.Samples
	if s.Total != 6 || s.OK != 1 || s.Failed != 3 {
		t.Errorf("samples: %+v", s)
	}
	if !maps.Equal(r.Summary.Errors, want) {
		t.Errorf("summary errors: %v", r.Summary.Errors)
	}
	if r.Quanta[0].RT.N != 1 || !near(r.Quanta[0].RT.Max, 100) {
		t.Errorf("rt of ok calls only: %+v", r.Quanta[0].RT)
	}
}

func TestComputeRejects(t *testing.T) {
	t.Parallel()
	one := []Tester{tester(0, 0, 1)}
	tests := []struct {
		name string
		in   *Input
	}{
		// Quanta shorter than 10 ms are refused.
		{"short quantum", &Input{Quantum: 5 * time.Millisecond, Testers: one}},
		// Nothing at all to analyse.
		{"empty", &Input{Quantum: time.Second}},
		// A call cannot end before it starts.
		{"negative call", &Input{Quantum: time.Second, Testers: one, Calls: []sample.Call{call(0, 1, 0.5, sample.OK)}}},
		// Unknown status class.
		{"bad status", &Input{Quantum: time.Second, Testers: one, Calls: []sample.Call{call(0, 0, 0.5, 99)}}},
		// Two testers with the same index.
		{"duplicate tester", &Input{Quantum: time.Second, Testers: []Tester{tester(0, 0, 1), tester(0, 0, 1)}}},
		// A tester that stops before it starts.
		{"negative tester", &Input{Quantum: time.Second, Testers: []Tester{tester(0, 1, 0)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Compute(tc.in); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestSummaryBasics(t *testing.T) {
	t.Parallel()
	ts := []Tester{tester(0, 0, 2), tester(1, 0.5, 2.5)}
	ts[0].OffsetMs, ts[0].BoundMs = -3, 1
	ts[1].OffsetMs, ts[1].BoundMs, ts[1].Failed = 2, 4, true
	calls := []sample.Call{call(0, 0, 0.5, sample.OK), call(1, 1, 1.5, sample.OK), call(1, 1.5, 2.5, sample.OK)}
	in := &Input{Quantum: time.Second, Planned: 3, Lost: 7, Calls: calls, Testers: ts}
	r, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	if r.Origin != at(0) || len(r.Quanta) != 3 || !near(s.DurationS, 2.5) || !near(s.QuantumS, 1) {
		t.Errorf("origin %d quanta %d duration %v quantum %v", r.Origin, len(r.Quanta), s.DurationS, s.QuantumS)
	}
	if s.Testers != (TesterCounts{Planned: 3, Started: 2, Failed: 1}) || s.Samples.Lost != 7 {
		t.Errorf("testers %+v samples %+v", s.Testers, s.Samples)
	}
	if !reflect.DeepEqual(s.Clock, ClockSummary{MaxAbsOffsetMs: 3, MaxErrorBoundMs: 4}) {
		t.Errorf("clock %+v", s.Clock)
	}
	// Throughput per quantum: 1, 1, 1 → every statistic is 1.
	if tp := s.Throughput; tp.Unit != "calls/s" || tp.Min != 1 || tp.Max != 1 || tp.Median != 1 || tp.StdDev != 0 {
		t.Errorf("throughput %+v", tp)
	}
	// Load: quantum 0 holds 0.5 s of one call; quantum 1 holds 1 s.
	if !near(s.Load.Max, 1) {
		t.Errorf("load max %v", s.Load.Max)
	}
	// Percentiles come from a histogram: within 1%.
	if rt := s.ResponseTimeMs; rt.Min != 500 || rt.Max != 1000 || rt.Median < 500 || rt.Median > 505 {
		t.Errorf("rt %+v", rt)
	}
}
