package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/pipeline"
)

// printCheck prints the table of windows and the summary lines.
func printCheck(w io.Writer, chk *pipeline.ServerCheck, counter string, tolerance float64, minCalls int) error {
	fmt.Fprintf(w, "client view (successful calls by end time) against %s of monitor endpoint %s", counter, chk.Endpoint)
	if chk.PerScrape > 0 {
		fmt.Fprintf(w, " (less %g per interval: the scrape's own request)", chk.PerScrape)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "from_s\tto_s\tscrapes\tclients\tserver\tdifference\t%\tallowed\tcumulative\t%\t")
	for _, iv := range chk.Intervals {
		fmt.Fprintf(tw, "%.3f\t%.3f\t%d\t%d\t%.0f\t%+.0f\t%.2f%s\t%.1f\t%+.0f\t%.2f%s\t\n", secsSince(iv.FromNs, chk.Origin), secsSince(iv.ToNs, chk.Origin),
			iv.Scrapes, iv.Clients, iv.Server, iv.Diff, iv.Pct, windowMark(iv), iv.Allowed, iv.Cum.Calls, iv.Cum.Pct, gapMark(iv))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	v := &chk.Validation
	fmt.Fprintf(w, "intervals compared: %d (windows of at least %d calls, from %d scrape intervals); |difference|: max %.3f%%, median %.3f%%; beyond allowance: %d\n",
		v.Checked, minCalls, v.Scrapes, v.MaxPct, v.MedianPct, v.Beyond)
	if v.Checked > 0 {
		fmt.Fprintf(w, "cumulative gap (server - clients): final %s, max |gap| %s at %.3f s; beyond allowance: %d\n",
			gapText(v.Cum.Final), gapText(v.Cum.Max), secsSince(v.Cum.Max.AtNs, chk.Origin), v.Cum.Beyond)
	}
	if v.Refused > 0 {
		fmt.Fprintf(w, "scrape durations refused (negative, not a number, or longer than the scrape interval; taken as 0): %d\n", v.Refused)
	}
	_, err := fmt.Fprintf(w, "allowed = calls that ended within the lag of either boundary (may be counted on either side) + %g%% of the server's count\n", tolerance)
	return err
}

// windowMark says why a window was not held, or that it failed.
func windowMark(iv monitor.Interval) string {
	switch {
	case !iv.Checked:
		return " (few calls: not checked)"
	case iv.Diff > iv.Allowed || -iv.Diff > iv.Allowed:
		return " BEYOND"
	}
	return ""
}

// gapMark flags a checked window whose cumulative gap is past its
// allowance.
func gapMark(iv monitor.Interval) string {
	if iv.Checked && iv.Cum.Beyond {
		return " BEYOND"
	}
	return ""
}

// gapText is a cumulative gap in calls and % of the server's count.
func gapText(g monitor.Gap) string {
	return fmt.Sprintf("%+.0f calls (%.3f%% of %.0f)", g.Calls, g.Pct, g.Server)
}

// secsSince is t in s since origin.
func secsSince(t, origin int64) float64 { return time.Duration(t - origin).Seconds() }
