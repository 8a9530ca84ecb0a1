package threshold

import (
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/sample"
)

// healthRun is handRun with the testers' health (health.csv): each
// second of each tester's life 30% CPU, its host 40% busy and 1%
// stolen, 0.5 ms lag at most, 20 descriptors; but tester 1 from second
// 15 on: 95% CPU, 99% busy, 250 ms lag, 900 descriptors.
func healthRun(t *testing.T) *analyze.Result {
	t.Helper()
	in := handInput()
	for _, tr := range in.Testers {
		for s := tr.Start / 1e9; s < tr.End/1e9; s++ {
			h := sample.Health{Slot: tr.Index, T: s, CPUPct: 30, CPUCores: 2, HostBusyPct: 40, HostStealPct: 1,
				LagMeanMs: 0.2, LagMaxMs: 0.5, Starts: 10, FDs: 20, FDLimit: 1024}
			if tr.Index == 1 && s >= t0/1e9+15 {
				h.CPUPct, h.HostBusyPct, h.LagMeanMs, h.LagMaxMs, h.FDs = 95, 99, 200, 250, 900
			}
			in.Health = append(in.Health, h)
		}
	}
	res, err := analyze.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The testers' health metrics read the highest of any tester in any
// second of the window, from health.csv.
func TestEvaluateHealth(t *testing.T) {
	t.Parallel()
	res := healthRun(t)
	tests := []struct {
		check, over string
		want        float64
		passed      bool
	}{
		{"tester_cpu_pct < 80", "", 95, false},
		{"tester_cpu_pct < 80%", "last 5s", 95, false},
		{"tester_cpu_pct < 80", "last 10s", 95, false},
		{"host_busy_pct < 90", "", 99, false},
		{"host_steal_pct <= 1%", "", 1, true},
		{"schedule_lag_ms < 100", "", 250, false},
		{"tester_fds < 1000", "peak", 900, true},
	}
	for _, tc := range tests {
		rs, err := Evaluate([]experiment.Threshold{{Check: tc.check, Over: tc.over}}, res)
		if err != nil {
			t.Fatal(err)
		}
		r := rs[0]
		if r.Observed == nil || *r.Observed != tc.want || r.Passed != tc.passed {
			t.Errorf("%s over %q: observed %s, passed %v; want %v, %v", tc.check, tc.over, r.ObservedText(), r.Passed, tc.want, tc.passed)
		}
	}
}

// Over the first 10 s only tester 0 ran, healthy: its figures pass; a
// window in which no tester reported its health, or a run without
// health.csv, has no data: never a silent pass.
func TestEvaluateHealthWindows(t *testing.T) {
	t.Parallel()
	withHealth, without := healthRun(t), handRun(t)
	cut := *withHealth
	cut.Quanta = cut.Quanta[:10] // the run as its first 10 s: last 5s is 5-10 s
	rs, err := Evaluate([]experiment.Threshold{{Check: "tester_cpu_pct < 80", Over: "last 5s"}, {Check: "schedule_lag_ms < 1", Over: "last 5s"}}, &cut)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Observed == nil || !r.Passed {
			t.Errorf("%s over the first 10 s: observed %s, passed %v; want a pass", r.Name, r.ObservedText(), r.Passed)
		}
	}
	for _, m := range []string{"tester_cpu_pct < 80", "host_busy_pct < 95", "host_steal_pct < 5", "schedule_lag_ms < 100", "tester_fds < 1000"} {
		rs, err := Evaluate([]experiment.Threshold{{Check: m}}, without)
		if err != nil {
			t.Fatal(err)
		}
		if r := rs[0]; r.Observed != nil || r.Passed || r.ObservedText() != "no data" {
			t.Errorf("%s without health.csv: observed %s, passed %v; want no data, not passed", m, r.ObservedText(), r.Passed)
		}
	}
}

// healthSec is a second of 10 calls of 10 ms with the testers' health.
func healthSec(t int64, cpu, lag float64, fds int) Second {
	s := sec(t, 10, 10, 0)
	s.Health, s.TesterCPUPct, s.HostBusyPct, s.HostStealPct, s.LagMaxMs, s.FDs = true, cpu, 50, math.NaN(), lag, fds
	return s
}

// Live, the health metrics breach like any other over their window and
// for: duration; a second without health is no data, never a failure;
// a figure no tester measured (steal here) is no data either.
func TestLiveHealth(t *testing.T) {
	t.Parallel()
	l, err := NewLive([]experiment.Threshold{
		{Check: "tester_cpu_pct < 80", Over: "last 2s", Abort: true, For: experiment.Duration(2 * time.Second)},
		{Check: "schedule_lag_ms < 100", Abort: true},
		{Check: "host_steal_pct < 1", Abort: true},
		{Check: "tester_fds < 1000", Over: "last 3s", Abort: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := feed(t, l,
		sec(1001, 10, 10, 0), sec(1002, 10, 10, 0), // no health yet: no data
		healthSec(1003, 30, 1, 20),
		healthSec(1004, 90, 2, 20),     // CPU failing since 1004
		sec(1005, 10, 10, 0),           // no health: the window still holds 1004
		healthSec(1006, 20, 150, 1019), // lag and descriptors fail at once; CPU: 20 and nothing → passes
		healthSec(1007, 20, 1, 20),     // the run window keeps the 150 ms lag; the 3 s window keeps 1019
	)
	want := map[int64][]string{
		1005: {"tester_cpu_pct < 80 over last 2s"},
		1006: {"schedule_lag_ms < 100", "tester_fds < 1000 over last 3s"},
		1007: {"schedule_lag_ms < 100", "tester_fds < 1000 over last 3s"},
	}
	if len(got) != len(want) {
		t.Errorf("breaches at %d seconds (%v), want %d", len(got), got, len(want))
	}
	for s, names := range want {
		var have []string
		for _, b := range got[s] {
			have = append(have, b.Name)
		}
		if len(have) != len(names) {
			t.Errorf("second %d: breaches %v, want %v", s, have, names)
			continue
		}
		for i := range names {
			if have[i] != names[i] {
				t.Errorf("second %d: breaches %v, want %v", s, have, names)
			}
		}
	}
}

// A tester always has a descriptor open: a second reporting 0 counted
// none, and is no data for tester_fds, not a value.
func TestLiveHealthNoDescriptors(t *testing.T) {
	t.Parallel()
	l, err := NewLive([]experiment.Threshold{{Check: "tester_fds > 5", Abort: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := feed(t, l, healthSec(1001, 30, 1, 0), healthSec(1002, 30, 1, 0)); len(got) != 0 {
		t.Errorf("breaches %v on seconds with no descriptors counted; want none", got)
	}
	if got := feed(t, l, healthSec(1003, 30, 1, 3)); len(got) != 1 {
		t.Errorf("breaches %v with 3 descriptors; want tester_fds > 5 failed", got)
	}
}

// LiveSecond carries the live view's health into the thresholds: none
// reported (live.Second's zeros) is no data; reported, it is checked.
func TestLiveSecondHealth(t *testing.T) {
	t.Parallel()
	l, err := NewLive([]experiment.Threshold{{Check: "tester_cpu_pct < 80", Abort: true}, {Check: "host_steal_pct < 1", Abort: true}})
	if err != nil {
		t.Fatal(err)
	}
	quiet := live.Second{T: 1001, OK: 10, Load: 1}
	if s := LiveSecond(quiet, nil); s.Health {
		t.Errorf("a second without health reads %+v", s)
	}
	busy := live.Second{T: 1002, OK: 10, Load: 1, TesterCPUPct: 97, HostBusyPct: 100, LagMaxMs: 30, FDs: 12, HealthN: 1, HostN: 1}
	got := feed(t, l, LiveSecond(quiet, nil), LiveSecond(busy, nil))
	if len(got) != 1 || len(got[1002]) != 1 || got[1002][0].Name != "tester_cpu_pct < 80" || got[1002][0].Observed != 97 {
		t.Errorf("breaches %v; want tester_cpu_pct < 80 at 97 in second 1002 only (steal: no data live)", got)
	}
}
