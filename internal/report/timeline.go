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

// timelineChart is DiPerF's main graph: offered load and response time on
// the left axis, throughput on the right, over time; each raw series thin
// and light, its moving average thick and its polynomial approximation
// dashed.
func timelineChart(r *analyze.Result) *chart {
	n := len(r.Quanta)
	t, load, rt, thr := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, q := range r.Quanta {
		t[i], load[i], thr[i], rt[i] = q.T, q.Load, q.Throughput, nan
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
			{"per quantum", "#aaa", kindLine, 1, 0},
			{"moving average of " + itoa(maWindow) + " quanta", colGuide, kindLine, 2.2, 0},
		},
	}
	if n == 0 {
		c.notes = []string{"no data"}
	}
	c.addPolynomials(t, [][]float64{load, rt, thr}, min(polyDegree, n/4))
	return c
}

// addPolynomials adds the dashed polynomial approximation of degree deg of
// each of ys (load, response time, throughput) against t to the timeline,
// and its legend entry when at least one could be fitted.
func (c *chart) addPolynomials(t []float64, ys [][]float64, deg int) {
	if deg < 1 {
		return
	}
	colors, right := []string{colLoad, colRT, colThr}, []bool{false, false, true}
	fitted := false
	for i, y := range ys {
		xs, vs, ok := polyCurve(t, y, deg)
		if !ok {
			continue
		}
		c.series = append(c.series, series{kind: kindDashed, color: colors[i], width: 1.6, right: right[i], x: xs, y: vs})
		fitted = true
	}
	if fitted {
		c.extra = append(c.extra, legendItem{"polynomial approximation, degree " + itoa(deg), colGuide, kindDashed, 1.6, 0})
	}
}

// raw is a thin, light line of per-quantum values, thinned for drawing.
func raw(x, y []float64, color string, right bool) series {
	xs, ys := minMax(x, y, maxPoints)
	return series{kind: kindLine, color: color, width: 1, opacity: 0.35, right: right, x: xs, y: ys}
}

// smooth is the thick line of the centered moving average of y.
func smooth(name string, x, y []float64, color string, right bool) series {
	xs, ys := minMax(x, movingAverage(y, maWindow), maxPoints)
	return series{name: name, kind: kindLine, color: color, width: 2.2, right: right, x: xs, y: ys}
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
