package report

import (
	"strconv"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/webui"
)

// transferFigures are graphs (l) and (l2), for a run whose calls reported
// bytes; none for another.
func transferFigures(r *analyze.Result) []figure {
	if r.Summary.Transfer == nil {
		return nil
	}
	return []figure{
		interactive(newFigure(transferChart(r), transferCaption(r)), transferSpec(r)),
		interactive(newFigure(transferRateChart(r), transferRateCaption(r)), transferRateSpec(r)),
	}
}

// transferRate returns, per quantum, its start, the aggregate MB/s the
// calls completed in it reported and the offered load.
func transferRate(r *analyze.Result) (t, mbs, load []float64) {
	t, ys := quantaColumns(r,
		func(q *analyze.Quantum) float64 { return q.BytesPerS / 1e6 },
		func(q *analyze.Quantum) float64 { return q.Load })
	return t, ys[0], ys[1]
}

// transferRateChart is graph (l2), the throughput of DiPerF's GridFTP
// figures (Fig. 40-45): the aggregate MB/s per quantum (left) and the
// offered load (right) over time, so that a plateau of MB/s as the load
// grows shows the capacity.
func transferRateChart(r *analyze.Result) *chart {
	t, mbs, load := transferRate(r)
	c := &chart{
		id: idTransferRate, title: "Aggregate MB/s and offered load over time",
		width: chartW, height: chartH,
		x:  axis{title: timeXLabel},
		y:  axis{title: "aggregate MB/s (10^6 bytes/s)", zero: true, pad: 0.05, color: colMB},
		y2: axis{title: "offered load (calls in flight)", zero: true, pad: 0.05, color: colLoad},
		series: []series{
			thinLine("aggregate MB/s", colMB, 1, false, t, mbs),
			thinLine("aggregate MB/s, moving average of "+itoa(maWindow)+" quanta", colMB, 2.2, false, t,
				movingAverage(mbs, maWindow)),
			thinLine("offered load (right axis)", colLoad, 1.4, true, t, load),
		},
	}
	if len(t) == 0 {
		c.notes = []string{"no data"}
	}
	return c
}

// transferRateSpec is graph (l2) interactive.
func transferRateSpec(r *analyze.Result) *webui.ChartSpec {
	t, mbs, load := transferRate(r)
	return timeSpec(idTransferRate, "Aggregate MB/s and offered load over time", t, []webui.Series{
		{Label: "aggregate MB/s", Unit: "MB/s", Axis: webui.AxisLeft, Color: colMB, Values: mbs, Width: 1,
			AxisLabel: "aggregate MB/s (10^6 bytes/s)"},
		{Label: "moving average of " + itoa(maWindow) + " quanta", Unit: "MB/s", Axis: webui.AxisLeft, Color: colMB,
			Values: movingAverage(mbs, maWindow), Width: 2.2},
		{Label: "offered load", Unit: "calls in flight", Axis: webui.AxisRight, Color: colLoad, Values: load, Width: 1.4},
	})
}

// transferCaption is the caption of graph (l).
func transferCaption(r *analyze.Result) string {
	tr, pk := r.Summary.Transfer, r.Summary.Peak
	return "Figure l. Per client, in start order (DiPerF's GridFTP study, Fig. 47): the MB/s (10^6 bytes per " +
		"second) its calls reported (their bytes) over the peak window (bars; " + num(pk.StartS) + " – " +
		num(pk.EndS) + " s, where the most clients ran at once) and over its whole run (line), and on the right " +
		"axis its peak-window MB/s over the mean of the clients', so 1 (dashed) is an equal share. Clients that " +
		"did not run through the whole peak window have no peak figures. Jain's fairness index over the " +
		itoa(tr.Clients) + " clients' peak MB/s: " + strconv.FormatFloat(tr.Jain, 'f', 3, 64) + " (1: all equal; 1/n: one got everything); " +
		"per client min " + num(tr.ClientMBPerS.Min) + ", median " + num(tr.ClientMBPerS.Median) + ", max " +
		num(tr.ClientMBPerS.Max) + " MB/s."
}

// transferRateCaption is the caption of graph (l2).
func transferRateCaption(r *analyze.Result) string {
	tr := r.Summary.Transfer
	return "Figure l2. The aggregate MB/s of all clients per " + num(r.Summary.QuantumS) + " s quantum (the " +
		"bytes of the calls completed in it; thin line, and thick its centered moving average over " + itoa(maWindow) +
		" quanta; left axis) and the offered load (right axis) over time, as in " +
		"DiPerF's GridFTP figures: where the MB/s stops growing with the load, the service (or its network) " +
		"is at capacity. Over the quanta with a tester active: min " + num(tr.MBPerS.Min) + ", median " +
		num(tr.MBPerS.Median) + ", mean " + num(tr.MBPerS.Mean) + ", max " + num(tr.MBPerS.Max) + " MB/s; " +
		num(float64(tr.Bytes)/1e6) + " MB in all."
}
