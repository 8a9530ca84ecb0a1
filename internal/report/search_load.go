package report

import (
	"math"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/search"
)

// Colours of the search's graphs: a step's measured part by its decision,
// its warm-up and rest, the load offered and the throughput after warm-up.
const (
	colMeets      = "#2ca02c"
	colFails      = "#d62728"
	colTesterLim  = "#9467bd"
	colUnmeasured = "#7f7f7f"
	colWarmup     = "#ffbb78"
	colRest       = "#c7c7c7"
	colStepThr    = "#17becf"
	colWeak       = "#ff7f0e"
	colObjective  = "#444444"
)

// decisionColors is the colour of each decision, in the legend's order.
var decisionColors = []struct{ decision, color string }{
	{search.Meets, colMeets}, {search.Fails, colFails}, {search.TesterLimited, colTesterLim},
	{search.Unmeasured, colUnmeasured},
}

// phase is one step's parts on the x axis: rest from x0, warm-up from
// xw, measured from xm, to x1.
type phase struct{ x0, xw, xm, x1 float64 }

// phases places each step on the x axis: on the run's time axis (s
// since r's origin) when every step has its seconds, else one after the
// other from 0.
func (v *searchView) phases(r *analyze.Result) []phase {
	out := make([]phase, len(v.res.Steps))
	origin, at := float64(r.Origin)/1e9, 0.0
	for i := range v.res.Steps {
		st := &v.res.Steps[i]
		x0, x1 := at, at+float64(st.Seconds)
		if v.timed {
			x0, x1 = float64(st.From)-origin, float64(st.To+1)-origin
		}
		xw := math.Min(x0+float64(st.RestS), x1)
		out[i] = phase{x0, xw, math.Min(xw+float64(st.WarmupS), x1), x1}
		at = x1
	}
	return out
}

// xTitle is the title of the load graph's x axis.
func (v *searchView) xTitle() string {
	if v.timed {
		return timeXLabel
	}
	return "seconds of the search (s)"
}

// loadUnit is the unit of the search's load: calls/s in an open-model
// run, clients in a closed one.
func loadUnit(r *analyze.Result) string {
	if isOpen(r) {
		return "calls/s"
	}
	return "clients"
}

// searchLoadChart is graph (s1): the load of each step against time, each
// step's rest, warm-up and measured part shaded (the measured part by the
// decision taken), and the throughput measured after the warm-up.
func searchLoadChart(r *analyze.Result, v *searchView) *chart {
	ph := v.phases(r)
	c := &chart{id: SearchLoadGraphID, title: "Capacity search: the load of each step", width: chartW, height: chartH,
		x: axis{title: v.xTitle()}, y: axis{title: "load (" + loadUnit(r) + ")", zero: true, color: colLoad}}
	c.series = append(phaseSpans(v, ph, shadeTop(r, v)), searchLoadLines(v, ph, r)...)
	if !isOpen(r) {
		c.y2 = axis{title: "throughput (calls/s)", zero: true, color: colStepThr}
	}
	if len(ph) == 0 {
		c.notes = []string{"no step to draw"}
	}
	return c
}

// shadeTop is how high graph (s1) shades the steps' parts: above every
// load (and throughput, on the same axis in an open-model run).
func shadeTop(r *analyze.Result, v *searchView) float64 {
	top := 1.0
	for _, st := range v.res.Steps {
		top = max(top, st.Load*1.08)
		if isOpen(r) {
			top = max(top, st.Throughput*1.08)
		}
	}
	return top
}

// phaseSpans shades the steps' parts up to top: the rests, the warm-ups,
// and the measured parts by decision; a part no step has is left out.
func phaseSpans(v *searchView, ph []phase, top float64) []series {
	var out []series
	span := func(name, color string, op float64, part func(p phase) (float64, float64), keep func(i int) bool) {
		s := series{name: name, kind: kindSpans, color: color, opacity: op}
		for i, p := range ph {
			if from, to := part(p); keep(i) && to > from {
				s.x, s.x2, s.y = append(s.x, from), append(s.x2, to), append(s.y, top)
			}
		}
		out = append(out, s)
	}
	all := func(int) bool { return true }
	span("rest (no load)", colRest, 0.5, func(p phase) (float64, float64) { return p.x0, p.xw }, all)
	span("warm-up (left out)", colWarmup, 0.4, func(p phase) (float64, float64) { return p.xw, p.xm }, all)
	for _, d := range decisionColors {
		span("measured: "+d.decision, d.color, 0.2, func(p phase) (float64, float64) { return p.xm, p.x1 },
			func(i int) bool { return v.res.Steps[i].Decision == d.decision })
	}
	return nonEmpty(out...)
}

// searchLoadLines are the load offered through each step (0 while it
// rests; a step function, broken where steps are apart) and the throughput after its warm-up, a dot in the middle of
// its measured part.
func searchLoadLines(v *searchView, ph []phase, r *analyze.Result) []series {
	load := series{name: "load offered (" + loadUnit(r) + ")", kind: kindLine, color: colLoad, width: 2}
	thr := series{name: "throughput after warm-up (calls/s)", kind: kindPoints, color: colStepThr, width: 4,
		right: !isOpen(r)} // against clients, the throughput has an axis of its own
	for i, p := range ph {
		l := v.res.Steps[i].Load
		if i > 0 && p.x0 > ph[i-1].x1 { // a gap between two steps
			load.x, load.y = append(load.x, nan), append(load.y, nan)
		}
		if p.xw > p.x0 {
			load.x, load.y = append(load.x, p.x0, p.xw), append(load.y, 0, 0)
		}
		load.x, load.y = append(load.x, p.xw, p.x1), append(load.y, l, l)
		if p.x1 > p.xm && v.res.Steps[i].Measured > 0 {
			thr.x, thr.y = append(thr.x, (p.xm+p.x1)/2), append(thr.y, v.res.Steps[i].Throughput)
		}
	}
	return []series{load, thr}
}
