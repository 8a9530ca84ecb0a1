package report

import "github.com/diperf/diperf/internal/analyze"

// OpenRateGraphID is the element id of the open model's rate chart, graph
// (h), which only an open-model run's report has (after the graphs of
// GraphIDs); it is also written beside the report as an .svg file.
const OpenRateGraphID = idOpenRate

// idOpenRate is the element id of graph (h).
const idOpenRate = "graph-h-open-rate"

// Colours of the open model's chart: offered rate as offered load, achieved
// rate as throughput, so that they read as the timeline's.
const (
	colOffered  = colLoad
	colAchieved = colThr
	colLate     = "#bcbd22" // calls that started late
	colDropped  = colMark   // calls that never started
)

// openPanelH is the px height of the open chart's upper panel, the late
// and dropped calls.
const openPanelH = 120

// isOpen reports whether r is of an open-model run (schedule.rate).
func isOpen(r *analyze.Result) bool {
	if r.Summary.Open != nil {
		return true
	}
	for _, q := range r.Quanta {
		if q.Open != nil {
			return true
		}
	}
	return false
}

// openQuantum is what the open chart draws of one quantum, or of a run of
// consecutive quanta (late and dropped summed) when there are too many to
// draw one bar each.
type openQuantum struct {
	t                 float64
	offered, achieved float64 // calls/s; NaN when the quantum has no open-model figures
	late, dropped     float64 // calls
}

// openQuanta returns the open-model figures of r's quanta, each at the
// middle of its quantum, so that its bar covers the quantum's span.
func openQuanta(r *analyze.Result) []openQuantum {
	half := quantumS(r) / 2
	out := make([]openQuantum, len(r.Quanta))
	for i, q := range r.Quanta {
		o := openQuantum{t: q.T + half, offered: nan, achieved: nan}
		if q.Open != nil {
			o.offered, o.achieved = q.Open.OfferedPS, q.Open.AchievedPS
			o.late, o.dropped = float64(q.Open.Late), float64(q.Open.Dropped)
		}
		out[i] = o
	}
	return out
}

// sumOpen merges a run of quanta for the bars: their late and dropped
// calls summed, at the mean of their times.
func sumOpen(qs []openQuantum) openQuantum {
	m := openQuantum{t: meanBy(qs, func(q openQuantum) float64 { return q.t }), offered: nan, achieved: nan}
	for _, q := range qs {
		m.late += q.late
		m.dropped += q.dropped
	}
	return m
}

// openRateChart is the open model's graph over time: per quantum, the
// offered rate (calls due to start per second) and the achieved rate
// (calls started per second) in the main panel, and above it the calls
// that started late and those dropped, stacked bars.
func openRateChart(r *analyze.Result) *chart {
	qs := openQuanta(r)
	n := len(qs)
	t, offered, achieved := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, q := range qs {
		t[i], offered[i], achieved[i] = q.t, q.offered, q.achieved
	}
	c := &chart{
		id: idOpenRate, title: "Open model: offered and achieved rate, late and dropped calls over time",
		width: chartW, height: chartH + openPanelH + panelGap, upperH: openPanelH,
		x:     axis{title: "time since the first tester started (s)"},
		upper: axis{title: "late / dropped calls", zero: true, integer: true, pad: 0.05},
		y:     axis{title: "rate (calls/s)", zero: true, pad: 0.05},
	}
	ox, oy := minMax(t, offered, maxPoints)
	ax, ay := minMax(t, achieved, maxPoints)
	// The dashed offered rate is drawn over the achieved one, so that both
	// show where they are equal.
	c.series = []series{
		{name: "achieved rate: calls started per second", kind: kindLine, color: colAchieved, width: 2, x: ax, y: ay},
		{name: "offered rate: calls due to start per second", kind: kindDashed, color: colOffered, width: 2, x: ox, y: oy},
	}
	c.series = append(c.series, lateDroppedBars(qs, quantumS(r), &c.upper)...)
	if n == 0 {
		c.notes = []string{"no data"}
	}
	return c
}

// lateDroppedBars returns the stacked bars of the late calls (from 0) and
// the dropped calls (on top of the late ones) in the upper panel, one bar
// per quantum of width qsec, or per run of quanta when there are more than
// maxBars; then the axis title up says how many quanta a bar counts.
func lateDroppedBars(qs []openQuantum, qsec float64, up *axis) []series {
	gs, k := fold(qs, maxBars, sumOpen)
	if k == 1 {
		up.title = "late / dropped calls per quantum"
	} else {
		up.title = "late / dropped calls per " + itoa(k) + " quanta"
	}
	n := len(gs)
	x, late, top := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, g := range gs {
		x[i], late[i], top[i] = g.t, g.late, g.late+g.dropped
	}
	w := qsec * float64(k)
	return []series{
		{name: "late: started over " + num(float64(analyze.LateAfter)/1e6) + " ms after the intended start (upper panel)",
			kind: kindBars, color: colLate, opacity: 0.85, width: w, upper: true, x: x, y: late},
		{name: "dropped: never started (upper panel)", kind: kindBars, color: colDropped, opacity: 0.85, width: w,
			upper: true, x: x, y: top, base: late},
	}
}

// quantumS is the quantum of r in s, 1 when r has none.
func quantumS(r *analyze.Result) float64 {
	if q := r.Summary.QuantumS; q > 0 && finite(q) {
		return q
	}
	return 1
}

// openRateCaption is the caption of graph (h).
func openRateCaption(r *analyze.Result) string {
	s := "Figure h. The open model (schedule.rate), per " + num(r.Summary.QuantumS) + " s quantum since the first " +
		"tester started, each drawn at the middle of its quantum. Main panel: the offered rate, the calls due to start in the quantum by their intended " +
		"start, per second (dashed), and the achieved rate, the calls that started in the quantum, per second " +
		"(solid); the achieved rate falls below the offered one while the testers cannot keep up (every client " +
		"busy, e.g. a stalled service) and rises above it while they catch up. Upper panel: the calls due in the " +
		"quantum that started more than " + num(float64(analyze.LateAfter)/1e6) + " ms after their intended " +
		"start (late) and those never made because no client was free in time (dropped), stacked. Late calls are in " +
		"the other figures, their response time measured from the intended start; dropped calls have none."
	if o := r.Summary.Open; o != nil {
		s += " Whole run: " + itoa(o.Intended) + " calls due, " + itoa(o.Started) + " started, " + itoa(o.Late) +
			" late, " + itoa(o.Dropped) + " dropped."
	}
	return s
}
