package report

import (
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
)

// Drawing of the fitted model.
const (
	curveSamples = 120       // points per drawn piece of a model curve
	extrapolate  = 1.25      // curves go on, dashed, to this times the highest load
	colBoundsFit = "#0b5d1e" // the asymptotic-bounds fit, a darker throughput green
)

// saturationChart plots throughput (left axis) and response time (right
// axis) against offered load, one point per quantum, with the curves of
// the fitted model m (none when m is nil) and the saturation point.
func saturationChart(r *analyze.Result, m *model.Model) *chart {
	n := len(r.Quanta)
	load, thr, rt := make([]float64, n), make([]float64, n), make([]float64, n)
	hi := 0.0
	for i, q := range r.Quanta {
		load[i], thr[i], rt[i] = q.Load, q.Throughput, nan
		if q.RT.N > 0 {
			rt[i] = q.RT.Mean
		}
		if finite(q.Load) {
			hi = max(hi, q.Load)
		}
	}
	tx, ty := stride(load, thr, maxPoints)
	rx, ry := stride(load, rt, maxPoints)
	c := &chart{
		id: idSaturation, title: "Throughput and response time against offered load",
		width: chartW, height: chartH + 60,
		x:  axis{title: "offered load (calls in flight)", zero: true, color: colLoad},
		y:  axis{title: "throughput (calls/s)", zero: true, color: colThr},
		y2: axis{title: rtTitle(r, "response time (ms)"), zero: true, color: colRT},
		series: []series{
			{name: "throughput, one quantum", kind: kindPoints, color: colThr, width: 3, opacity: 0.55, x: tx, y: ty},
			{name: "response time, one quantum (right axis)", kind: kindPoints, color: colRT, width: 2.5, opacity: 0.5,
				right: true, x: rx, y: ry},
		},
	}
	if n == 0 {
		c.notes = append(c.notes, "no data")
	}
	c.addModel(m, hi)
	c.addSaturation(r.Summary.Saturation, n)
	return c
}

// addModel draws the fits of m: each fit's throughput (the USL always, the
// asymptotic bounds when they were fitted), the one that predicts thick and
// with the response time Little's law derives from it; solid over the loads
// fitted and dashed beyond. Without a model it says so.
func (c *chart) addModel(m *model.Model, hi float64) {
	if m == nil {
		c.notes = append(c.notes, "no model: too few quanta with load to fit one")
		return
	}
	fitted := m.USL.MaxLoad
	top := extrapolate * max(hi, fitted)
	chosen := m.Predictor()
	c.addFit(uslLabel(&m.USL), &m.USL, colThr, fitted, top, chosen == model.ModelUSL)
	if b := m.Bounds; b != nil {
		c.addFit("bounds fit min(N/R0, X*): R0 "+num(b.R0Ms)+" ms, X* "+num(b.Plateau)+" calls/s, knee at "+
			num(b.KneeLoad)+" calls in flight (R² "+num(b.R2)+")", b.BoundsParams, colBoundsFit, fitted, top,
			chosen == model.ModelBounds)
	}
	c.extra = append(c.extra, legendItem{"model extrapolated beyond the loads fitted", colGuide, kindDashed, 2, 0})
}

// uslLabel is the legend entry of the USL fit u.
func uslLabel(u *model.USL) string {
	s := "USL fit: λ " + num(u.Lambda) + " calls/s, σ " + num(u.Sigma) + ", κ " + num(u.Kappa) + " (R² " + num(u.R2) + ")"
	if u.PeakLoad > 0 {
		s += ", peak at " + num(u.PeakLoad) + " calls in flight"
	}
	return s
}

// fitCurve is a fitted model: throughput and mean response time at a load.
type fitCurve interface {
	Throughput(n float64) float64
	ResponseTimeMs(n float64) float64
}

// addFit draws the throughput of fit f in color, solid up to the load
// fitted and dashed from there to top. The fit that predicts is drawn
// thick, with its response time on the right axis.
func (c *chart) addFit(label string, f fitCurve, color string, fitted, top float64, predicts bool) {
	w := 1.4
	if predicts {
		w, label = 2.4, label+" — predicts"
	}
	c.addCurve(label, f.Throughput, color, w, false, fitted, top)
	if predicts {
		c.addCurve("response time of the predicting fit, N / X(N) (right axis)", f.ResponseTimeMs, colRT, w, true,
			fitted, top)
	}
}

// addCurve adds g as a line named name, solid from 0 to fitted and dashed
// from fitted to top.
func (c *chart) addCurve(name string, g func(float64) float64, color string, w float64, right bool, fitted, top float64) {
	sx, sy := curve(g, 0, fitted)
	dx, dy := curve(g, fitted, top)
	c.series = append(c.series,
		series{name: name, kind: kindLine, color: color, width: w, right: right, x: sx, y: sy},
		series{kind: kindDashed, color: color, width: w, right: right, x: dx, y: dy})
}

// curve samples f at curveSamples points from lo to hi; nothing when the
// interval is empty or not finite.
func curve(f func(float64) float64, lo, hi float64) (xs, ys []float64) {
	if !finite(lo) || !finite(hi) || !(hi > lo) {
		return nil, nil
	}
	xs, ys = make([]float64, curveSamples), make([]float64, curveSamples)
	for i := range curveSamples {
		xs[i] = lo + (hi-lo)*float64(i)/(curveSamples-1)
		ys[i] = f(xs[i])
	}
	return xs, ys
}

// addSaturation marks the saturation point s with dashed lines and a dot,
// or, when the service never saturated, the highest load reached with a
// "*" and a note.
func (c *chart) addSaturation(s analyze.Saturation, quanta int) {
	at := func(name string, k kind, w float64) series {
		return series{name: name, kind: k, color: colMark, width: w, x: []float64{s.Load}, y: []float64{s.Throughput}}
	}
	switch {
	case quanta == 0:
	case s.Saturated:
		c.rules = append(c.rules, rule{vertical: true, v: s.Load, color: colMark}, rule{v: s.Throughput, color: colMark})
		c.series = append(c.series, at("saturation: "+num(s.Load)+" calls in flight, "+num(s.Throughput)+" calls/s",
			kindPoints, 4.5))
	default:
		c.series = append(c.series, at("* never saturated: highest load "+num(s.Load)+" calls in flight, "+
			num(s.Throughput)+" calls/s", kindCross, 2.5))
		c.notes = append(c.notes, notSaturatedNote(s))
	}
}

// notSaturatedNote is the note under graph (e) when the service was not
// shown saturated: the verdict in words when known.
func notSaturatedNote(s analyze.Saturation) string {
	if s.Verdict != "" {
		return "* " + s.Text()
	}
	return "* not saturated: the service kept up with the highest load reached"
}
