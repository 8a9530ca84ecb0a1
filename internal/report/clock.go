package report

import (
	"math"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// Limits of the clock chart.
const (
	maxClockTesters = 50   // testers drawn in the clock chart
	clockBudget     = 5000 // points per quantity (offset, bound) over all drawn testers
	minClockPoints  = 4    // points per tester and quantity, whatever the budget
)

// Colours of the clock chart's quantities.
const (
	colOffset = "#17becf" // change of a tester's clock offset
	colBound  = "#e377c2" // error bound of a sync
)

// idClock is the element id of the clock chart.
const idClock = "graph-g-clock"

// clockChart shows, per tester and over time, how its clock offset changed
// since its first sync (a thin line each, left axis) and the error bound of
// each sync (dots, right axis).
func clockChart(r *analyze.Result) *chart {
	cs, total := clockTesters(r.Clients, maxClockTesters)
	c := &chart{
		id: idClock, title: "Clock synchronization per tester",
		width: chartW, height: chartH,
		x:  axis{title: "time since the first tester started (s)"},
		y:  axis{title: "offset change since first sync (ms)", zero: true, color: colOffset, pad: 0.03},
		y2: axis{title: "error bound (ms)", zero: true, color: colBound, pad: 0.03},
		extra: []legendItem{
			{"offset change since first sync, one line per tester (left axis)", colOffset, kindLine, 1.5, 0},
			{"error bound at a sync (right axis)", colBound, kindPoints, 2, 0},
		},
	}
	if len(cs) == 0 {
		c.notes = []string{"no clock syncs recorded"}
		return c
	}
	if len(cs) < total {
		c.notes = []string{"showing " + itoa(len(cs)) + " of " + itoa(total) +
			" testers with clock syncs, evenly spread by start order"}
	}
	limit := max(minClockPoints, clockBudget/len(cs))
	for _, cl := range cs {
		c.series = append(c.series, clockSeries(cl.Clock.Syncs, limit)...)
	}
	return c
}

// synced counts the testers that have clock syncs.
func synced(clients []analyze.Client) int {
	n := 0
	for _, c := range clients {
		if len(c.Clock.Syncs) > 0 {
			n++
		}
	}
	return n
}

// clockTesters returns the testers that have clock syncs, in start order,
// at most limit of them evenly chosen by index, and how many have syncs.
func clockTesters(clients []analyze.Client, limit int) ([]analyze.Client, int) {
	cs := make([]analyze.Client, 0, synced(clients))
	for _, c := range clients {
		if len(c.Clock.Syncs) > 0 {
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b analyze.Client) int { return a.Index - b.Index })
	return evenly(cs, limit), len(cs)
}

// evenly keeps at most limit elements of s, evenly spread over it and
// including the first and the last.
func evenly[T any](s []T, limit int) []T {
	n := len(s)
	if n <= limit {
		return s
	}
	if limit < 2 {
		return s[:max(0, limit)]
	}
	out := make([]T, limit)
	for i := range limit {
		out[i] = s[i*(n-1)/(limit-1)]
	}
	return out
}

// clockSeries returns one tester's offset-change line and error-bound
// dots, each thinned to at most limit points.
func clockSeries(syncs []analyze.SyncPoint, limit int) []series {
	n := len(syncs)
	t, change, bound := make([]float64, n), make([]float64, n), make([]float64, n)
	ref := firstOffset(syncs)
	for i, s := range syncs {
		t[i], change[i], bound[i] = s.T, s.OffsetMs-ref, s.BoundMs
	}
	lx, ly := minMax(t, change, limit)
	bx, by := minMax(t, bound, limit)
	return []series{
		{kind: kindLine, color: colOffset, width: 1, opacity: 0.7, x: lx, y: ly},
		{kind: kindPoints, color: colBound, width: 2, opacity: 0.6, right: true, x: bx, y: by},
	}
}

// firstOffset returns the first finite offset of syncs, or NaN when none is.
func firstOffset(syncs []analyze.SyncPoint) float64 {
	for _, s := range syncs {
		if finite(s.OffsetMs) {
			return s.OffsetMs
		}
	}
	return math.NaN()
}

// clockFact is the clock row of the summary table.
func clockFact(c analyze.ClockSummary) string {
	v := "max |offset| " + num(c.MaxAbsOffsetMs) + " ms · max error bound " + num(c.MaxErrorBoundMs) + " ms"
	if c.MaxStartSkewMs > 0 {
		v += " · synchronized start: max skew " + num(c.MaxStartSkewMs) + " ms"
	}
	if t := c.TrustText(); t != "" {
		v += " · " + t
	}
	return v
}

// startSkew prints a tester's start skew, "–" when its start was not
// synchronized.
func startSkew(c analyze.TesterClock) string {
	if !c.Synchronized {
		return "–"
	}
	return num(c.StartSkewMs)
}

// clockCaption is the caption of the clock chart.
func clockCaption(r *analyze.Result) string {
	s := "Figure g. Clock synchronization per tester, over time since the first tester started. Left axis: " +
		"the change of each tester's clock offset (global − local time) since its first sync, in ms, one thin " +
		"line per tester, so drift shows even when the offsets themselves are large. Right axis: the error " +
		"bound of each sync, in ms (dots). Each sync keeps the probe with the shortest round trip; the error " +
		"bound is half that round trip."
	if total := synced(r.Clients); total > maxClockTesters {
		s += " Only " + itoa(maxClockTesters) + " of the " + itoa(total) +
			" testers with syncs are drawn, evenly spread by start order."
	}
	return s
}
