package pipeline

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// ValidateOptions say what `diperf validate` holds the client view
// against.
type ValidateOptions struct {
	Counter   string  // the server's counter, e.g. diperf_target_served_total
	Endpoint  string  // the monitor endpoint that has it ("": the one that does)
	Tolerance float64 // % per interval
	MinCalls  int     // scrape intervals are merged into windows of at least this many calls
}

// ServerCheck is a run's client view held against a server counter.
type ServerCheck struct {
	Endpoint  string
	Format    string  // the endpoint's format
	PerScrape float64 // what each scrape added to the counter itself, taken off
	Origin    int64   // the run's first call start, Unix ns (the table's t = 0)
	monitor.Validation
}

// Validate reads dir's successful calls (on the global timeline) and its
// monitor.csv and compares, per window of intervals between successful
// scrapes of the endpoint, the calls that ended in it with the counter's
// increase (monitor.Validate), each call's end widened by its tester's
// lag (testerLags) and each boundary by half its scrape's duration. A stub_status counter counts each scrape's own request: one
// per interval is taken off.
func Validate(dir string, o Options, v ValidateOptions) (*ServerCheck, error) {
	if err := monitor.CheckTolerance(v.Tolerance); err != nil {
		return nil, err
	}
	d, err := Load(dir, o)
	if err != nil {
		return nil, err
	}
	pts, err := rundir.ReadMonitor(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: the experiment had no monitor key", dir, rundir.Monitor)
	}
	if err != nil {
		return nil, err
	}
	ep, err := counterEndpoint(d.Experiment, pts, v)
	if err != nil {
		return nil, err
	}
	ends, origin, err := okEnds(d)
	if err != nil {
		return nil, err
	}
	chk := &ServerCheck{Endpoint: ep.Name, Format: ep.FormatOrDefault(), Origin: origin}
	if chk.Format == experiment.FormatStubStatus && v.Counter == monitor.NginxRequests {
		chk.PerScrape = 1
	}
	incs := monitor.Increases(pts, ep.Name, v.Counter, nil)
	chk.Validation = monitor.Validate(monitor.Check{Ends: ends, Incs: incs, Reads: reads(pts, ep.Name),
		PerScrape: chk.PerScrape, MinCalls: v.MinCalls, Tolerance: v.Tolerance})
	return chk, nil
}

// counterEndpoint is the monitor endpoint holding the counter: the one
// named, else the only one whose points have it.
func counterEndpoint(e *experiment.Experiment, pts []monitor.Point, v ValidateOptions) (experiment.MonitorEndpoint, error) {
	var found []experiment.MonitorEndpoint
	for _, m := range e.Monitor {
		if (v.Endpoint == "" || m.Name == v.Endpoint) && monitor.HasMetric(pts, m.Name, v.Counter) {
			found = append(found, m)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && v.Endpoint != "":
		return experiment.MonitorEndpoint{}, fmt.Errorf("monitor endpoint %q has no counter %s in %s", v.Endpoint, v.Counter, rundir.Monitor)
	case len(found) == 0:
		return experiment.MonitorEndpoint{}, fmt.Errorf("no monitor endpoint has a counter %s in %s", v.Counter, rundir.Monitor)
	}
	return experiment.MonitorEndpoint{}, fmt.Errorf("%d monitor endpoints have %s: name one with --endpoint", len(found), v.Counter)
}

// okEnds reads d's successful calls' ends, each with its tester's lag, and
// the run's first call start.
func okEnds(d *Dataset) ([]monitor.End, int64, error) {
	var ends []monitor.End
	lags := testerLags(d.Testers)
	origin := int64(0)
	err := d.Stream(func(calls []sample.Call) error {
		for _, c := range calls {
			if !d.Config.Span.HoldsCall(&c) {
				continue // impossible: the analysis refuses it too
			}
			if origin == 0 || c.Start < origin {
				origin = c.Start
			}
			if c.Status == sample.OK {
				ends = append(ends, lags[c.Tester].end(&c))
			}
		}
		return nil
	})
	return ends, origin, err
}
