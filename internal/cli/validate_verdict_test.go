package cli

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/monitor"
)

// validate's exit: nothing compared is a failure (exit 1) that says so
// and why; a window or the cumulative gap past its allowance is exit 3,
// the cumulative gap named with its figures.
func TestValidateVerdict(t *testing.T) {
	t.Parallel()
	nothing := monitor.Validation{Scrapes: 42, Calls: 80, Intervals: []monitor.Interval{{Clients: 80, Server: 80}}}
	err := verdict(&nothing, 100)
	if errs.Code(err) != errs.CodeFailed || err == nil || !strings.Contains(err.Error(), "nothing compared: 80 successful calls in 42 scrape intervals") ||
		!strings.Contains(err.Error(), "--min-calls 100") {
		t.Errorf("nothing compared: exit %d, %v; want exit 1 saying nothing was compared and why", errs.Code(err), err)
	}
	if err := verdict(&monitor.Validation{}, 100); errs.Code(err) != errs.CodeFailed || !strings.Contains(err.Error(), "nothing compared: no two successful scrapes") {
		t.Errorf("no scrape interval: exit %d, %v; want exit 1 saying so", errs.Code(err), err)
	}
	gap := monitor.Validation{Checked: 20, Cum: monitor.GapSummary{Beyond: 19, Worst: monitor.Gap{Calls: -170, Pct: 5.26, Allowed: 46}}}
	if err := verdict(&gap, 100); errs.Code(err) != errs.CodeRefused || !strings.Contains(err.Error(), "cumulative gap reached -170 calls (5.26%)") {
		t.Errorf("cumulative gap beyond: exit %d, %v; want exit 3 naming the gap", errs.Code(err), err)
	}
	if err := verdict(&monitor.Validation{Checked: 3, Beyond: 1}, 100); errs.Code(err) != errs.CodeRefused {
		t.Errorf("a window beyond: exit %d, want 3", errs.Code(err))
	}
	if err := verdict(&monitor.Validation{Checked: 3}, 100); err != nil {
		t.Errorf("all within: %v", err)
	}
}

// --min-calls below 1 is bad usage (exit 2), said before the run is read.
func TestValidateMinCallsRefused(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"0", "-5"} {
		var out, errb strings.Builder
		if code := Main([]string{"validate", t.TempDir(), "--counter", "c", "--min-calls", n}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--min-calls") {
			t.Errorf("--min-calls %s: exit %d, %q; want exit 2 naming --min-calls", n, code, errb.String())
		}
	}
}
