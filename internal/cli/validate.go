package cli

import (
	"context"
	"fmt"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/pipeline"
)

// defaultMinCalls is the fewest calls a window needs to be held to the
// tolerance: scrape intervals with fewer are merged into longer windows
// (at 1%, one call moving across a boundary is 1% of 100).
const defaultMinCalls = 100

// validateCmd holds a run's client view against a server counter its
// monitor scraped: per window of scrape intervals, the successful calls
// that ended in it against the counter's increase, and the cumulative
// gap. Exit 3 when a window or the cumulative gap is past its allowance,
// 1 when nothing could be compared.
func validateCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "validate", "RUN --counter NAME [--endpoint NAME] [--tolerance 1%] [--min-calls N]")
	counter := fs.String("counter", "", "the server's counter of calls served (e.g. diperf_target_served_total, nginx_http_requests_total)")
	endpoint := fs.String("endpoint", "", "the monitor endpoint that has it (default: the only one that does)")
	tol := fs.String("tolerance", "1%", "|difference| allowed per window beyond the calls near its boundaries, in % of the server's count")
	minCalls := fs.Int("min-calls", defaultMinCalls, "scrape intervals are merged into windows of at least this many calls")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if *counter == "" {
		return errs.Usagef("--counter is required: the server's counter to compare with")
	}
	if *minCalls < 1 {
		return errs.Usagef("--min-calls: want at least 1, got %d", *minCalls)
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
	return verdict(&chk.Validation, *minCalls)
}

// verdict is validate's exit: 1 when no window was compared, 3 when a
// window or the cumulative gap is past its allowance.
func verdict(v *monitor.Validation, minCalls int) error {
	switch {
	case v.Checked == 0 && v.Scrapes == 0:
		return fmt.Errorf("nothing compared: no two successful scrapes of the endpoint with the counter")
	case v.Checked == 0:
		return fmt.Errorf("nothing compared: %d successful calls in %d scrape intervals, no window reached --min-calls %d", v.Calls, v.Scrapes, minCalls)
	case v.Beyond > 0 && v.Cum.Beyond > 0:
		return &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("%d of %d windows and the cumulative gap (%+.0f calls, %.2f%%) are beyond their allowance", v.Beyond, v.Checked, v.Cum.Worst.Calls, v.Cum.Worst.Pct)}
	case v.Cum.Beyond > 0:
		return &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("the cumulative gap reached %+.0f calls (%.2f%%), beyond its allowance of %.1f: the views disagree", v.Cum.Worst.Calls, v.Cum.Worst.Pct, v.Cum.Worst.Allowed)}
	case v.Beyond > 0:
		return &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("%d of %d windows differ by more than their allowance", v.Beyond, v.Checked)}
	}
	return nil
}

// parseTolerance reads --tolerance: a percentage from 0 to
// monitor.MaxTolerance, the % sign optional.
func parseTolerance(s string) (float64, error) {
	v, err := human.ParsePercent(s)
	if err != nil || monitor.CheckTolerance(v) != nil {
		return 0, errs.Usagef("--tolerance: want a percentage from 0%% to %d%% such as 1%%, got %q", monitor.MaxTolerance, s)
	}
	return v, nil
}
