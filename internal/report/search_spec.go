package report

import (
	"math"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/webui"
)

// maxSearchSpecSeconds bounds the seconds graph (s1)'s interactive chart
// is built from; a longer search is drawn as SVG only.
const maxSearchSpecSeconds = 100_000

// Columns of graph (s1)'s interactive chart, before the measured parts
// (one a decision, in decisionColors' order) and the throughput.
const (
	specLoad = iota
	specRest
	specWarmup
	specMeasured
)

// searchLoadSpec is graph (s1) interactive: per second of the steps, the
// load offered (0 while resting), drawn thick where the second was warm-up
// (orange) or measured (by the step's decision), and the throughput after
// each step's warm-up in the middle of its measured part; nil when the
// steps hold more than maxSearchSpecSeconds seconds.
func searchLoadSpec(r *analyze.Result, v *searchView) *webui.ChartSpec {
	ph := v.phases(r)
	n := 0.0
	for _, p := range ph {
		n += p.x1 - p.x0
	}
	if n > maxSearchSpecSeconds || len(ph) == 0 {
		return nil
	}
	ss := searchSpecSeries(r)
	t := fillSearchSpec(v, ph, ss)
	kept := ss[:1]
	for _, s := range ss[1:] {
		if slices.ContainsFunc(s.Values, finite) {
			kept = append(kept, s)
		}
	}
	spec := timeSpec(SearchLoadGraphID, "Capacity search: the load of each step", t, kept)
	spec.XLabel = v.xTitle()
	return spec
}

// searchSpecSeries are graph (s1)'s interactive series, without values.
func searchSpecSeries(r *analyze.Result) []webui.Series {
	u := loadUnit(r)
	ss := []webui.Series{specLoad: {Label: "load offered", Unit: u, Axis: webui.AxisLeft, Color: colLoad, Width: 2,
		AxisLabel: "load (" + u + ")"},
		specRest:   {Label: "rest (no load)", Unit: u, Axis: webui.AxisLeft, Color: colRest, Width: 8},
		specWarmup: {Label: "warm-up (left out)", Unit: u, Axis: webui.AxisLeft, Color: colWarmup, Width: 8}}
	for _, d := range decisionColors {
		ss = append(ss, webui.Series{Label: "measured: " + d.decision, Unit: u, Axis: webui.AxisLeft, Color: d.color, Width: 8})
	}
	thr := webui.Series{Label: "throughput after warm-up", Unit: "calls/s", Axis: webui.AxisLeft, Color: colStepThr,
		Kind: webui.KindPoints}
	if !isOpen(r) { // the load is clients: the throughput has an axis of its own
		thr.Axis, thr.AxisLabel = webui.AxisRight, "throughput (calls/s)"
	}
	return append(ss, thr)
}

// fillSearchSpec puts a row a second of the steps into ss and returns the
// rows' times.
func fillSearchSpec(v *searchView, ph []phase, ss []webui.Series) []float64 {
	var t []float64
	row := func(x float64, col int, val float64) {
		t = append(t, x)
		for i := range ss {
			ss[i].Values = append(ss[i].Values, nan)
		}
		ss[specLoad].Values[len(t)-1], ss[col].Values[len(t)-1] = val, val
	}
	for i, p := range ph {
		st := &v.res.Steps[i]
		col := specMeasured + slices.IndexFunc(decisionColors, func(d struct{ decision, color string }) bool {
			return d.decision == st.Decision
		})
		mid := p.xm + math.Floor((p.x1-p.xm)/2) // a second of the measured part, counted from its start
		for x := p.x0; x < p.x1; x++ {
			switch {
			case x < p.xw:
				row(x, specRest, 0)
			case x < p.xm:
				row(x, specWarmup, st.Load)
			default:
				row(x, col, st.Load)
				if x == mid && st.Measured > 0 {
					ss[len(ss)-1].Values[len(t)-1] = st.Throughput
				}
			}
		}
	}
	return t
}
