package pipeline

import (
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// A tester's lag is its largest sync error bound (late) plus its round
// trip to the target (early); figures from the files past 1 s are bounded
// to it, negative ones to 0; a scrape duration that is not a number is
// handed on as -1 (refused by monitor.Validate).
func TestValidateLags(t *testing.T) {
	t.Parallel()
	ts := []*rundir.TesterRecord{
		{Slot: 0, TargetRTTNs: 2e6, Syncs: []clock.Record{{BoundNs: 3e6}, {BoundNs: 5e6}}},
		{Slot: 1, TargetRTTNs: 1e15, Syncs: []clock.Record{{BoundNs: 1e15}}},
		{Slot: 2, TargetRTTNs: -5},
	}
	l := testerLags(ts)
	if l[0] != (lag{early: 7e6, late: 5e6}) || l[1] != (lag{early: 2 * int64(maxLag), late: int64(maxLag)}) || l[2] != (lag{}) {
		t.Errorf("lags %+v", l)
	}
	c := sample.Call{Start: 10e9, End: 10e9 + 9e6, Phases: sample.Phases{FirstByte: 6e6}}
	if e := l[0].end(&c); e != (monitor.End{Ns: c.End, Early: 10e6, Late: 5e6}) {
		t.Errorf("an HTTP call read 3 ms after its first byte: %+v; want 7 + 3 ms early, 5 ms late", e)
	}
	c.Phases.FirstByte = 20e6 // past the call's end: a broken record widens nothing
	if e := l[0].end(&c); e.Early != 7e6 {
		t.Errorf("first byte after the end: early %d, want 7 ms", e.Early)
	}
	pts := []monitor.Point{}
	for i, d := range []float64{0.004, math.NaN(), math.Inf(1), -0.002} {
		at := int64(i) * int64(time.Second)
		pts = append(pts, monitor.Point{TimeNs: at, Endpoint: "e", Metric: monitor.Up, Value: 1},
			monitor.Point{TimeNs: at, Endpoint: "e", Metric: monitor.ScrapeDuration, Value: d})
	}
	r := reads(pts, "e")
	if len(r) != 4 || r[0].HalfNs != 2e6 || r[1].HalfNs != -1 || r[2].HalfNs != -1 || r[3].HalfNs != -1e6 {
		t.Errorf("reads %+v", r)
	}
}
