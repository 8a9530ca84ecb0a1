package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/errs"
)

// benchDashboardCmd is `diperf bench dashboard`: what the live dashboard,
// watched by several browsers, costs the controller of a run of many
// testers, from the controller benchmark run with and without it.
func benchDashboardCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench dashboard", "[--testers N --rate R --duration D --browsers B --browser chromium|sse --rounds K]")
	o := bench.DashboardOptions{}
	c := &o.Controller
	fs.IntVar(&c.Testers, "testers", 1000, "tester sessions to open")
	fs.Float64Var(&c.Rate, "rate", 10_000, "samples/s sent by all testers together")
	fs.DurationVar(&c.Duration, "duration", 60*time.Second, "how long the testers send, each run")
	fs.IntVar(&o.Browsers, "browsers", 5, "browsers open on the dashboard")
	browser := "sse"
	if _, err := os.Stat(bench.Chromium); err == nil {
		browser = "chromium"
	}
	fs.StringVar(&o.Browser, "browser", browser, "the browsers: chromium (headless "+bench.Chromium+" processes) or sse (clients of /events in this process)")
	fs.IntVar(&o.Rounds, "rounds", 2, "runs without and with the dashboard, each")
	fs.BoolVar(&o.Paired, "paired", true, "run each round's controllers without and with the dashboard at the same time, each with its own testers (false: one after the other)")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write the CPU profile of the controller's last run with the dashboard to this file")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	switch {
	case c.Testers < 1 || c.Rate <= 0 || c.Duration <= 0 || o.Browsers < 1 || o.Rounds < 1:
		return errs.Usagef("--testers, --rate, --duration, --browsers and --rounds must be positive")
	case o.Browser != "chromium" && o.Browser != "sse":
		return errs.Usagef("--browser %q: want chromium or sse", o.Browser)
	}
	c.Transport, c.Mode, c.Relays = "tcp", "disk", -1
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	c.Exe, c.TestersPerProcess = exe, testersPerProcess()
	if o.Paired { // two generators in this process
		c.TestersPerProcess /= 2
	}
	need := uint64(2*min(c.Testers, c.TestersPerProcess)) + genReserve
	if err := raiseNoFile(e.stderr, fmt.Sprintf("bench dashboard with %d testers", c.Testers), need); err != nil {
		return err
	}
	r, err := bench.Dashboard(ctx, o, e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d testers, %.0f samples/s for %v, %d rounds (paired %v): controller %.2f CPU-s without the dashboard, %.2f with %d %s browsers (medians): the dashboard costs %.2f%% of a core (median of the rounds' differences: %.2f%%)\n",
		r.Testers, r.Rate, c.Duration, r.Rounds, r.Paired, r.WithoutCPUS, r.WithCPUS, r.Browsers, r.Browser, r.CostCorePct, r.RoundCostPct)
	return printJSON(e, r)
}
