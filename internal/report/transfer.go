package report

import (
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/webui"
)

// Element ids of the transfer graphs (l) and (l2), which only the report
// of a run whose calls reported bytes has (analyze.Summary.Transfer).
const (
	idTransfer     = "graph-l-transfer"
	idTransferRate = "graph-l2-transfer-rate"
)

// colMB is the colour of MB/s, the transfer's throughput.
const colMB = colThr

// transferPoint is what graph (l) draws of one client, or the mean of a
// run of consecutive clients: MB/s over the peak window (NaN: it did not
// run through it) and its whole run, and its peak MB/s over the mean.
type transferPoint struct {
	x, peak, whole, fair float64
}

// transferPoints returns each client's transfer figures in start order
// (the rows of clients.csv), fairness against the mean of the peak MB/s.
func transferPoints(r *analyze.Result) []transferPoint {
	rows := r.ClientRows()
	out := make([]transferPoint, len(rows))
	for i, c := range rows {
		out[i] = transferPoint{x: float64(i), peak: nan, whole: c.Whole.MBPerS, fair: nan}
		if c.Peak != (analyze.Share{}) {
			out[i].peak = c.Peak.MBPerS
		}
	}
	mean := meanBy(out, func(p transferPoint) float64 { return p.peak })
	for i := range out {
		if finite(out[i].peak) && mean > 0 {
			out[i].fair = out[i].peak / mean
		}
	}
	return out
}

// mergeTransfer is the mean of a run of clients.
func mergeTransfer(ps []transferPoint) transferPoint {
	return transferPoint{
		x:     meanBy(ps, func(p transferPoint) float64 { return p.x }),
		peak:  meanBy(ps, func(p transferPoint) float64 { return p.peak }),
		whole: meanBy(ps, func(p transferPoint) float64 { return p.whole }),
		fair:  meanBy(ps, func(p transferPoint) float64 { return p.fair }),
	}
}

// transferColumns returns the x, peak, whole and fairness columns of gs.
func transferColumns(gs []transferPoint) (x, peak, whole, fair []float64) {
	n := len(gs)
	x, peak, whole, fair = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, g := range gs {
		x[i], peak[i], whole[i], fair[i] = g.x, g.peak, g.whole, g.fair
	}
	return x, peak, whole, fair
}

// transferChart is graph (l), DiPerF's data per client (GridFTP study,
// Fig. 47): per client in start order, its MB/s over the peak window
// (bars) and its whole run (line), and its peak MB/s over the clients'
// mean on the right axis, 1 being an equal share.
func transferChart(r *analyze.Result) *chart {
	gs, k := fold(transferPoints(r), maxBars, mergeTransfer)
	x, peak, whole, fair := transferColumns(gs)
	c := &chart{
		id: idTransfer, title: "MB/s per client and fairness",
		width: chartW, height: chartH,
		x:     axis{title: "client (start order)", integer: true},
		y:     axis{title: "MB/s (10^6 bytes/s)", zero: true, pad: 0.05, color: colMB},
		y2:    axis{title: "peak MB/s over the clients' mean (1 = equal)", zero: true, color: colFair},
		rules: []rule{{v: 1, right: true, color: colGuide}},
		extra: []legendItem{{"equal share: 1 (right axis)", colGuide, kindDashed, 1.5, 0}},
		series: []series{
			{name: "MB/s, peak window", kind: kindBars, color: colMB, opacity: 0.3, width: float64(k), x: x, y: peak},
			thinLine("MB/s, whole run", colMB, 2, false, x, whole),
			thinLine("peak MB/s over the mean (right axis)", colFair, 2, true, x, fair),
		},
	}
	if k > 1 {
		c.x.title = "client (start order; each bar is the mean of " + itoa(k) + " clients)"
	}
	if len(gs) == 0 {
		c.notes = []string{"no clients"}
	} else {
		c.x.fixed, c.x.lo, c.x.hi = true, gs[0].x-float64(k)/2, gs[len(gs)-1].x+float64(k)/2
	}
	return c
}

// transferSpec is graph (l) interactive, the same columns per client.
func transferSpec(r *analyze.Result) *webui.ChartSpec {
	gs, _ := fold(transferPoints(r), maxSpecPoints, mergeTransfer)
	x, peak, whole, fair := transferColumns(gs)
	return xySpec(idTransfer, "MB/s per client and fairness", "client (start order)", "",
		[]column{{x, peak}, {x, whole}, {x, fair}}, []webui.Series{
			{Label: "MB/s, peak window", Unit: "MB/s", Axis: webui.AxisLeft, Color: colMB, Kind: webui.KindPoints,
				Width: 3, AxisLabel: "MB/s (10^6 bytes/s)"},
			{Label: "MB/s, whole run", Unit: "MB/s", Axis: webui.AxisLeft, Color: colMB, Width: 1.5},
			{Label: "peak MB/s over the mean", Unit: "× mean", Axis: webui.AxisRight, Color: colFair, Width: 1.5},
		})
}
