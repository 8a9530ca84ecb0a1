package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/pipeline"
)

// defaultMinCalls is the fewest calls an interval needs to be held to the
// tolerance: below it one call moving across a boundary is over 1%.
const defaultMinCalls = 100

// validateCmd holds a run's client view against a server counter its
// monitor scraped: per interval between two scrapes, the successful calls
// that ended in it against the counter's increase. Exit 3 when an
// interval differs by more than the tolerance.
func validateCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "validate", "RUN --counter NAME [--endpoint NAME] [--tolerance 1%] [--min-calls N]")
	counter := fs.String("counter", "", "the server's counter of calls served (e.g. diperf_target_served_total, nginx_http_requests_total)")
	endpoint := fs.String("endpoint", "", "the monitor endpoint that has it (default: the only one that does)")
	tol := fs.String("tolerance", "1%", "largest |difference| per interval, in % of the server's count")
	minCalls := fs.Int("min-calls", defaultMinCalls, "intervals with fewer calls are shown but not checked")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if *counter == "" {
		return errs.Usagef("--counter is required: the server's counter to compare with")
	}
	tolerance, err := parseTolerance(*tol)
	if err != nil {
		return err
	}
	if _, err := pipeline.Recover(pos[0], e.stderr); err != nil {
		return err
	}
	chk, err := pipeline.Validate(pos[0], pipeline.Options{}, pipeline.ValidateOptions{
		Counter: *counter, Endpoint: *endpoint, Tolerance: tolerance, MinCalls: *minCalls})
	if err != nil {
		return err
	}
	if err := printCheck(e.stdout, chk, *counter, tolerance, *minCalls); err != nil {
		return err
	}
	if chk.Beyond > 0 {
		return &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("validate: %d of %d intervals differ by more than %g%%", chk.Beyond, chk.Checked, tolerance)}
	}
	return nil
}

// parseTolerance reads --tolerance: a percentage from 0 to
// monitor.MaxTolerance, the % sign optional.
func parseTolerance(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || monitor.CheckTolerance(v) != nil {
		return 0, errs.Usagef("--tolerance: want a percentage from 0%% to %d%% such as 1%%, got %q", monitor.MaxTolerance, s)
	}
	return v, nil
}

// printCheck prints the table of intervals and the summary line.
func printCheck(w io.Writer, chk *pipeline.ServerCheck, counter string, tolerance float64, minCalls int) error {
	fmt.Fprintf(w, "client view (successful calls by end time) against %s of monitor endpoint %s", counter, chk.Endpoint)
	if chk.PerScrape > 0 {
		fmt.Fprintf(w, " (less %g per interval: the scrape's own request)", chk.PerScrape)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "from_s\tto_s\tclients\tserver\tdifference\t%\t")
	for _, iv := range chk.Intervals {
		mark := ""
		switch {
		case !iv.Checked:
			mark = " (few calls: not checked)"
		case iv.Pct > tolerance:
			mark = " BEYOND"
		}
		fmt.Fprintf(tw, "%.3f\t%.3f\t%d\t%.0f\t%+.0f\t%.2f%s\t\n", secsSince(iv.FromNs, chk.Origin), secsSince(iv.ToNs, chk.Origin),
			iv.Clients, iv.Server, iv.Diff, iv.Pct, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "intervals compared: %d (of %d; fewer than %d calls: not checked); |difference|: max %.3f%%, median %.3f%%; beyond %g%%: %d\n",
		chk.Checked, len(chk.Intervals), minCalls, chk.MaxPct, chk.MedianPct, tolerance, chk.Beyond)
	return err
}

// secsSince is t in s since origin.
func secsSince(t, origin int64) float64 { return time.Duration(t - origin).Seconds() }
