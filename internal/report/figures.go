package report

import (
	"html/template"
	"strings"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
	"github.com/diperf/diperf/internal/rundir"
)

// figure is one graph with its caption and the name of its .svg file, and
// the JSON of its interactive chart when it has one (see interactive.go).
type figure struct {
	ID      string
	SVG     template.HTML // built by chart.svg, which escapes all text
	Caption string
	File    string
	Spec    template.JS // a webui.ChartSpec's JSON, '<' '>' '&' escaped; empty: SVG only
	Note    string      // a sentence shown under the figure (e.g. that tester health was not recorded)
}

// newFigure renders c with its caption.
func newFigure(c *chart, caption string) figure {
	return figure{ID: c.id, SVG: template.HTML(c.svg()), Caption: caption, File: rundir.GraphFile(c.id)}
}

// figures renders the graphs (a) to (g) with their captions, (h) in an
// open-model run, (i) in a run whose clients reported extras and (j) in a
// run whose tester hosts the sensor mesh measured; h, the testers' health
// (nil: unknown), is drawn directly under (a), or noted there as absent.
func figures(r *analyze.Result, m *model.Model, h *healthView) []figure {
	a := interactive(newFigure(timelineChart(r), timelineCaption(r)), timelineSpec(r))
	if h != nil {
		a.Note = h.note
	}
	fs := append([]figure{a}, healthFigures(r, h)...)
	fs = append(fs, []figure{
		newFigure(testersChart(r), testersCaption(r)),
		newFigure(loadBubblesChart(r), "Figure c. Per tester, in start order: the average aggregate offered "+
			"load (calls in flight, all testers together) while it ran; the area of each bubble is proportional to "+
			"the successful calls the tester completed (thesis Fig. 29). Testers that ran while the load was lower "+
			"had less competition and should complete more calls. Red: testers that failed."),
		newFigure(latencyBubblesChart(r), "Figure d. Per tester: the mean response time of its successful calls "+
			"against its network latency (the shortest round trip of its clock-sync probes to the controller); the "+
			"area of each bubble is proportional to the successful calls it completed (WS-MDS Fig. 10). Bubbles "+
			"that shrink as latency grows mean poorly connected testers got a smaller share of the service."+openRTNote(r)),
		interactive(newFigure(saturationChart(r, m), saturationCaption(r, m)), saturationSpec(r, m)),
		interactive(newFigure(percentileChart(r), "Figure f. Response time of the successful calls of the whole run at "+
			"each percentile. The x axis stretches the tail: each tick is ten times closer to 100% than the one "+
			"before (90%, 99%, 99.9%, …), so the slowest calls are as visible as the median."+openRTNote(r)),
			percentileSpec(r)),
		interactive(newFigure(clockChart(r), clockCaption(r)), clockSpec(r)),
	}...)
	if isOpen(r) {
		fs = append(fs, interactive(newFigure(openRateChart(r), openRateCaption(r)), openRateSpec(r)))
	}
	if hasExtras(r) {
		fs = append(fs, interactive(newFigure(extrasChart(r), extrasCaption(r)), extrasSpec(r)))
	}
	if hasNetwork(r) {
		fs = append(fs, newFigure(networkChart(r), networkCaption(r)))
	}
	fs = append(fs, serverFigures(r)...)
	fs = append(fs, transferFigures(r)...)
	return fs
}

// rtTitle is the title of a response-time axis: in an open-model run it
// says that response time runs from the intended start.
func rtTitle(r *analyze.Result, title string) string {
	if isOpen(r) {
		return strings.Replace(title, "response time", "response time from intended start", 1)
	}
	return title
}

// openRTNote is the sentence a caption showing response times ends with
// in an open-model run, empty in a closed-loop one.
func openRTNote(r *analyze.Result) string {
	if !isOpen(r) {
		return ""
	}
	return " This is an open-model run: every response time is measured from the call's intended start, not " +
		"from when it actually started, so a call that waited for a free client (a stalled service) counts the " +
		"wait (no coordinated omission; see Figure h)."
}

// timelineCaption is the caption of graph (a).
func timelineCaption(r *analyze.Result) string {
	return "Figure a. Each series on its own scale: offered load (calls in flight) in the upper panel; below " +
		"it, response time (ms, mean of the successful calls) on the left axis and throughput (successful " +
		"calls/s) on the right, per " + num(r.Summary.QuantumS) + " s quantum since the first tester started. " +
		"Thin light lines: per-quantum values; thick lines: centered moving averages over " + itoa(maWindow) +
		" quanta; dashed lines: least-squares polynomial approximations (DiPerF's two approximations of each " +
		"series)." + firstByteNote(r) + openRTNote(r)
}

// testersCaption is the caption of graph (b).
func testersCaption(r *analyze.Result) string {
	pk := r.Summary.Peak
	return "Figure b. Per tester, in start order (thesis Fig. 28): service utilization, its share of all " +
		"successful calls the service completed while it was active, over the peak window (bars; " +
		num(pk.StartS) + " – " + num(pk.EndS) + " s, the window in which the most testers ran at once) and " +
		"over its whole run (line); and service fairness on the right axis, its utilization over its fair " +
		"share, so 1 (dashed) is an equal share of the service among the testers active with it. Testers " +
		"that did not run through the whole peak window have no peak-window figures. A red × marks a tester " +
		"that failed."
}

// saturationCaption is the caption of graph (e).
func saturationCaption(r *analyze.Result, m *model.Model) string {
	s := "Figure e. Throughput (left axis) and mean response time (right axis) against offered load, one " +
		"point per " + num(r.Summary.QuantumS) + " s quantum. "
	if m != nil {
		s += "Lines: the models fitted to the throughput (model.json): the Universal Scalability Law " +
			"X(N) = λN / (1 + σ(N−1) + κN(N−1)) and, when the data show a plateau, the asymptotic bounds " +
			"min(N/R0, X*); the one that predicts (lower BIC) is thick, with the response time it implies by " +
			"Little's law, R = N / X(N). Dashed where they extrapolate beyond the highest load fitted. "
	} else {
		s += "No model was fitted: the run has too few quanta with load. "
	}
	if r.Summary.Saturation.Saturated {
		return s + "Dashed red lines mark the saturation point." + openRTNote(r)
	}
	if v := r.Summary.Saturation; v.Verdict != "" {
		return s + "The red × is the highest load reached: " + v.Text() + "." + openRTNote(r)
	}
	return s + "* The service never saturated: the red × is the highest load reached." + openRTNote(r)
}
