package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/search"
)

// SearchOptions configure `diperf bench search`.
type SearchOptions struct {
	Workers     int           // the target's service slots C
	ServiceTime time.Duration // its service time S
	Arrivals    string        // ArrivalsUniform or ArrivalsPoisson
	Precision   float64       // the search's precision (share)
	MaxRate     float64       // the highest load tried (0: 3·C/S)
	Budget      time.Duration // the search's time budget
	Clients     int           // the tester's clients (calls in flight at most)
	Exe         string        // the diperf binary (the target and the tester)
	Dir         string        // the run directory ("" = a temporary one)
	Keep        bool          // keep the run directory
}

// SearchRun runs exp as a capacity search cfg into the run directory dir
// (controller.Run with Options.Search) and returns the search's answer
// and every call the run made: the command line, which stands above the
// controller, gives it.
type SearchRun func(ctx context.Context, exp *experiment.Experiment, cfg *search.Config, dir string) (*search.Result, uint64, error)

// The bench's objective: p99 of the response time below sloFactor·S.
const (
	sloFactor = 1.5
	sloShare  = 0.01 // p99: 1% of the calls may be over
)

// SearchResult is the JSON line `diperf bench search` ends with.
type SearchResult struct {
	Bench         string      `json:"bench"`
	Arrivals      string      `json:"arrivals"`
	Workers       int         `json:"workers"`
	ServiceTimeMs float64     `json:"service_time_ms"`
	SLO           string      `json:"slo"`
	Precision     float64     `json:"precision"`
	MaxRate       float64     `json:"max_rate"`
	Verdict       string      `json:"verdict"`
	Capacity      *float64    `json:"capacity"` // calls/s; null when no load met the SLO
	Interval      [2]*float64 `json:"interval"`
	// Truth is the known capacity (SearchTruth), TruthBasis how it was
	// found, ErrorPct (capacity − truth)/truth in percent and Brackets
	// whether the interval holds the truth.
	Truth      float64  `json:"truth"`
	TruthBasis string   `json:"truth_basis"`
	ErrorPct   *float64 `json:"error_pct"`
	Brackets   bool     `json:"brackets_truth"`
	// Calls is every call the run made (the testers' samples): the
	// search's steps and what a step's load ran on while its last seconds
	// were still to be final (live.Lag); SearchCalls the calls of the
	// seconds the steps measured or left out as warm-up.
	Calls       uint64 `json:"calls"`
	SearchCalls uint64 `json:"search_calls"`
	Steps       int    `json:"steps"`
	SearchS     int    `json:"search_s"` // the seconds of load the search used
	// RampCalls is what a linear ramp needs for the same precision
	// (RampCalls), RampBasis its assumptions; CallsShare is calls /
	// ramp_calls.
	RampCalls  float64 `json:"ramp_calls"`
	RampS      float64 `json:"ramp_s"`
	RampBasis  string  `json:"ramp_basis"`
	CallsShare float64 `json:"calls_share_of_ramp"`
	WallS      float64 `json:"wall_s"` // from the target's start to the search's answer
	Why        string  `json:"why"`
	Dir        string  `json:"dir,omitempty"`
}

// Search runs the known-answer benchmark: `diperf target` with o.Workers
// workers of o.ServiceTime, a capacity search against it for p99_ms <
// 1.5·S by one local tester (open model, o.Arrivals) through run, and
// the answer set against the truth and a linear ramp's calls.
func Search(ctx context.Context, o SearchOptions, run SearchRun, progress io.Writer) (*SearchResult, error) {
	r, cfg, err := newSearchResult(&o)
	if err != nil {
		return nil, err
	}
	dir, clean, err := searchDir(o)
	if err != nil {
		return nil, err
	}
	if o.Keep {
		r.Dir = dir
	} else {
		defer os.RemoveAll(clean)
	}
	start := time.Now()
	t, err := startTarget(o.Exe, o.Workers, o.ServiceTime, progress)
	if err != nil {
		return nil, err
	}
	defer t.stop()
	fmt.Fprintf(progress, "bench search: target %s, %d workers x %v, %s arrivals; truth %.4g calls/s (%s); a linear ramp needs %.0f calls\n",
		t.URL, o.Workers, o.ServiceTime, o.Arrivals, r.Truth, r.TruthBasis, r.RampCalls)
	res, calls, err := run(ctx, searchExperiment(o, t.URL, cfg), cfg, dir)
	if err != nil {
		return nil, err
	}
	r.WallS = time.Since(start).Seconds()
	r.fill(res, calls)
	return r, nil
}

// searchDir is the run directory, and what to remove afterwards unless
// kept: o.Dir, or "run" in a new temporary directory (removed whole).
func searchDir(o SearchOptions) (dir, clean string, err error) {
	if o.Dir != "" {
		return o.Dir, o.Dir, nil
	}
	tmp, err := os.MkdirTemp("", "diperf-bench-search-")
	if err != nil {
		return "", "", err
	}
	return filepath.Join(tmp, "run"), tmp, nil
}
