package controller

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
)

// TestSearchFindsCapacity runs a capacity search with two real testers
// against the demo service with 30 workers and a service time of 200 ms:
// under uniform arrivals a call waits for no worker below 150 calls/s, so
// its response time stays 200 ms, and above it the queue grows without
// bound. The capacity for p90_ms < 300 (1.5 × the service time) is 150
// calls/s. (The long service time leaves 100 ms for the stalls of a busy
// machine of two cores shared with other builds: with 20 ms, stalls of
// 10 ms and more failed 10% of the calls of some seconds.) (p90 rather than p99: its sequential test decides a clean step
// in ~30 calls instead of ~300, which keeps the test short; the search is
// the same.) The search brackets it within its precision, the testers'
// rates follow the steps, the testers are stopped when it is done, and
// search.json and search.csv read back.
func TestSearchFindsCapacity(t *testing.T) {
	t.Parallel()
	const truth, precision = 150.0, 0.25
	exp := searchExperiment(t, 1, 1024, time.Minute, serveTarget(t, 30, 200*time.Millisecond), true)
	cfg := search.Config{SLOs: mustSLOs(t, "p90_ms < 300"), Start: 120, Growth: 1.5, MaxRate: 400, Precision: precision,
		MinWarmup: time.Second, MaxWarmup: 4 * time.Second, StepLimit: 5 * time.Second}
	out, dir, took := runSearch(t, exp, cfg)
	r := out.Search
	if r == nil || r.Verdict != search.VerdictCapacity || r.Interval[0] == nil || r.Interval[1] == nil {
		t.Fatalf("search answer %+v, want a capacity", r)
	}
	lo, hi := *r.Interval[0], *r.Interval[1]
	t.Logf("capacity %.4g in [%.4g, %.4g], %d steps, %d calls, run %v", *r.Capacity, lo, hi, len(r.Steps), r.Calls, took)
	for _, s := range r.Steps {
		t.Logf("step %d: load %.4g, %s, %d s (%d rest, %d warm-up, %d refused): %s", s.Step, s.Load, s.Decision, s.Seconds, s.RestS, s.WarmupS, s.Refused, s.Why)
	}
	// Within the precision, and around the truth: a load 5% over the
	// capacity grows a queue of 7.5 calls/s (+50 ms of wait a second),
	// which fails p90 < 300 ms within its step; below it a worker is free
	// for every call of one uniform stream, and 80% leaves room for the
	// timers' jitter on a busy machine.
	if hi/lo > 1+precision+1e-9 || lo > truth*1.05 || hi < truth*0.8 {
		t.Errorf("bracket [%.4g, %.4g]: want within %g%% and around %g calls/s", lo, hi, 100*precision, truth)
	}
	if first := r.Steps[0]; first.Load != 120 || math.Abs(first.Throughput-120) > 12 {
		t.Errorf("first step: load %g, throughput %.4g calls/s: the testers were not steered to it", first.Load, first.Throughput)
	}
	if took > 50*time.Second || !stoppedBySearch(t, dir, 1) || out.Failed != 0 {
		t.Errorf("the run took %v of the testers' minute, or they were not stopped by the search's end (%d failed)", took, out.Failed)
	}
	checkLoadSteps(t, dir, 1, 0)
	checkSearchFiles(t, dir, r)
}

// checkLoadSteps checks that each of testers testers took every load step
// sent (one per load offered, and extra more) and refused none, as its
// Done said.
func checkLoadSteps(t *testing.T, dir string, testers, extra int) {
	t.Helper()
	loads := len(eventsNamed(t, dir, "search-load")[-1]) + extra
	steps := eventsNamed(t, dir, "load-steps")
	want := fmt.Sprintf("took %d of the %d load steps sent, refused 0", loads, loads)
	for i := range testers {
		if len(steps[i]) != 1 || steps[i][0] != want {
			t.Errorf("tester %d's load steps %q; want %q", i, steps[i], want)
		}
	}
}

// checkSearchFiles checks that search.json reads back as r and search.csv
// has r's steps, each with its seconds.
func checkSearchFiles(t *testing.T, dir string, r *search.Result) {
	t.Helper()
	back, err := rundir.ReadSearch(dir)
	if err != nil || back == nil {
		t.Fatalf("search.json: %v", err)
	}
	if back.Verdict != r.Verdict || len(back.Steps) != len(r.Steps) || *back.Capacity != *r.Capacity {
		t.Errorf("search.json reads back %+v, want %+v", back, r)
	}
	rows := readSearchCSV(t, dir)
	if len(rows) != len(r.Steps) {
		t.Fatalf("search.csv has %d steps, want %d", len(rows), len(r.Steps))
	}
	for i, row := range rows {
		from, _ := strconv.ParseInt(row["from"], 10, 64)
		to, _ := strconv.ParseInt(row["to"], 10, 64)
		if row["step"] != strconv.Itoa(i+1) || from != r.Steps[i].From || to < from || from <= 0 || row["decision"] != r.Steps[i].Decision {
			t.Errorf("search.csv step %d: %v, want step %+v", i+1, row, r.Steps[i])
		}
	}
}

// TestSearchClosedModel steers a closed model: two testers of 4 clients
// each against 8 workers of 200 ms. The search's one step, 4 active
// clients of the 8 (max-rate), is split 2 and 2: its throughput is 4 calls
// per 200 ms, 20 calls/s (all 8 clients would make 40), every call served
// at once, so it holds at max-rate, and the testers are stopped.
func TestSearchClosedModel(t *testing.T) {
	t.Parallel()
	exp := searchExperiment(t, 2, 4, time.Minute, serveTarget(t, 8, 200*time.Millisecond), false)
	cfg := search.Config{SLOs: mustSLOs(t, "p90_ms < 300"), Start: 4, MaxRate: 4,
		MinWarmup: time.Second, MaxWarmup: 4 * time.Second, StepLimit: 5 * time.Second}
	out, dir, took := runSearch(t, exp, cfg)
	r := out.Search
	if r == nil || r.Verdict != search.VerdictHoldsAtMax || len(r.Steps) != 1 {
		t.Fatalf("search answer %+v, want it to hold at max-rate in one step", r)
	}
	if x := r.Steps[0].Throughput; math.Abs(x-20) > 3 {
		t.Errorf("throughput %.4g calls/s at 4 active clients, want 20 (40: every client ran)", x)
	}
	if took > 30*time.Second || !stoppedBySearch(t, dir, 2) {
		t.Errorf("the run took %v of the testers' minute, or they were not stopped by the search's end", took)
	}
	checkLoadSteps(t, dir, 2, 1) // and the step that parked its clients at its first sync
	if loads := eventsNamed(t, dir, "search-load")[-1]; len(loads) != 1 || !strings.HasPrefix(loads[0], "load 4 over 2 testers") {
		t.Errorf("loads offered %q, want 4 over 2 testers", loads)
	}
}

// TestSearchMaxRateOfAClosedModel: a closed model's loads are whole
// clients, at most every tester's (the default max-rate); more is refused
// before anything starts.
func TestSearchMaxRateOfAClosedModel(t *testing.T) {
	exp := searchExperiment(t, 3, 4, time.Minute, "http://127.0.0.1:1/", false)
	slos := mustSLOs(t, "p99_ms < 100")
	st, err := newSteering(exp, search.Config{SLOs: slos})
	if err != nil || st.cfg.MaxRate != 12 || !st.cfg.Whole || st.searcher.First() != 1 || st.cfg.Budget != time.Minute {
		t.Fatalf("closed model of 3 × 4 clients: %v, %+v: want max-rate 12, whole loads from 1, the testers' minute", err, st)
	}
	if _, err := newSteering(exp, search.Config{SLOs: slos, MaxRate: 13}); err == nil || !strings.Contains(err.Error(), "more than the 12") {
		t.Errorf("max-rate 13 of 12 clients: %v", err)
	}
	for i, want := range []int{3, 2, 2} {
		if got := spread(7, 3, i, 4); got != want {
			t.Errorf("7 clients over 3 testers: tester %d gets %d, want %d", i, got, want)
		}
	}
}
