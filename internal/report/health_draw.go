package report

import (
	"sort"
	"strings"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/webui"
)

// Colours of the health panel.
const (
	colTesterCPU   = "#9467bd" // the highest tester CPU
	colHostBusy    = "#8c564b" // the busiest tester host
	colLag         = "#e377c2" // the largest schedule lag
	colTesterBound = "#d62728" // tester-bound quanta, shaded
)

// Labels of the health panel's series, the same in its SVG and chart.
const (
	lblTesterCPU = "highest tester CPU (% of the CPU it may use)"
	lblHostBusy  = "busiest tester host CPU (%)"
	lblLag       = "largest schedule lag (ms)"
	lblBound     = "tester-bound quantum (the testers limited the load)"
)

// healthChart is the panel under graph (a): per second, the highest CPU
// use of any tester and the busiest of their hosts (left axis, %), the
// latest any call started behind its schedule (right axis, ms), and the
// quanta the testers limited shaded across the percent scale.
func healthChart(r *analyze.Result, v *healthView) *chart {
	c := &chart{
		id: idHealth, title: "Tester health over time",
		width: chartW, height: chartH,
		x:  axis{title: timeXLabel},
		y:  axis{title: "CPU busy (%)", zero: true, color: colTesterCPU},
		y2: axis{title: "schedule lag (ms)", zero: true, color: colLag},
	}
	if len(v.bound) > 0 {
		q := r.Summary.QuantumS
		xs, tops := make([]float64, len(v.bound)), make([]float64, len(v.bound))
		for i, b := range v.bound {
			xs[i], tops[i] = b.t+q/2, 100
		}
		c.series = append(c.series, series{name: lblBound, kind: kindBars, color: colTesterBound, opacity: 0.15,
			width: q / 0.8, x: xs, y: tops}) // bars are 80% of width wide: each covers its quantum
	}
	for _, s := range []struct {
		name, color string
		y           []float64
		right       bool
	}{{lblTesterCPU, colTesterCPU, v.cpu, false}, {lblHostBusy, colHostBusy, v.host, false}, {lblLag, colLag, v.lag, true}} {
		xs, ys := minMax(v.t, s.y, maxPoints)
		c.series = append(c.series, series{name: s.name, kind: kindLine, color: s.color, width: 1.6, right: s.right, x: xs, y: ys})
	}
	if len(v.t) == 0 {
		c.notes = []string{"no health data"}
	}
	return c
}

// healthSpec is the health panel interactive: the same lines, and the
// seconds of tester-bound quanta marked by a thick band at 100%.
func healthSpec(r *analyze.Result, v *healthView) *webui.ChartSpec {
	ss := []webui.Series{
		{Label: lblTesterCPU, Unit: "%", Axis: webui.AxisLeft, Color: colTesterCPU, Values: v.cpu, Width: 1.6,
			AxisLabel: "CPU busy (%)"},
		{Label: lblHostBusy, Unit: "%", Axis: webui.AxisLeft, Color: colHostBusy, Values: v.host, Width: 1.6},
		{Label: lblLag, Unit: "ms", Axis: webui.AxisRight, Color: colLag, Values: v.lag, Width: 1.6,
			AxisLabel: "schedule lag (ms)"},
	}
	if len(v.bound) > 0 {
		mark := make([]float64, len(v.t))
		for i, t := range v.t {
			mark[i] = nan
			if inBound(v.bound, t, r.Summary.QuantumS) {
				mark[i] = 100
			}
		}
		ss = append(ss, webui.Series{Label: lblBound + ", at 100%", Unit: "%", Axis: webui.AxisLeft,
			Color: "#f4a5a5", Values: mark, Width: 8})
	}
	return timeSpec(idHealth, "Tester health over time", v.t, ss)
}

// inBound reports whether time t falls in one of the bound quanta
// (sorted by start) of q seconds.
func inBound(bound []boundQuantum, t, q float64) bool {
	i := sort.Search(len(bound), func(i int) bool { return bound[i].t+q > t })
	return i < len(bound) && bound[i].t <= t
}

// healthCaption says what the health panel shows, with the run's highest
// figures and the tester-bound quanta by reason.
func healthCaption(r *analyze.Result, v *healthView) string {
	s := "Figure a2. The testers' own health, under Figure a on the same time axis: per second since the first " +
		"tester started, the highest CPU use of any tester (its process tree, clients included, in % of the CPU " +
		"it may use) and the busiest of their hosts' CPUs (%) on the left axis, and the latest any call started " +
		"behind its schedule (ms) on the right, over the " + itoa(v.testers) + " testers that reported (" +
		"health.csv). Near 100% CPU or a growing lag, the testers, not the service, limit the load."
	s += " Highest: tester CPU " + num(peak(v.cpu)) + "%, host CPU " + num(peak(v.host)) + "%, lag " +
		num(peak(v.lag)) + " ms."
	if len(v.bound) == 0 {
		s += " No quantum is marked tester-bound."
	} else {
		s += " Shaded: the " + itoa(len(v.bound)) + " quanta marked tester-bound in quanta.csv (" +
			boundReasons(v.bound) + ")."
	}
	if v.refused > 0 {
		s += " " + itoa(v.refused) + " rows outside the run or beyond what is possible were left out."
	}
	return s
}

// peak is the largest finite value of y, NaN when there is none.
func peak(y []float64) float64 {
	p := nan
	for _, v := range y {
		p = analyze.MaxKnown(p, v)
	}
	return p
}

// boundReasons counts the bound quanta by reason, in order of first use.
func boundReasons(bound []boundQuantum) string {
	var order []string
	n := map[string]int{}
	for _, b := range bound {
		if n[b.reason] == 0 {
			order = append(order, b.reason)
		}
		n[b.reason]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = itoa(n[k]) + " " + k
	}
	return strings.Join(parts, ", ")
}

// healthFigures is what goes under graph (a): the panel when the run
// recorded its testers' health, else nothing (the note says why).
func healthFigures(r *analyze.Result, v *healthView) []figure {
	if v == nil || v.note != "" {
		return nil
	}
	return []figure{interactive(newFigure(healthChart(r, v), healthCaption(r, v)), healthSpec(r, v))}
}
