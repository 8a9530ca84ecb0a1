package report

import (
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// testerPoint is what the per-tester chart draws of one tester, or of a
// run of consecutive testers (their means) when there are too many to draw
// one bar each. Utilization is in %; NaN means none (a tester that did not
// run through the whole peak window has no peak figures).
type testerPoint struct {
	x                    float64
	peakUtil, wholeUtil  float64
	peakFair, wholeFair  float64
	failed, anyPeakShare bool
}

// testerPoints returns the per-tester figures in start order.
func testerPoints(clients []analyze.Client) []testerPoint {
	cs := slices.Clone(clients)
	slices.SortStableFunc(cs, func(a, b analyze.Client) int { return a.Index - b.Index })
	out := make([]testerPoint, len(cs))
	for i, c := range cs {
		p := testerPoint{x: float64(c.Index), wholeUtil: c.Whole.Utilization * 100, wholeFair: c.Whole.Fairness,
			peakUtil: nan, peakFair: nan, failed: c.Failed}
		if c.Peak != (analyze.Share{}) {
			p.peakUtil, p.peakFair, p.anyPeakShare = c.Peak.Utilization*100, c.Peak.Fairness, true
		}
		out[i] = p
	}
	return out
}

// mergeTesters is the mean of a run of testers; it failed if any did.
func mergeTesters(ps []testerPoint) testerPoint {
	m := testerPoint{
		x:         meanBy(ps, func(p testerPoint) float64 { return p.x }),
		peakUtil:  meanBy(ps, func(p testerPoint) float64 { return p.peakUtil }),
		wholeUtil: meanBy(ps, func(p testerPoint) float64 { return p.wholeUtil }),
		peakFair:  meanBy(ps, func(p testerPoint) float64 { return p.peakFair }),
		wholeFair: meanBy(ps, func(p testerPoint) float64 { return p.wholeFair }),
	}
	for _, p := range ps {
		m.failed = m.failed || p.failed
		m.anyPeakShare = m.anyPeakShare || p.anyPeakShare
	}
	return m
}

// testersChart is DiPerF's per-machine utilization and fairness (thesis
// Fig. 28): per tester in start order, its service utilization over the
// peak window (bars) and its whole run (line) on the left axis, its
// service fairness over both on the right, with the fair share marked.
func testersChart(r *analyze.Result) *chart {
	gs, k := fold(testerPoints(r.Clients), maxBars, mergeTesters)
	c := &chart{
		id: idTesters, title: "Service utilization and fairness per tester",
		width: chartW, height: chartH,
		x:     axis{title: "tester (start order)", integer: true},
		y:     axis{title: "service utilization (% of the calls completed)", zero: true, color: colUtil},
		y2:    axis{title: "service fairness (1 = fair share)", zero: true, color: colFair},
		rules: []rule{{v: 1, right: true, color: colGuide}},
		extra: []legendItem{{"fair share: fairness 1 (right axis)", colGuide, kindDashed, 1.5, 0}},
	}
	if k > 1 {
		c.x.title = "tester (start order; each bar is the mean of " + itoa(k) + " testers)"
	}
	c.series = testerSeries(gs, k)
	switch {
	case len(gs) == 0:
		c.notes = []string{"no testers"}
	case !slices.ContainsFunc(gs, func(g testerPoint) bool { return g.anyPeakShare }):
		c.notes = []string{"no tester ran through the whole peak window"}
	}
	if len(gs) > 0 {
		c.x.fixed, c.x.lo, c.x.hi = true, gs[0].x-float64(k)/2, gs[len(gs)-1].x+float64(k)/2
	}
	return c
}

// testerSeries builds the series of the per-tester chart from its groups
// of k testers.
func testerSeries(gs []testerPoint, k int) []series {
	n := len(gs)
	x, pu, wu, pf, wf := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	var fx, fy []float64
	for i, g := range gs {
		x[i], pu[i], wu[i], pf[i], wf[i] = g.x, g.peakUtil, g.wholeUtil, g.peakFair, g.wholeFair
		if g.failed {
			fx, fy = append(fx, g.x), append(fy, topOf(g.peakUtil, g.wholeUtil))
		}
	}
	ss := []series{
		{name: "utilization, peak window", kind: kindBars, color: colUtil, opacity: 0.3, width: float64(k), x: x, y: pu},
		thinLine("utilization, whole run", colUtil, 2, false, x, wu),
		thinLine("fairness, peak window (right axis)", colFair, 2, true, x, pf),
		thinLine("fairness, whole run (right axis)", colFair, 1.5, true, x, wf),
	}
	ss[3].kind = kindDashed
	if n <= dotLimit {
		ss = append(ss, series{kind: kindPoints, color: colUtil, width: 3, x: x, y: wu},
			series{kind: kindPoints, color: colFair, width: 3, right: true, x: x, y: pf})
	}
	if len(fx) > 0 {
		ss = append(ss, series{name: "failed tester", kind: kindCross, color: colMark, width: 2, x: fx, y: fy})
	}
	return ss
}

// thinLine is a named line series thinned for drawing.
func thinLine(name, color string, width float64, right bool, x, y []float64) series {
	xs, ys := minMax(x, y, maxPoints)
	return series{name: name, kind: kindLine, color: color, width: width, right: right, x: xs, y: ys}
}

// topOf returns the larger finite one of a and b, 0 when neither is.
func topOf(a, b float64) float64 {
	switch {
	case finite(a) && finite(b):
		return max(a, b)
	case finite(a):
		return a
	case finite(b):
		return b
	}
	return 0
}
