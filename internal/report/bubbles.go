package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/diperf/diperf/internal/analyze"
)

// Bubble sizes, px.
const (
	bubbleMinR = 1.5 // radius of a bubble of no calls
	bubbleLoR  = 4   // smallest radius of the largest bubble (many bubbles)
	bubbleHiR  = 24  // largest radius of the largest bubble (few bubbles)
)

// bubble is one tester of a bubble chart, or the means of a run of testers
// when there are too many to draw one each; size is its successful calls.
type bubble struct {
	x, y, size float64
	failed     bool
}

// mergeBubbles is the mean of a run of bubbles; it failed if any did.
func mergeBubbles(bs []bubble) bubble {
	m := bubble{
		x:    meanBy(bs, func(b bubble) float64 { return b.x }),
		y:    meanBy(bs, func(b bubble) float64 { return b.y }),
		size: meanBy(bs, func(b bubble) float64 { return b.size }),
	}
	for _, b := range bs {
		m.failed = m.failed || b.failed
	}
	return m
}

// loadBubblesChart is thesis Fig. 29: per tester, in start order, the
// average aggregate load while it ran; bubble area is the calls it
// completed.
func loadBubblesChart(r *analyze.Result) *chart {
	bs := make([]bubble, len(r.Clients))
	for i, c := range r.Clients {
		bs[i] = bubble{x: float64(c.Index), y: c.Whole.AvgLoad, size: float64(c.Whole.OK), failed: c.Failed}
	}
	c := &chart{
		id: idLoadBubbles, title: "Average aggregate load and calls completed per tester",
		width: chartW, height: chartH,
		x: axis{title: "tester (start order)", integer: true},
		y: axis{title: "average aggregate load while it ran (calls in flight)", zero: true, color: colLoad, pad: 0.08},
	}
	gs, k := c.addBubbles(bs)
	if len(gs) > 0 {
		lo, hi := gs[0].x, gs[len(gs)-1].x
		pad := max(0.5*float64(k), 0.03*(hi-lo))
		c.x.fixed, c.x.lo, c.x.hi = true, lo-pad, hi+pad
	}
	if k > 1 {
		c.x.title = "tester (start order; each bubble is the mean of " + itoa(k) + " testers)"
	}
	return c
}

// latencyBubblesChart is WS-MDS Fig. 10: per tester, the mean response
// time of its calls against its network latency; bubble area is the calls
// it completed.
func latencyBubblesChart(r *analyze.Result) *chart {
	bs := make([]bubble, len(r.Clients))
	for i, c := range r.Clients {
		bs[i] = bubble{x: c.LatencyMs, y: nan, size: float64(c.Whole.OK), failed: c.Failed}
		if c.Whole.OK > 0 {
			bs[i].y = c.Whole.MeanRTms
		}
	}
	c := &chart{
		id: idLatencyBubbles, title: "Response time against network latency per tester",
		width: chartW, height: chartH,
		x: axis{title: "network latency: round trip to the controller (ms)", zero: true, pad: 0.05},
		y: axis{title: rtTitle(r, "mean response time of its successful calls (ms)"), zero: true, color: colRT, pad: 0.08},
	}
	if _, k := c.addBubbles(bs); k > 1 {
		c.x.title += "; each bubble is the mean of " + itoa(k) + " testers of similar latency"
	}
	return c
}

// addBubbles sorts the bubbles by x, folds them into at most maxBubbles,
// and adds them to c as two series, testers and failed testers. It
// returns the folded bubbles and how many testers each stands for.
func (c *chart) addBubbles(bs []bubble) ([]bubble, int) {
	bs = slices.Clone(bs)
	slices.SortStableFunc(bs, func(a, b bubble) int { return cmp.Compare(a.x, b.x) })
	gs, k := fold(bs, maxBubbles, mergeBubbles)
	radius := bubbleRadii(gs, chartW-90)
	ok, bad := series{kind: kindBubbles, color: colThr, opacity: 0.45}, series{kind: kindBubbles, color: colMark, opacity: 0.45}
	largest := 0.0
	for i, g := range gs {
		s := &ok
		if g.failed {
			s = &bad
		}
		s.x, s.y, s.r = append(s.x, g.x), append(s.y, g.y), append(s.r, radius[i])
		if finite(g.size) {
			largest = max(largest, g.size)
		}
	}
	ok.name = "tester: bubble area ∝ its successful calls (largest " + num(largest) + ")"
	if k > 1 {
		ok.name = "testers: bubble area ∝ successful calls per tester (largest " + num(largest) + ")"
	}
	c.series = append(c.series, ok)
	if len(bad.x) > 0 {
		bad.name = "failed tester"
		if k > 1 {
			bad.name = "testers, one of which failed"
		}
		c.series = append(c.series, bad)
	}
	if len(gs) == 0 {
		c.notes = []string{"no testers"}
	}
	return gs, k
}

// bubbleRadii returns the radius of each bubble in px: its area is
// proportional to its size, and the largest one is as wide as the plot
// width w can give each bubble, within bubbleLoR..bubbleHiR.
func bubbleRadii(bs []bubble, w float64) []float64 {
	largest := 0.0
	for _, b := range bs {
		if finite(b.size) {
			largest = max(largest, b.size)
		}
	}
	rMax := min(max(0.6*w/float64(max(len(bs), 1)), bubbleLoR), bubbleHiR)
	out := make([]float64, len(bs))
	for i, b := range bs {
		out[i] = bubbleMinR
		if largest > 0 && finite(b.size) && b.size > 0 {
			out[i] = max(bubbleMinR, rMax*math.Sqrt(b.size/largest))
		}
	}
	return out
}
