package report

import (
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
)

// Settings of the timeline's polynomial approximations.
const (
	polyDegree   = model.MaxDegree // DiPerF's polynomial approximation, for long enough runs
	polySamples  = 240             // points at which a fitted polynomial is drawn
	maxFitPoints = 20000           // quanta a polynomial is fitted to, evenly spread
)

// Layout of the timeline.
const (
	loadPanelH = 150 // px of the upper panel, offered load's own
	timelineH  = chartH + loadPanelH + panelGap
)

// quantity is one of the timeline's series over time, with where it is
// drawn: the upper panel, or the main panel's left or right axis.
type quantity struct {
	name         string // legend label, saying which axis it uses
	y            []float64
	color        string
	right, upper bool
}

// timelineChart is DiPerF's main graph over time, each series on a scale
// of its own: offered load in the upper panel, response time on the left
// axis and throughput on the right axis of the main panel below it; each
// raw series thin and light, its moving average thick and its polynomial
// approximation dashed. A run whose calls measured their HTTP phases has
// the time to first byte on the left axis too, raw and averaged.
func timelineChart(r *analyze.Result) *chart {
	n := len(r.Quanta)
	t, load, rt, thr := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	live := make([]float64, n)
	for i, q := range r.Quanta {
		t[i], load[i], thr[i], rt[i], live[i] = q.T, q.Load, q.Throughput, nan, float64(q.Active)
		if q.RT.N > 0 {
			rt[i] = q.RT.Mean
		}
	}
	qs := []quantity{
		{"offered load (upper panel)", load, colLoad, false, true},
		{"response time (left axis)", rt, colRT, false, false},
		{"throughput (right axis)", thr, colThr, true, false},
	}
	c := &chart{
		id: idTimeline, title: "Offered load, response time and throughput over time",
		width: chartW, height: timelineH, upperH: loadPanelH,
		x:     axis{title: "time since the first tester started (s)"},
		upper: axis{title: "load (calls in flight)", zero: true, pad: 0.05, color: colLoad},
		y:     axis{title: rtTitle(r, "response time (ms)"), zero: true, color: colRT},
		y2:    axis{title: "throughput (calls/s)", zero: true, color: colThr},
	}
	for _, q := range qs {
		c.series = append(c.series, raw(t, q))
	}
	for _, q := range qs {
		c.series = append(c.series, smooth(t, q))
	}
	if fb := firstByte(r); fb != nil {
		q := quantity{"time to first byte (left axis)", fb, colFirstByte, false, false}
		c.series = append(c.series, raw(t, q), smooth(t, q))
	}
	c.series = append(c.series, liveTesters(t, live))
	c.extra = []legendItem{
		{"per quantum", "#aaa", kindLine, 1, 0},
		{"moving average of " + itoa(maWindow) + " quanta", colGuide, kindLine, 2.2, 0},
	}
	if n == 0 {
		c.notes = []string{"no data"}
	}
	c.addPolynomials(t, qs, min(polyDegree, n/4))
	return c
}

// liveTesters is the step line of the testers alive in each quantum of
// the upper panel: started and not yet stopped, failed or lost (a tester
// marked lost stops counting from that moment), so that a degraded run
// shows it.
func liveTesters(t, live []float64) series {
	xs, ys := minMax(t, live, maxPoints)
	return series{name: "live testers (upper panel; a failed or lost tester stops counting when it failed)",
		kind: kindLine, color: colLive, width: 1.4, upper: true, x: xs, y: ys}
}

// addPolynomials adds the dashed polynomial approximation of degree deg of
// each quantity against t to the timeline, and its legend entry when at
// least one could be fitted.
func (c *chart) addPolynomials(t []float64, qs []quantity, deg int) {
	if deg < 1 {
		return
	}
	fitted := false
	for _, q := range qs {
		xs, vs, ok := polyCurve(t, q.y, deg)
		if !ok {
			continue
		}
		c.series = append(c.series, series{kind: kindDashed, color: q.color, width: 1.6, right: q.right,
			upper: q.upper, x: xs, y: vs})
		fitted = true
	}
	if fitted {
		c.extra = append(c.extra, legendItem{"polynomial approximation, degree " + itoa(deg), colGuide, kindDashed, 1.6, 0})
	}
}

// raw is a thin, light line of the per-quantum values of q, thinned for
// drawing.
func raw(x []float64, q quantity) series {
	xs, ys := minMax(x, q.y, maxPoints)
	return series{kind: kindLine, color: q.color, width: 1, opacity: 0.35, right: q.right, upper: q.upper, x: xs, y: ys}
}

// smooth is the thick line of the centered moving average of q, named in
// the legend.
func smooth(x []float64, q quantity) series {
	xs, ys := minMax(x, movingAverage(q.y, maWindow), maxPoints)
	return series{name: q.name, kind: kindLine, color: q.color, width: 2.2, right: q.right, upper: q.upper, x: xs, y: ys}
}

// movingAverage is model.MovingAverage of the finite values of y, with a
// gap wherever y itself has none, so that the line breaks where the data
// do.
func movingAverage(y []float64, window int) []float64 {
	out := model.MovingAverage(orNaN(y), window)
	for i, v := range y {
		if !finite(v) {
			out[i] = nan
		}
	}
	return out
}

// polyCurve fits a polynomial of degree deg to y against x (at most
// maxFitPoints of them, evenly spread) and returns it sampled at
// polySamples points over the range of x, held within the range of y so
// that its swings at the ends cannot stretch the axis. ok is false when no
// fit is possible. The fit is made against x mapped onto [0, 1], which
// keeps the powers of x well scaled wherever the time axis starts.
func polyCurve(x, y []float64, deg int) (xs, ys []float64, ok bool) {
	fx, fy := stride(orNaN(x), orNaN(y), maxFitPoints)
	var xr, yr span
	for i := range fx {
		if finite(fx[i]) && finite(fy[i]) {
			xr.add(fx[i])
			yr.add(fy[i])
		}
	}
	if !xr.ok || !(xr.hi > xr.lo) {
		return nil, nil, false
	}
	u := make([]float64, len(fx))
	for i, v := range fx {
		u[i] = (v - xr.lo) / (xr.hi - xr.lo)
	}
	coef, err := model.Polyfit(u, fy, deg)
	if err != nil {
		return nil, nil, false
	}
	xs, ys = make([]float64, polySamples), make([]float64, polySamples)
	for k := range polySamples {
		uk := float64(k) / (polySamples - 1)
		xs[k] = xr.lo + uk*(xr.hi-xr.lo)
		ys[k] = min(max(model.PolyEval(coef, uk), yr.lo), yr.hi)
	}
	return xs, ys, true
}
