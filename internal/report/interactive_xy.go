package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/webui"
)

// Limits of the interactive clock chart.
const (
	maxClockLines = 10  // testers drawn, evenly spread by start order
	clockCells    = 500 // time cells the syncs are put in
)

// column is one series of points with an x each, before the series of a
// chart are merged onto one x column.
type column struct {
	x, y []float64
}

// merge puts columns of points with their own x onto one ascending x
// column: points of different columns at the same x share a row, the other
// columns' values are NaN in it.
func merge(cols []column) (x []float64, ys [][]float64) {
	type cell struct {
		x, y float64
		col  int
	}
	var cells []cell
	for j, c := range cols {
		for i := range min(len(c.x), len(c.y)) {
			if finite(c.x[i]) {
				cells = append(cells, cell{c.x[i], c.y[i], j})
			}
		}
	}
	slices.SortStableFunc(cells, func(a, b cell) int { return cmp.Compare(a.x, b.x) })
	ys = make([][]float64, len(cols))
	taken := make([]bool, len(cols)) // in the last row
	for _, c := range cells {
		if len(x) == 0 || x[len(x)-1] != c.x || taken[c.col] {
			x = append(x, c.x)
			for j := range ys {
				ys[j], taken[j] = append(ys[j], nan), false
			}
		}
		ys[c.col][len(x)-1], taken[c.col] = c.y, true
	}
	return x, ys
}

// xySpec is a chart of series whose points have their own x, merged onto
// one x column; series[i] takes the values of cols[i].
func xySpec(id, title, xLabel, xUnit string, cols []column, series []webui.Series) *webui.ChartSpec {
	x, ys := merge(cols)
	for i := range series {
		series[i].Values = ys[i]
	}
	return &webui.ChartSpec{ID: id, Title: title, XLabel: xLabel, XUnit: xUnit, X: x, Kind: webui.KindLine,
		Series: series, Height: specTallH}
}

// namedFit is a fitted model as graph (e) draws it.
type namedFit struct {
	name  string
	f     fitCurve
	color string
	kind  string // model.ModelUSL or model.ModelBounds
}

// saturationSpec is graph (e) interactive: throughput and response time
// of each quantum (points, at most maxSpecPoints evenly spread by load)
// against offered load, the fitted model's curves and the saturation
// point.
func saturationSpec(r *analyze.Result, m *model.Model) *webui.ChartSpec {
	qs := slices.DeleteFunc(slices.Clone(r.Quanta), func(q analyze.Quantum) bool { return !finite(q.Load) })
	slices.SortStableFunc(qs, func(a, b analyze.Quantum) int { return cmp.Compare(a.Load, b.Load) })
	qs = evenly(qs, maxSpecPoints)
	load, thr, rt := make([]float64, len(qs)), make([]float64, len(qs)), make([]float64, len(qs))
	hi := 0.0
	for i, q := range qs {
		load[i], thr[i], rt[i] = q.Load, q.Throughput, rtOf(func(s *analyze.RTStats) float64 { return s.Mean })(&q)
		hi = max(hi, q.Load)
	}
	rtName := rtTitle(r, "response time")
	cols := []column{{load, thr}, {load, rt}}
	series := []webui.Series{
		{Label: "throughput, one quantum", Unit: "calls/s", Axis: webui.AxisLeft, Color: colThr, Kind: webui.KindPoints,
			AxisLabel: "throughput (calls/s)"},
		{Label: rtName + ", one quantum", Unit: "ms", Axis: webui.AxisRight, Color: colRT, Kind: webui.KindPoints,
			AxisLabel: rtTitle(r, "response time (ms)")},
	}
	if m != nil {
		top := extrapolate * max(hi, m.USL.MaxLoad)
		fits := []namedFit{{"USL fit", &m.USL, colThr, model.ModelUSL}}
		if b := m.Bounds; b != nil {
			fits = append(fits, namedFit{"bounds fit", b.BoundsParams, colBoundsFit, model.ModelBounds})
		}
		for _, f := range fits {
			x, y := curve(f.f.Throughput, 0, top)
			name := f.name + " (fitted up to " + num(m.USL.MaxLoad) + " calls in flight)"
			if m.Predictor() == f.kind {
				rx, ry := curve(f.f.ResponseTimeMs, 0, top)
				cols = append(cols, column{rx, ry})
				series = append(series, webui.Series{Label: "response time N / X(N) of the " + f.name, Unit: "ms",
					Axis: webui.AxisRight, Color: colRT, Width: 2, SpanGaps: true})
				name += ", predicts"
			}
			cols = append(cols, column{x, y})
			series = append(series, webui.Series{Label: name, Unit: "calls/s", Axis: webui.AxisLeft, Color: f.color,
				Width: 2, SpanGaps: true})
		}
	}
	if s := r.Summary.Saturation; len(r.Quanta) > 0 {
		name := "saturation point"
		if !s.Saturated {
			name = "highest load reached (never saturated)"
			if s.Verdict != "" {
				name = "highest load reached: " + s.Text()
			}
		}
		cols = append(cols, column{[]float64{s.Load}, []float64{s.Throughput}})
		series = append(series, webui.Series{Label: name, Unit: "calls/s", Axis: webui.AxisLeft, Color: colMark,
			Kind: webui.KindPoints})
	}
	return xySpec(idSaturation, "Throughput and response time against offered load", "offered load (calls in flight)",
		"calls in flight", cols, series)
}

// percentileSpec is graph (f) interactive: the response time at each
// percentile rank on the tail scale, the legend naming the rank.
func percentileSpec(r *analyze.Result) *webui.ChartSpec {
	pts := slices.DeleteFunc(slices.Clone(r.Percentiles), func(p analyze.PercentilePoint) bool {
		return !finite(p.P) || !finite(p.Ms) || p.P < 0 || p.P > 100
	})
	slices.SortStableFunc(pts, func(a, b analyze.PercentilePoint) int { return cmp.Compare(a.P, b.P) })
	pts = evenly(pts, maxSpecPoints)
	x, top, hasMax := tailPositions(pts)
	y, names := make([]float64, len(pts)), make([]string, len(pts))
	for i, p := range pts {
		y[i], names[i] = p.Ms, "p"+num(p.P)
		if p.P >= 100 {
			names[i] = "max"
		}
	}
	ticks, labels := tailTicks(top, hasMax)
	return &webui.ChartSpec{ID: idPercentiles, Title: "Response-time percentile distribution",
		XLabel: "percentile of the successful calls (tail scale)", X: x, XNames: names, Kind: webui.KindLine,
		XTicks: &webui.Ticks{Values: ticks, Labels: labels}, Height: specH,
		Series: []webui.Series{{Label: rtTitle(r, "response time"), Unit: "ms", Axis: webui.AxisLeft, Color: colRT,
			Values: y, Width: 2}}}
}

// clockSpec is graph (g) interactive: for at most maxClockLines testers
// evenly spread by start order, the change of its clock offset since its
// first sync (a line each, left axis), and the largest error bound of
// their syncs (points, right axis), in clockCells time cells.
func clockSpec(r *analyze.Result) *webui.ChartSpec {
	cs, _ := clockTesters(r.Clients, maxClockLines)
	var span span
	for _, c := range cs {
		for _, s := range c.Clock.Syncs {
			if finite(s.T) {
				span.add(s.T)
			}
		}
	}
	cells := clockCells
	x := make([]float64, cells)
	for k := range x {
		x[k] = span.lo + float64(k)*(span.hi-span.lo)/float64(cells-1)
	}
	cell := func(t float64) int {
		if !(span.hi > span.lo) {
			return 0
		}
		return min(cells-1, max(0, int(math.Round((t-span.lo)/(span.hi-span.lo)*float64(cells-1)))))
	}
	bound := gaps(cells)
	var series []webui.Series
	for i, c := range cs {
		change, ref := gaps(cells), firstOffset(c.Clock.Syncs)
		for _, s := range c.Clock.Syncs {
			if finite(s.T) {
				k := cell(s.T)
				change[k] = s.OffsetMs - ref
				if finite(s.BoundMs) && !(bound[k] >= s.BoundMs) {
					bound[k] = s.BoundMs
				}
			}
		}
		series = append(series, webui.Series{Label: "tester " + c.ID + " offset change", Unit: "ms",
			AxisLabel: "offset change since first sync (ms)", Axis: webui.AxisLeft, Color: extraColors[i%len(extraColors)], Values: change, Width: 1.2, SpanGaps: true})
	}
	series = append(series, webui.Series{Label: "largest error bound of a sync", Unit: "ms", Axis: webui.AxisRight,
		AxisLabel: "error bound (ms)",
		Color:     colBound, Values: bound, Kind: webui.KindPoints})
	if len(cs) == 0 {
		x = nil
		series[0].Values = nil
	}
	return &webui.ChartSpec{ID: idClock, Title: "Clock synchronization per tester", XLabel: timeXLabel, XUnit: "s",
		X: x, Kind: webui.KindLine, Series: series, Height: specH}
}

// gaps returns n NaNs.
func gaps(n int) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = nan
	}
	return y
}
