package report

import (
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/search"
)

// bracketAfter is the bracket [lo, hi] after each step, as the search
// moves it: lo the highest load that met every SLO, hi the lowest that
// failed (a load met above a failed one does not raise lo); NaN while
// unknown.
func bracketAfter(steps []search.StepRecord) (lo, hi []float64) {
	l, h := nan, nan
	for _, st := range steps {
		switch {
		case st.Decision == search.Meets && !(st.Load >= h) && !(st.Load <= l):
			l = st.Load
		case st.Decision == search.Fails && !(st.Load >= h):
			h = st.Load
		}
		lo, hi = append(lo, l), append(hi, h)
	}
	return lo, hi
}

// searchBracketChart is graph (s3): the load of each step, by its
// decision, and the bracket [lo, hi] after it, narrowing to the capacity.
func searchBracketChart(r *analyze.Result, v *searchView) *chart {
	steps := v.res.Steps
	c := &chart{id: SearchBracketGraphID, title: "Capacity search: the bracket narrowing step by step",
		width: chartW, height: chartH, x: stepAxis(lastStep(steps)),
		y: axis{title: "load (" + loadUnit(r) + ")", zero: true, color: colLoad}}
	lo, hi := bracketAfter(steps)
	x := make([]float64, len(steps))
	for i, st := range steps {
		x[i] = float64(st.Step)
	}
	byDecision := map[string]*series{
		search.Meets:         {name: "step met every SLO", kind: kindPoints, color: colMeets, width: 5},
		search.Fails:         {name: "step failed", kind: kindCross, color: colFails, width: 2},
		search.TesterLimited: {name: "tester-limited", kind: kindPoints, color: colTesterLim, width: 5},
		search.Unmeasured:    {name: "unmeasured", kind: kindPoints, color: colUnmeasured, width: 5},
	}
	for i, st := range steps {
		if s := byDecision[st.Decision]; s != nil { // searchViewOf kept only known decisions
			s.x, s.y = append(s.x, x[i]), append(s.y, st.Load)
		}
	}
	c.series = nonEmpty(
		series{name: "lo: highest load met", kind: kindLine, color: colMeets, width: 2, x: x, y: lo},
		series{name: "hi: lowest load failed", kind: kindLine, color: colFails, width: 2, x: x, y: hi},
		*byDecision[search.Meets], *byDecision[search.Fails], *byDecision[search.TesterLimited],
		*byDecision[search.Unmeasured])
	if len(steps) == 0 {
		c.notes = []string{"no step to draw"}
	}
	return c
}
