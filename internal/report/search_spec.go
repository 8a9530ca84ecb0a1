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
	ss := []webui.Series{{Label: "load offered", Unit: loadUnit(r), Axis: webui.AxisLeft, Color: colLoad, Width: 2,
		AxisLabel: "load (" + loadUnit(r) + ")"},
		{Label: "rest (no load)", Unit: loadUnit(r), Axis: webui.AxisLeft, Color: colRest, Width: 8},
		{Label: "warm-up (left out)", Unit: loadUnit(r), Axis: webui.AxisLeft, Color: colWarmup, Width: 8}}
	part := map[string]int{}
	for _, d := range decisionColors {
		part[d.decision] = len(ss)
		ss = append(ss, webui.Series{Label: "measured: " + d.decision, Unit: loadUnit(r), Axis: webui.AxisLeft,
			Color: d.color, Width: 8})
	}
	thr := webui.Series{Label: "throughput after warm-up", Unit: "calls/s", Axis: webui.AxisLeft, Color: colStepThr,
		Kind: webui.KindPoints}
	if !isOpen(r) { // the load is clients: the throughput has an axis of its own
		thr.Axis, thr.AxisLabel = webui.AxisRight, "throughput (calls/s)"
	}
	ss = append(ss, thr)
	var t []float64
	row := func(x float64, col int, val float64) {
		t = append(t, x)
		for i := range ss {
			ss[i].Values = append(ss[i].Values, nan)
		}
		ss[0].Values[len(t)-1] = val
		ss[col].Values[len(t)-1] = val
	}
	for i, p := range ph {
		st := &v.res.Steps[i]
		mid := p.xm + math.Floor((p.x1-p.xm)/2) // a second of the measured part, counted from its start
		for x := p.x0; x < p.x1; x++ {
			switch {
			case x < p.xw:
				row(x, 1, 0)
			case x < p.xm:
				row(x, 2, st.Load)
			default:
				row(x, part[st.Decision], st.Load)
				if x == mid && st.Measured > 0 {
					ss[len(ss)-1].Values[len(t)-1] = st.Throughput
				}
			}
		}
	}
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
