package live

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// hr is a health report of tester slot for second base+s.
func hr(slot int, s int64, cpu, host, lag float64, starts, fds int) sample.Health {
	return sample.Health{Slot: slot, T: base + s, CPUPct: cpu, CPUCores: 1, HostBusyPct: host, HostStealPct: math.NaN(),
		LagMeanMs: lag / 2, LagMaxMs: lag, Starts: starts, FDs: fds, FDLimit: 1024}
}

// Each second shows the highest of its testers' figures; a figure a
// tester could not measure (NaN) is left out, and the snapshot's JSON is
// written whatever the testers sent.
func TestHealthFoldsTheHighestOfTheTestersIntoTheSecond(t *testing.T) {
	r, clk := newRun(t)
	clk.t = time.Unix(base+5, 0)
	r.Health(hr(0, 1, 40, 55, 3, 10, 12))
	r.Health(hr(1, 1, 85, math.NaN(), 250, 4, 9))
	r.Health(hr(2, 1, math.NaN(), 20, math.Inf(1), 2, 30))
	r.Health(hr(0, 2, 10, math.NaN(), 1000, 0, 5)) // no call started: its lag means nothing
	snap := r.Snapshot(0)
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatalf("the snapshot is not JSON: %v", err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	s := map[int64]Second{}
	for _, x := range back.Seconds {
		s[x.T] = x
	}
	one, two := s[base+1], s[base+2]
	if one.TesterCPUPct != 85 || one.HostBusyPct != 55 || one.LagMaxMs != 250 || one.FDs != 30 || one.HealthN != 3 || one.HostN != 2 {
		t.Errorf("second 1 = %+v, want cpu 85, host 55, lag 250, fds 30 from 3 reports (2 with the host)", one)
	}
	if two.TesterCPUPct != 10 || two.LagMaxMs != 0 || two.HostN != 0 || two.HealthN != 1 {
		t.Errorf("second 2 = %+v, want cpu 10, lag 0, the host unknown", two)
	}
	if s[base].HealthN != 0 {
		t.Errorf("second 0 had no report: %+v", s[base])
	}
}

// A tester's row carries its latest report; an older one arriving late
// does not replace it.
func TestHealthShowsEachTestersLatestReport(t *testing.T) {
	r, clk := newRun(t)
	clk.t = time.Unix(base+5, 0)
	r.Health(hr(1, 3, 70, math.NaN(), 12, 5, 40))
	r.Health(hr(1, 2, 99, 99, 99, 5, 99))
	snap := r.Snapshot(0)
	var row *Tester
	for i := range snap.Testers {
		if snap.Testers[i].Index == 1 {
			row = &snap.Testers[i]
		}
	}
	if row == nil || row.Health == nil {
		t.Fatalf("tester 1 has no health: %+v", snap.Testers)
	}
	h := row.Health
	if h.T != base+3 || h.CPUPct == nil || *h.CPUPct != 70 || h.HostBusyPct != nil || h.LagMaxMs == nil || *h.LagMaxMs != 12 ||
		h.FDs != 40 || h.FDLimit != 1024 {
		t.Errorf("tester 1's health = %+v, want its report of second 3", *h)
	}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	want := `"health":{"t":1700000003,"cpu_pct":70,"host_busy_pct":null,"lag_max_ms":12,"starts":5,"fds":40,"fd_limit":1024}`
	if !strings.Contains(string(b), want) {
		t.Errorf("row JSON %s lacks %s", b, want)
	}
}

// Reports of an unknown slot or of a second outside the run's timeline
// change nothing: neither rows nor testers grow.
func TestHealthOutsideTheRunIsIgnored(t *testing.T) {
	r, clk := newRun(t)
	clk.t = time.Unix(base+5, 0)
	for _, h := range []sample.Health{
		hr(3, 1, 50, 50, 5, 1, 1),                // 3 testers planned: slots 0-2
		hr(-1, 1, 50, 50, 5, 1, 1),               // no slot
		hr(1<<40, 1, 50, 50, 5, 1, 1),            // a wild slot
		hr(0, -1, 50, 50, 5, 1, 1),               // before the run
		hr(0, 5+61, 50, 50, 5, 1, 1),             // past now + maxAhead
		hr(0, math.MaxInt64-base, 1, 1, 1, 1, 1), // the far future
	} {
		r.Health(h)
	}
	snap := r.Snapshot(0)
	if len(snap.Seconds) != 0 || len(snap.Testers) != 0 {
		t.Fatalf("ignored reports left %d seconds and testers %+v", len(snap.Seconds), snap.Testers)
	}
}

// Reports from many goroutines, with snapshots read meanwhile, race with
// nothing (run with -race).
func TestHealthIsSafeForConcurrentUse(t *testing.T) {
	r, clk := newRun(t)
	clk.t = time.Unix(base+30, 0)
	var wg sync.WaitGroup
	for slot := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range int64(20) {
				r.Health(hr(slot, s, float64(10*slot+1), 30, float64(s), 1, 3))
				_ = r.Snapshot(0)
			}
		}()
	}
	wg.Wait()
	for _, s := range r.Snapshot(0).Seconds {
		if s.HealthN != 3 || s.TesterCPUPct != 21 || s.LagMaxMs != float64(s.T-base) {
			t.Fatalf("second %+v: want 3 reports, cpu 21, lag %d", s, s.T-base)
		}
	}
}

func TestNilRunIgnoresHealth(t *testing.T) {
	var r *Run
	r.Health(hr(0, 0, 1, 1, 1, 1, 1))
}
