package pipeline

import (
	"math"
	"time"

	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// maxLag bounds each of a tester's figures that widen the boundaries (its
// clock error bound, its round trip to the target): past it they are
// not a measurement of this run's clients but a broken record.
const maxLag = time.Second

// lag is how far the server's count of a tester's call may lie from the
// call's end stamp: Late after it by the tester's clock error bound (the
// largest of its syncs), Early before it by that bound plus its measured
// round trip to the target (the server counts a call before the response
// reaches the client); end adds each call's own reading of its response.
type lag struct{ early, late int64 }

// end is call c's end with l, Early widened by the time c took from the
// first byte of its response to its end (the built-in HTTP client's
// phases; the server counted it before that byte left), at most maxLag.
// A call with no first byte read (an exec client's: curl, ldapsearch)
// may have been counted at any instant of it: Early is widened by its
// whole time.
func (l lag) end(c *sample.Call) monitor.End {
	e := monitor.End{Ns: c.End, Early: l.early, Late: l.late}
	if fb := c.Phases.FirstByte; fb >= 0 {
		e.Early += clampLag(float64(c.End - c.Start - fb))
	}
	return e
}

// testerLags maps each tester's slot to its lag.
func testerLags(ts []*rundir.TesterRecord) map[int32]lag {
	out := make(map[int32]lag, len(ts))
	for _, t := range ts {
		_, _, boundMs := t.ClockFigures()
		bound := clampLag(boundMs * 1e6)
		rtt := clampLag(float64(t.TargetRTTNs))
		out[int32(t.Slot)] = lag{early: bound + rtt, late: bound}
	}
	return out
}

// clampLag is ns bounded to [0, maxLag] (NaN: 0).
func clampLag(ns float64) int64 {
	if math.IsNaN(ns) || ns < 0 {
		return 0
	}
	return int64(math.Min(ns, float64(maxLag)))
}

// reads are the endpoint's scrape instants with half their duration
// (scrape_duration_seconds; NaN or infinite: -1, refused by
// monitor.Validate).
func reads(pts []monitor.Point, endpoint string) []monitor.Read {
	lv := monitor.Levels(pts, endpoint, monitor.ScrapeDuration, nil)
	out := make([]monitor.Read, 0, len(lv))
	for _, l := range lv {
		half := int64(-1)
		if h := l.Value / 2 * 1e9; !math.IsNaN(h) && !math.IsInf(h, 0) && math.Abs(h) < 1e18 {
			half = int64(h)
		}
		out = append(out, monitor.Read{AtNs: l.TimeNs, HalfNs: half})
	}
	return out
}
