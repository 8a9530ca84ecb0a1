package report

import (
	"html/template"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/webui"
)

// The interactive charts. Each figure that time or load runs along has, as
// well as its SVG, a chart spec (webui.ChartSpec) that the page embeds as
// JSON in <script type="application/json" id="data-ID"> and that
// webui/charts.js draws with uPlot when the page opens: hover for values,
// drag to zoom, click a legend entry to hide its series. The SVG stays in
// the page as the fallback (shown when scripts are off or a chart fails)
// and is the file written beside the page for papers.
//
// Each figure's spec comes from one function (timelineSpec, saturationSpec,
// percentileSpec, clockSpec, openRateSpec, extrasSpec) fed the same data as
// its SVG. To make another figure interactive (e.g. the server view's
// graphs from their plain data struct), write a function returning its spec
// and attach it where figures() builds the figure:
//
//	func serverSpec(v *serverView) *webui.ChartSpec {
//		return timeSpec(idServerCPU, "Server CPU", v.T, []webui.Series{
//			{Label: "CPU busy", Unit: "%", Axis: webui.AxisLeft, Color: colLoad, Values: v.CPU},
//			{Label: "throughput", Unit: "calls/s", Axis: webui.AxisRight, Color: colThr, Values: v.Thr},
//		})
//	}
//	fs = append(fs, interactive(newFigure(serverChart(v), caption), serverSpec(v)))
//
// timeSpec bounds the points per series (maxSpecPoints, peaks kept), so the
// page stays small whatever the run's length.

// maxSpecPoints bounds the rows of an interactive chart's data.
const maxSpecPoints = 2000

// Heights of the interactive charts, px.
const (
	specH     = chartH
	specTallH = chartH + 80
)

// timeXLabel is the x axis of the charts over time.
const timeXLabel = "time since the first tester started (s)"

// interactive gives f the chart spec s, as JSON that can sit in a script
// element; f stays as it is (SVG only) when s is nil.
func interactive(f figure, s *webui.ChartSpec) figure {
	if s == nil {
		return f
	}
	b, err := s.JSON()
	if err != nil { // Values and strings always marshal; keep the SVG if not
		return f
	}
	f.Spec = template.JS(b) // JSON escapes '<', '>' and '&': no text can close the element
	return f
}

// timeSpec is a chart over time of series sharing the column t, thinned to
// maxSpecPoints rows with each series' peaks kept.
func timeSpec(id, title string, t []float64, ss []webui.Series) *webui.ChartSpec {
	ys := make([][]float64, len(ss))
	for i := range ss {
		ys[i] = ss[i].Values
	}
	xs, ys := alignedMinMax(t, ys, maxSpecPoints)
	for i := range ss {
		ss[i].Values = ys[i]
	}
	return &webui.ChartSpec{ID: id, Title: title, XLabel: timeXLabel, XUnit: "s", X: xs, Kind: webui.KindLine,
		Series: ss, Height: specH}
}

// quantaColumns returns, per quantum, its start and f of it.
func quantaColumns(r *analyze.Result, fs ...func(q *analyze.Quantum) float64) (t []float64, ys [][]float64) {
	n := len(r.Quanta)
	t, ys = make([]float64, n), make([][]float64, len(fs))
	for j := range fs {
		ys[j] = make([]float64, n)
	}
	for i := range r.Quanta {
		q := &r.Quanta[i]
		t[i] = q.T
		for j, f := range fs {
			ys[j][i] = f(q)
		}
	}
	return t, ys
}

// rtOf returns f of a quantum's response times, NaN when it has none.
func rtOf(f func(s *analyze.RTStats) float64) func(q *analyze.Quantum) float64 {
	return func(q *analyze.Quantum) float64 {
		if q.RT.N == 0 {
			return nan
		}
		return f(&q.RT)
	}
}

// timelineSpec is graph (a) interactive: per quantum, offered load and
// throughput on the right, and on the left the response time's mean,
// median, p90 and p99 (the band between median and p90 shaded), and the
// time to first byte when the calls measured it.
func timelineSpec(r *analyze.Result) *webui.ChartSpec {
	t, ys := quantaColumns(r,
		func(q *analyze.Quantum) float64 { return q.Load },
		func(q *analyze.Quantum) float64 { return q.Throughput },
		rtOf(func(s *analyze.RTStats) float64 { return s.Mean }),
		rtOf(func(s *analyze.RTStats) float64 { return s.Median }),
		rtOf(func(s *analyze.RTStats) float64 { return s.P90 }),
		rtOf(func(s *analyze.RTStats) float64 { return s.P99 }))
	rt := rtTitle(r, "response time")
	ss := []webui.Series{
		{Label: "offered load", Unit: "calls in flight", Axis: webui.AxisRight, Color: colLoad, Values: ys[0], Width: 1.4},
		{Label: "throughput", Unit: "calls/s", Axis: webui.AxisRight, Color: colThr, Values: ys[1], Width: 1.4},
		{Label: rt + ", mean", Unit: "ms", Axis: webui.AxisLeft, Color: colRT, Values: ys[2], Width: 2,
			AxisLabel: rtTitle(r, "response time (ms)")},
		{Label: "median", Unit: "ms", Axis: webui.AxisLeft, Color: "#c45a00", Values: ys[3], Width: 1},
		{Label: "p90", Unit: "ms", Axis: webui.AxisLeft, Color: "#e8a15c", Values: ys[4], Width: 1},
		{Label: "p99", Unit: "ms", Axis: webui.AxisLeft, Color: "#f2c89d", Values: ys[5], Width: 1, Dash: true},
	}
	if fb := firstByte(r); fb != nil {
		ss = append(ss, webui.Series{Label: "time to first byte", Unit: "ms", Axis: webui.AxisLeft,
			Color: colFirstByte, Values: fb, Width: 1.4})
	}
	s := timeSpec(idTimeline, "Offered load, throughput and response time over time", t, ss)
	s.Bands = []webui.Band{{Upper: 4, Lower: 3}}
	s.Height = specTallH
	return s
}

// openRateSpec is graph (h) interactive: per quantum, at its middle, the
// offered and achieved rates, and the late and dropped calls.
func openRateSpec(r *analyze.Result) *webui.ChartSpec {
	qs := openQuanta(r)
	n := len(qs)
	t, off, ach, late, drop := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, q := range qs {
		t[i], off[i], ach[i], late[i], drop[i] = q.t, q.offered, q.achieved, q.late, q.dropped
	}
	return timeSpec(idOpenRate, "Open model: offered and achieved rate, late and dropped calls", t, []webui.Series{
		{Label: "achieved rate", Unit: "calls/s", Axis: webui.AxisLeft, Color: colAchieved, Values: ach, Width: 2,
			AxisLabel: "rate (calls/s)"},
		{Label: "offered rate", Unit: "calls/s", Axis: webui.AxisLeft, Color: colOffered, Values: off, Width: 2, Dash: true},
		{Label: "late calls", Unit: "calls", Axis: webui.AxisRight, Color: colLate, Values: late, Width: 1.2,
			AxisLabel: "late / dropped calls per quantum"},
		{Label: "dropped calls", Unit: "calls", Axis: webui.AxisRight, Color: colDropped, Values: drop, Width: 1.2},
	})
}

// extrasSpec is graph (i) interactive: each drawn key's values summed per
// second, per quantum, the smaller keys on the right axis as in the SVG.
func extrasSpec(r *analyze.Result) *webui.ChartSpec {
	drawn, _ := drawnExtras(r, extraKeys(r))
	t, _ := quantaColumns(r)
	ys, peaks := make([][]float64, len(drawn)), make([]float64, len(drawn))
	for i, k := range drawn {
		ys[i], peaks[i] = extraRates(r, k)
	}
	right := rightKeys(peaks)
	ss := make([]webui.Series, len(drawn))
	for i, k := range drawn {
		ss[i] = webui.Series{Label: k + " per second", Unit: "/s", Axis: webui.AxisLeft, Color: extraColors[i],
			Values: ys[i], Width: 1.8, AxisLabel: "value per second (the key's unit/s)"}
		if right[i] {
			ss[i].Axis = webui.AxisRight
		}
	}
	return timeSpec(idExtras, "Client-reported extras over time", t, ss)
}
