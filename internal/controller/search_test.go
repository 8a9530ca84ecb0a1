package controller

import (
	"fmt"
	"math"
	"strconv"
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
	cfg := search.Config{SLOs: mustSLOs(t, "p90_ms < 300"), Start: 100, MaxRate: 400, Precision: precision,
		MinWarmup: time.Second, MaxWarmup: 4 * time.Second, StepLimit: 5 * time.Second}
	out, dir, took := runSearch(t, exp, cfg)
	r := out.Search
	if r == nil || r.Verdict != search.VerdictCapacity || r.Interval[0] == nil || r.Interval[1] == nil {
		t.Fatalf("search answer %+v, want a capacity", r)
	}
	lo, hi := *r.Interval[0], *r.Interval[1]
	t.Logf("capacity %.4g in [%.4g, %.4g], %d steps, %d calls, run %v", *r.Capacity, lo, hi, len(r.Steps), r.Calls, took)
	for _, s := range r.Steps {
		t.Logf("%+v", s)
	}
	// Within the precision, and around the truth: a load 5% over the
	// capacity grows a queue of 7.5 calls/s (+50 ms of wait a second),
	// which fails p90 < 300 ms within its step; below it a worker is free
	// for every call of one uniform stream, and 80% leaves room for the
	// timers' jitter on a busy machine.
	if hi/lo > 1+precision+1e-9 || lo > truth*1.05 || hi < truth*0.8 {
		t.Errorf("bracket [%.4g, %.4g]: want within %g%% and around %g calls/s", lo, hi, 100*precision, truth)
	}
	if first := r.Steps[0]; first.Load != 100 || math.Abs(first.Throughput-100) > 10 {
		t.Errorf("first step: load %g, throughput %.4g calls/s: the testers were not steered to it", first.Load, first.Throughput)
	}
	if took > 50*time.Second || !stoppedBySearch(t, dir, 1) {
		t.Errorf("the run took %v of the testers' minute, or they were not stopped by the search's end", took)
	}
	checkLoadSteps(t, dir, 1)
	checkSearchFiles(t, dir, r)
}

// checkLoadSteps checks that each of testers testers took every load step
// sent (one per load offered) and refused none, as its Done said.
func checkLoadSteps(t *testing.T, dir string, testers int) {
	t.Helper()
	loads := len(eventsNamed(t, dir, "search-load")[-1])
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
