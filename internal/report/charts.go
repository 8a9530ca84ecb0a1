package report

import (
	"math"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// Chart sizes and limits.
const (
	chartW   = 936  // px, the page's content width
	chartH   = 380  // px
	maWindow = 5    // quanta in a moving average
	maxBars  = 2000 // bars drawn in the per-tester chart before aggregating
	dotLimit = 100  // testers up to which utilization gets a dot each
)

// Element ids of the first three charts (idClock is in clock.go).
const (
	idTimeline   = "chart-timeline"
	idTesters    = "chart-testers"
	idSaturation = "chart-saturation"
)

// timelineChart is DiPerF's main graph: offered load and response time on
// the left axis, throughput on the right, over time; each raw series thin
// and light, its moving average thick.
func timelineChart(r *analyze.Result) *chart {
	n := len(r.Quanta)
	t, load, rt, thr := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, q := range r.Quanta {
		t[i], load[i], thr[i], rt[i] = q.T, q.Load, q.Throughput, math.NaN()
		if q.RT.N > 0 {
			rt[i] = q.RT.Mean
		}
	}
	c := &chart{
		id: idTimeline, title: "Offered load, response time and throughput over time",
		width: chartW, height: chartH,
		x:  axis{title: "time since the first tester started (s)"},
		y:  axis{title: "load (calls in flight) · response time (ms)", zero: true},
		y2: axis{title: "throughput (calls/s)", zero: true, color: colThr},
		series: []series{
			raw(t, load, colLoad, false), raw(t, rt, colRT, false), raw(t, thr, colThr, true),
			smooth("offered load (left axis)", t, load, colLoad, false),
			smooth("response time (left axis)", t, rt, colRT, false),
			smooth("throughput (right axis)", t, thr, colThr, true),
		},
		extra: []legendItem{
			{"per quantum", "#aaa", kindLine, 1},
			{"moving average of " + itoa(maWindow) + " quanta", "#777", kindLine, 2.2},
		},
	}
	if n == 0 {
		c.notes = []string{"no data"}
	}
	return c
}

// raw is a thin, light line of per-quantum values, thinned for drawing.
func raw(x, y []float64, color string, right bool) series {
	xs, ys := minMax(x, y, maxPoints)
	return series{kind: kindLine, color: color, width: 1, opacity: 0.35, right: right, x: xs, y: ys}
}

// smooth is the thick line of the centered moving average of y.
func smooth(name string, x, y []float64, color string, right bool) series {
	xs, ys := minMax(x, movingAvg(y, maWindow), maxPoints)
	return series{name: name, kind: kindLine, color: color, width: 2.2, right: right, x: xs, y: ys}
}

// group is one bar of the per-tester chart: a tester, or the mean of a run
// of consecutive testers when there are too many to draw one bar each.
type group struct {
	x, ok, failed, util float64
	anyFailed           bool
}

// testerGroups sorts the testers by start order and folds them into at most
// limit groups of k consecutive testers; it returns the groups and k.
func testerGroups(clients []analyze.Client, limit int) ([]group, int) {
	cs := slices.Clone(clients)
	slices.SortStableFunc(cs, func(a, b analyze.Client) int { return a.Index - b.Index })
	k := max(1, (len(cs)+limit-1)/limit)
	gs := make([]group, 0, (len(cs)+k-1)/k)
	for lo := 0; lo < len(cs); lo += k {
		part := cs[lo:min(lo+k, len(cs))]
		var g group
		for _, c := range part {
			g.x += float64(c.Index)
			g.ok += float64(c.Whole.OK)
			g.failed += float64(c.Whole.Failed)
			g.util += c.Whole.Utilization * 100
			g.anyFailed = g.anyFailed || c.Failed
		}
		m := float64(len(part))
		g.x, g.ok, g.failed, g.util = g.x/m, g.ok/m, g.failed/m, g.util/m
		gs = append(gs, g)
	}
	return gs, k
}

// testersChart shows per tester the ok and failed calls as stacked bars and
// its service utilization on the right axis; failed testers get a red ×.
func testersChart(r *analyze.Result) *chart {
	gs, k := testerGroups(r.Clients, maxBars)
	c := &chart{
		id: idTesters, title: "Calls and service utilization per tester",
		width: chartW, height: chartH - 40,
		x:  axis{title: "tester (start order)", integer: true},
		y:  axis{title: "calls per tester", zero: true},
		y2: axis{title: "service utilization (%)", zero: true, color: colUtil},
	}
	if k > 1 {
		c.x.title = "tester (start order; each bar is the mean of " + itoa(k) + " testers)"
	}
	if len(gs) == 0 {
		c.notes = []string{"no testers"}
		return c
	}
	c.x.fixed, c.x.lo, c.x.hi = true, gs[0].x-float64(k)/2, gs[len(gs)-1].x+float64(k)/2
	c.series = testerSeries(gs, k)
	return c
}

// testerSeries builds the series of the per-tester chart from its groups.
func testerSeries(gs []group, k int) []series {
	n := len(gs)
	x, ok, all, util := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	var fx, fy []float64
	for i, g := range gs {
		x[i], ok[i], all[i], util[i] = g.x, g.ok, g.ok+g.failed, g.util
		if g.anyFailed {
			fx, fy = append(fx, g.x), append(fy, all[i])
		}
	}
	ux, uy := minMax(x, util, maxPoints)
	ss := []series{
		{name: "ok calls", kind: kindBars, color: colThr, width: float64(k), x: x, y: ok},
		{name: "failed calls", kind: kindBars, color: colFail, width: float64(k), x: x, y: all, base: ok},
		{name: "utilization (right axis)", kind: kindLine, color: colUtil, width: 1.5, right: true, x: ux, y: uy},
	}
	if n <= dotLimit {
		ss = append(ss, series{kind: kindPoints, color: colUtil, width: 3, right: true, x: x, y: util})
	}
	if len(fx) > 0 {
		ss = append(ss, series{name: "failed tester", kind: kindCross, color: colMark, width: 2, x: fx, y: fy})
	}
	return ss
}

// saturationChart plots throughput against offered load, one point per
// quantum, and marks the saturation point with dashed lines.
func saturationChart(r *analyze.Result) *chart {
	n := len(r.Quanta)
	load, thr := make([]float64, n), make([]float64, n)
	for i, q := range r.Quanta {
		load[i], thr[i] = q.Load, q.Throughput
	}
	xs, ys := stride(load, thr, maxPoints)
	c := &chart{
		id: idSaturation, title: "Throughput against offered load",
		width: chartW, height: chartH,
		x:      axis{title: "offered load (calls in flight)", zero: true, color: colLoad},
		y:      axis{title: "throughput (calls/s)", zero: true, color: colThr},
		series: []series{{name: "one quantum", kind: kindPoints, color: colThr, width: 2.5, opacity: 0.5, x: xs, y: ys}},
	}
	s := r.Summary.Saturation
	switch {
	case n == 0:
		c.notes = []string{"no data"}
	case s.Saturated:
		c.rules = []rule{{vertical: true, v: s.Load, color: colMark}, {v: s.Throughput, color: colMark}}
		c.series = append(c.series, series{kind: kindPoints, color: colMark, width: 4.5,
			x: []float64{s.Load}, y: []float64{s.Throughput}})
		c.extra = []legendItem{{"saturation: " + num(s.Load) + " calls in flight, " + num(s.Throughput) + " calls/s",
			colMark, kindDashed, 1.5}}
	default:
		c.notes = []string{"not saturated: the service kept up with the highest load reached (" +
			num(s.Load) + " calls in flight, " + num(s.Throughput) + " calls/s)"}
	}
	return c
}
