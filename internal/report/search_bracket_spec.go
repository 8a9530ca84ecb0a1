package report

import (
	"slices"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/webui"
)

// searchBracketSpec is graph (s3) interactive: per step, lo and hi after
// it, and its load in the series of its decision.
func searchBracketSpec(r *analyze.Result, v *searchView) *webui.ChartSpec {
	steps := v.res.Steps
	if len(steps) == 0 {
		return nil
	}
	u := loadUnit(r)
	lo, hi := bracketAfter(steps)
	x := make([]float64, len(steps))
	ss := []webui.Series{
		{Label: "lo: highest load met", Unit: u, Axis: webui.AxisLeft, Color: colMeets, Values: lo, Width: 2,
			AxisLabel: "load (" + u + ")"},
		{Label: "hi: lowest load failed", Unit: u, Axis: webui.AxisLeft, Color: colFails, Values: hi, Width: 2},
	}
	for _, d := range decisionColors {
		s := webui.Series{Label: "step " + d.decision, Unit: u, Axis: webui.AxisLeft, Color: d.color,
			Kind: webui.KindPoints, Values: make([]float64, len(steps))}
		for i, st := range steps {
			x[i], s.Values[i] = float64(st.Step), nan
			if st.Decision == d.decision {
				s.Values[i] = st.Load
			}
		}
		if slices.ContainsFunc(s.Values, finite) {
			ss = append(ss, s)
		}
	}
	return &webui.ChartSpec{ID: SearchBracketGraphID, Title: "Capacity search: the bracket narrowing step by step",
		XLabel: "step", X: x, Kind: webui.KindLine, Series: ss, Height: specH}
}
