package bench

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/search"
)

// newSearchResult checks o, fills its defaults, and sets out what is
// known before the run: the objective, the truth and the ramp.
func newSearchResult(o *SearchOptions) (*SearchResult, *search.Config, error) {
	if o.Workers < 1 || o.Workers > 1024 || o.ServiceTime < time.Millisecond || o.ServiceTime > time.Minute {
		return nil, nil, fmt.Errorf("bench search: want 1 to 1024 workers and a service time of 1 ms to 1 min, got %d and %v", o.Workers, o.ServiceTime)
	}
	s := o.ServiceTime.Seconds()
	if o.MaxRate == 0 {
		o.MaxRate = 3 * float64(o.Workers) / s
	}
	bound := float64(o.ServiceTime*3/2) / 1e6 // sloFactor·S in ms, from whole ns
	slo := "p99_ms < " + strconv.FormatFloat(bound, 'g', -1, 64)
	parsed, err := search.ParseSLO(slo)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := search.Config{SLOs: []search.SLO{parsed}, MaxRate: o.MaxRate, Precision: o.Precision, Budget: o.Budget}.Defaults()
	if err != nil {
		return nil, nil, err
	}
	truth, err := SearchTruth(o.Arrivals, o.Workers, s, sloFactor, sloShare)
	if err != nil {
		return nil, nil, err
	}
	ramp, err := RampCalls(truth, sloShare, cfg)
	if err != nil {
		return nil, nil, err
	}
	r := &SearchResult{Bench: "search", Arrivals: o.Arrivals, Workers: o.Workers, ServiceTimeMs: s * 1e3, SLO: slo,
		Precision: cfg.Precision, MaxRate: cfg.MaxRate, Truth: truth, TruthBasis: truthBasis(o.Arrivals),
		RampCalls: ramp.Calls, RampS: ramp.Seconds, RampBasis: ramp.Basis}
	return r, &cfg, nil
}

// truthBasis says where the truth comes from.
func truthBasis(arrivals string) string {
	if arrivals == ArrivalsPoisson {
		return "M/D/c: the highest rate at which P(wait >= S/2) < 1% (Crommelin's chain, exact)"
	}
	return "D/D/c: C/S (below it no call waits, above it the queue grows without bound)"
}

// fill sets the search's answer and the run's calls.
func (r *SearchResult) fill(res *search.Result, calls uint64) {
	r.Verdict, r.Capacity, r.Interval, r.Why = res.Verdict, res.Capacity, res.Interval, res.Why
	r.Calls, r.SearchCalls, r.Steps, r.SearchS = max(calls, res.Calls), res.Calls, len(res.Steps), res.Seconds
	r.ErrorPct = errorPct(res.Capacity, r.Truth)
	lo, hi := res.Interval[0], res.Interval[1]
	r.Brackets = lo != nil && hi != nil && *lo <= r.Truth && r.Truth <= *hi
	if r.RampCalls > 0 {
		r.CallsShare = math.Round(1e4*float64(r.Calls)/r.RampCalls) / 1e4
	}
	r.WallS = math.Round(r.WallS*100) / 100
}

// searchExperiment is the bench's experiment: one local tester, the
// built-in HTTP client against the target, the open model at the
// search's first load with o.Arrivals, for the budget and a minute more.
func searchExperiment(o SearchOptions, url string, cfg *search.Config) *experiment.Experiment {
	exp := experiment.Default()
	exp.Name = "bench-search"
	exp.Target = url
	exp.Client.HTTP = &experiment.HTTPClient{URL: url}
	exp.Client.Timeout = experiment.Duration(30 * time.Second)
	exp.Schedule.Testers = 1
	exp.Schedule.TesterStartInterval = 0
	exp.Schedule.TesterDuration = experiment.Duration(o.Budget + time.Minute)
	exp.Schedule.ClientsPerTester = o.Clients
	exp.Schedule.Rate = &experiment.Rate{Target: cfg.Start, Arrivals: o.Arrivals}
	exp.Search = &experiment.Search{SLO: []string{cfg.SLOs[0].Text}, Precision: experiment.Percent(100 * cfg.Precision),
		MaxRate: cfg.MaxRate, Start: cfg.Start, TimeBudget: experiment.Duration(o.Budget)}
	return &exp
}
