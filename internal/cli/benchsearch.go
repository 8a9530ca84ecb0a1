package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/controller"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/search"
)

// benchSearchCmd is `diperf bench search`: the known-answer benchmark of
// `diperf search` (docs/benchmarks.md): a capacity search against
// `diperf target` with C workers and service time S for p99_ms < 1.5·S,
// whose answer is known (bench.SearchTruth).
func benchSearchCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench search", "[flags]")
	o := bench.SearchOptions{}
	fs.IntVar(&o.Workers, "workers", 64, "the target's service slots C")
	fs.DurationVar(&o.ServiceTime, "service-time", 500*time.Millisecond, "the target's service time S (the objective is p99_ms < 1.5 S)")
	fs.StringVar(&o.Arrivals, "arrivals", bench.ArrivalsUniform, "open model arrivals: uniform (truth C/S) or poisson (truth from the M/D/c queue)")
	precision := fs.String("precision", "5%", "stop when (hi - lo)/lo is at most this")
	fs.Float64Var(&o.MaxRate, "max-rate", 0, "the highest load tried, calls/s (default 3 C/S)")
	fs.DurationVar(&o.Budget, "time-budget", 4*time.Minute, "the seconds of load the search may use")
	fs.IntVar(&o.Clients, "clients", 4096, "the tester's clients: calls in flight at most (an overloaded step queues calls at the target)")
	fs.StringVar(&o.Dir, "dir", "", "the run directory (default: a temporary one)")
	fs.BoolVar(&o.Keep, "keep", false, "keep the run directory")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	p, err := benchSearchShare(*precision)
	if err != nil {
		return errs.Usage(err, "give --precision as a percentage, e.g. 5%")
	}
	o.Precision = p
	if o.Clients < 1 || o.Clients > experiment.MaxClientsPerTester || o.Budget <= 0 {
		return errs.Usagef("--clients must lie in [1, %d] and --time-budget be positive", experiment.MaxClientsPerTester)
	}
	if o.Exe, err = os.Executable(); err != nil {
		return err
	}
	r, err := bench.Search(ctx, o, benchSearchRun(e), e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "bench search: %s: capacity %s calls/s, truth %.4g (%s%%) in %d calls (a linear ramp: %.0f) and %.1f s\n",
		r.Verdict, benchSearchFig(r.Capacity), r.Truth, benchSearchFig(r.ErrorPct), r.Calls, r.RampCalls, r.WallS)
	return printJSON(e, r)
}

// benchSearchRun runs the bench's experiment as a capacity search.
func benchSearchRun(e *env) bench.SearchRun {
	return func(ctx context.Context, exp *experiment.Experiment, cfg *search.Config, dir string) (*search.Result, uint64, error) {
		out, err := controller.Run(ctx, controller.Options{Experiment: exp, Dir: dir, Progress: e.stderr, Search: cfg})
		if err != nil {
			return nil, 0, err
		}
		if out.Search == nil {
			return nil, 0, fmt.Errorf("bench search: the run in %s gave no search answer", dir)
		}
		return out.Search, out.Samples, nil
	}
}

// benchSearchShare reads "5%" or "5" as 0.05.
func benchSearchShare(s string) (float64, error) {
	v, err := human.ParsePercent(s)
	if err != nil || !(v > 0 && v <= 100) {
		return 0, fmt.Errorf("precision %q: want a percentage above 0 and at most 100", s)
	}
	return v / 100, nil
}

// benchSearchFig prints a figure that may be null.
func benchSearchFig(v *float64) string {
	if v == nil {
		return "none"
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}
