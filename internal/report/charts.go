package report

// Chart sizes and limits.
const (
	chartW     = 936  // px, the page's content width
	chartH     = 380  // px
	maWindow   = 5    // quanta in a moving average
	maxBars    = 2000 // bars drawn in the per-tester chart before aggregating
	maxBubbles = 2000 // bubbles drawn in a bubble chart before aggregating
	dotLimit   = 100  // groups up to which a per-tester line gets a dot each
)

// Element ids of the charts, which are also the names of their .svg files
// (without the extension). idClock is in clock.go.
const (
	idTimeline       = "graph-a-timeline"
	idTesters        = "graph-b-utilization"
	idLoadBubbles    = "graph-c-load-bubbles"
	idLatencyBubbles = "graph-d-latency-bubbles"
	idSaturation     = "graph-e-saturation"
	idPercentiles    = "graph-f-percentiles"
)

// GraphIDs returns the element ids of the graphs every report has, (a) to
// (g), in the order the page shows them. Each graph is also written beside
// the report as a file named after its id with the extension ".svg". An
// open-model run's report has one more after them, OpenRateGraphID.
func GraphIDs() []string {
	return []string{idTimeline, idTesters, idLoadBubbles, idLatencyBubbles, idSaturation, idPercentiles, idClock}
}

// orNaN returns a copy of y with every infinite value made NaN, so that
// averages and fits skip it like a missing value.
func orNaN(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = v
		if !finite(v) {
			out[i] = nan
		}
	}
	return out
}
