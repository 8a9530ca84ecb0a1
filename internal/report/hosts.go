package report

import (
	"cmp"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// Element ids of the per-host graphs (the section "Per host and per
// site"), which are also the names of their .svg files: HostsGraphID is
// in every report with testers, the other two when the sensor mesh gave
// some host a bandwidth (a latency) to the target.
const (
	HostsGraphID     = "graph-m-hosts"            // throughput and response time per host, by rank
	HostsBandwidthID = "graph-m2-hosts-bandwidth" // throughput per host against its bandwidth to the target
	HostsLatencyID   = "graph-m3-hosts-latency"   // response time per host against its latency to the target
)

// Limits of the per-host section.
const (
	maxHostsShown      = 60 // hosts graphed and listed: the fastest and slowest half each
	maxHostLabels      = 8  // hosts up to which the x axis names them
	maxHostName        = 40 // characters of a host or site name in the tables
	hostLabelChars     = 14 // characters of a host's name under its bar
	noComparisonSingle = "one host: nothing to compare it with"
)

// shownHosts returns hosts sorted by calls/s over their run, fastest
// first, each with its rank (from 1), and how many were left out: beyond
// maxHostsShown, the middle ones (the fastest and the slowest half of
// maxHostsShown are kept).
func shownHosts(hosts []analyze.HostFigures) ([]rankedHost, int) {
	all := make([]rankedHost, len(hosts))
	for i := range hosts {
		all[i] = rankedHost{h: &hosts[i]}
	}
	slices.SortStableFunc(all, func(a, b rankedHost) int {
		return cmp.Or(cmp.Compare(b.h.RunPerS, a.h.RunPerS), cmp.Compare(a.h.Name, b.h.Name))
	})
	for i := range all {
		all[i].rank = i + 1
	}
	if len(all) <= maxHostsShown {
		return all, 0
	}
	half := maxHostsShown / 2
	return append(all[:half:half], all[len(all)-half:]...), len(all) - maxHostsShown
}

// rankedHost is a host with its rank by calls/s.
type rankedHost struct {
	h    *analyze.HostFigures
	rank int
}

// hostsChart is the per-machine view (thesis per-machine graphs): per
// host, by rank of calls/s, its calls/s over its testers' run (bars) and
// in the peak window (dots), and its median and p99 response time on the
// right axis.
func hostsChart(hs []rankedHost, left int) *chart {
	n := len(hs)
	c := &chart{
		id: HostsGraphID, title: "Throughput and response time per tester host",
		width: chartW, height: chartH,
		x:      axis{title: "tester host, by throughput (rank; the table below names them)", integer: true},
		y:      axis{title: "throughput (successful calls/s)", zero: true, color: colThr, pad: 0.1},
		y2:     axis{title: "response time (ms)", zero: true, color: colRT, pad: 0.1},
		series: hostSeries(hs),
	}
	if n > 0 {
		c.x.fixed, c.x.lo, c.x.hi = true, 0.5, float64(n)+0.5
	}
	switch {
	case n > 0 && n <= maxHostLabels && left == 0:
		c.x.title = "tester host, by throughput"
		for i, h := range hs {
			c.x.ticks, c.x.labels = append(c.x.ticks, float64(i+1)), append(c.x.labels, clipRunes(h.h.Name, hostLabelChars))
		}
	case left > 0:
		rankTicks(c, hs)
	}
	c.notes = hostNotes(n, left)
	return c
}

// hostSeries are graph (m)'s series of hosts hs, the i-th at x = i+1.
func hostSeries(hs []rankedHost) []series {
	n := len(hs)
	x, run, peak, med, p99 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, h := range hs {
		x[i], run[i], med[i], p99[i] = float64(i+1), h.h.RunPerS, rtOrNaN(h.h.RT.Median, h.h), rtOrNaN(h.h.RT.P99, h.h)
		peak[i] = nan
		if h.h.PeakTesters > 0 {
			peak[i] = h.h.PeakPerS
		}
	}
	return []series{
		{name: "calls/s over its testers' run", kind: kindBars, color: colThr, opacity: 0.4, width: 0.8, x: x, y: run},
		{name: "calls/s in the peak window", kind: kindPoints, color: colThr, width: 4, x: x, y: peak},
		{name: "median response time (right axis)", kind: kindPoints, color: colRT, width: 4, right: true, x: x, y: med},
		{name: "p99 response time (right axis)", kind: kindCross, color: colRT, width: 1.5, right: true, x: x, y: p99},
	}
}

// rankTicks labels the x axis of a chart of hosts hs, some left out in
// the middle, with their ranks (about ten ticks), and marks the cut.
func rankTicks(c *chart, hs []rankedHost) {
	step := max(1, len(hs)/10)
	for i := 0; i < len(hs); i += step {
		c.x.ticks, c.x.labels = append(c.x.ticks, float64(i+1)), append(c.x.labels, itoa(hs[i].rank))
	}
	half := len(hs) / 2
	c.rules = append(c.rules, rule{vertical: true, v: float64(half) + 0.5, color: colGuide})
	c.x.title = "tester host, by throughput (rank; hosts " + itoa(hs[half-1].rank+1) + " to " + itoa(hs[half].rank-1) +
		" left out at the dashed line; the table below names them)"
}

// rtOrNaN is v, or NaN when h had no successful call.
func rtOrNaN(v float64, h *analyze.HostFigures) float64 {
	if h.RT.N == 0 {
		return nan
	}
	return v
}

// hostNotes are the notes inside a per-host chart of n hosts drawn, left
// left out.
func hostNotes(n, left int) []string {
	switch {
	case n == 0:
		return []string{"no tester host has figures"}
	case n == 1 && left == 0:
		return []string{noComparisonSingle}
	case left > 0:
		return []string{itoa(left) + " hosts in the middle of the ranking are left out"}
	}
	return nil
}

// netHosts returns, for the hosts of hs the sensor mesh gave a figure
// xOf (> 0) and that have a figure yOf (finite), those figures and
// whether the link was estimated.
func netHosts(hs []rankedHost, xOf func(*analyze.NetLink) float64, yOf func(*analyze.HostFigures) float64) (x, y []float64, est []bool) {
	for _, h := range hs {
		if h.h.Net == nil || xOf(h.h.Net) <= 0 || !finite(yOf(h.h)) {
			continue
		}
		x, y, est = append(x, xOf(h.h.Net)), append(y, yOf(h.h)), append(est, h.h.Net.Estimated)
	}
	return x, y, est
}

// hostScatter is a per-host scatter: measured hosts as dots, estimated
// ones as rings.
func hostScatter(id, title string, xa, ya axis, x, y []float64, est []bool, color string) *chart {
	measured := series{name: "tester host, measured", kind: kindPoints, color: color, width: 5}
	estimated := series{name: "tester host, estimated along the sensor hierarchy", kind: kindRings, color: color}
	for i := range x {
		if est[i] {
			estimated.x, estimated.y, estimated.r = append(estimated.x, x[i]), append(estimated.y, y[i]), append(estimated.r, 5)
		} else {
			measured.x, measured.y = append(measured.x, x[i]), append(measured.y, y[i])
		}
	}
	c := &chart{id: id, title: title, width: chartW, height: chartH, x: xa, y: ya}
	for _, s := range []series{measured, estimated} {
		if len(s.x) > 0 {
			c.series = append(c.series, s)
		}
	}
	if len(x) == 1 {
		c.notes = []string{noComparisonSingle}
	}
	return c
}

// clipRunes cuts s to n characters, marking the cut.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
