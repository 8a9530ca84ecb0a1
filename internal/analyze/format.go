package analyze

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
)

// FormatSummary prints the human summary table of a run, in the style of
// the DiPerF thesis: a Min/Med/Aver/Max/StdDev table of throughput and
// response time, then one line each for samples, testers, load, saturation,
// peak window, fairness and clock quality.
func FormatSummary(w io.Writer, s *Summary) error {
	tp, rt := s.Throughput, s.ResponseTimeMs
	rows := [][6]string{
		{"", "Min", "Med", "Aver", "Max", "StdDev"},
		{"Throughput (" + throughputUnit(tp) + ")", f1(tp.Min), f1(tp.Median), f1(tp.Mean), f1(tp.Max), f1(tp.StdDev)},
		{"Response time (ms)", f1(rt.Min), f1(rt.Median), f1(rt.Mean), f1(rt.Max), f1(rt.StdDev)},
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	// Labels are padded by hand so that they stay left-aligned while the
	// figures are right-aligned.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%s\t\n", width, r[0], r[1], r[2], r[3], r[4], r[5])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range summaryLines(s) {
		fmt.Fprintf(tw, "%s\t%s\n", l[0], l[1])
	}
	return tw.Flush()
}

// summaryLines returns the label and text of each line under the table.
func summaryLines(s *Summary) [][2]string {
	tc := s.Testers
	lines := [][2]string{
		{"samples", samplesLine(s)},
		{"testers", fmt.Sprintf("%d planned, %d started, %d failed", tc.Planned, tc.Started, tc.Failed)},
		{"response time", fmt.Sprintf("p90 %s ms, p99 %s ms", f1(s.ResponseTimeMs.P90), f1(s.ResponseTimeMs.P99))},
		{"load", fmt.Sprintf("max %s", f1(s.Load.Max))},
		{"saturation", saturationText(s.Saturation)},
		{"peak window", fmt.Sprintf("%s s - %s s, %d testers", f1(s.Peak.StartS), f1(s.Peak.EndS), s.Peak.Testers)},
		{"fairness", fmt.Sprintf("Jain %.3f", s.Fairness.Jain)},
		{"clock", clockLine(&s.Clock)},
		{"duration", fmt.Sprintf("%s s, quantum %s s", f1(s.DurationS), ff(s.QuantumS))},
	}
	if t := s.Transfer; t != nil {
		lines = append(lines, [2]string{"transfer", t.Text()})
	}
	lines = append(lines, searchLines(s)...)
	return slices.Insert(lines, 1, errorLines(s)...)
}

// saturationText is the saturation verdict in words (Saturation.Text).
func saturationText(sat Saturation) string {
	return sat.Text()
}

// throughputUnit returns the throughput row's unit, calls/s by default.
func throughputUnit(s Stats) string {
	if s.Unit == "" {
		return ThroughputUnit
	}
	return s.Unit
}

// f1 formats a figure of the human summary with one decimal.
func f1(v float64) string {
	return fmt.Sprintf("%.1f", v)
}

func clockLine(c *ClockSummary) string {
	line := fmt.Sprintf("max |offset| %s ms, max error bound %s ms", f1(c.MaxAbsOffsetMs), f3(c.MaxErrorBoundMs))
	if c.MaxStartSkewMs > 0 {
		line += fmt.Sprintf(", synchronized start skew ≤ %s ms", f3(c.MaxStartSkewMs))
	}
	if t := c.TrustText(); t != "" {
		line += "; " + t
	}
	return line
}

func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
