package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// demoLikeResult is a run shaped like the demo's: one tester more every
// second up to 20 calls in flight, held, then one fewer every second,
// against a service of 8 slots that takes 400 ms a call; so throughput
// plateaus at 20 calls/s and response time climbs from 400 to 1000 ms.
func demoLikeResult() *analyze.Result {
	r := &analyze.Result{Summary: analyze.Summary{QuantumS: 1, DurationS: 42}}
	for i := range 42 {
		load := math.Min(20, math.Min(float64(i+1), float64(42-i)))
		thr := math.Min(load, 8) / 0.4
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i), Load: load, Throughput: thr,
			RT: analyze.RTStats{N: int(thr), Mean: 1000 * load / thr}})
	}
	return r
}

var numRE = regexp.MustCompile(`-?[0-9.]+`)

// pathHeight returns the vertical extent in px of the first path in svg
// drawn in color at the given stroke width.
func pathHeight(t *testing.T, svg, color, width string) float64 {
	t.Helper()
	re := regexp.MustCompile(`<path fill="none" stroke="` + color + `" stroke-width="` + width + `"[^>]* d="([^"]+)"`)
	m := re.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no path of colour %s and width %s", color, width)
	}
	nums := numRE.FindAllString(strings.NewReplacer("M", " ", "L", " ", "h", " ").Replace(m[1]), -1)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 1; i < len(nums); i += 2 { // x y x y …
		y, err := strconv.ParseFloat(nums[i], 64)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi = min(lo, y), max(hi, y)
	}
	return hi - lo
}

// TestTimelineLoadReadable guards issue 7: offered load once shared the
// response-time axis, where the demo's 0-20 calls in flight were a flat
// line at the bottom of a 0-1500 ms scale. Load must have its own axis,
// titled with its unit, whose ticks reach just past the highest load, and
// its line must be drawn as tall as the response time's.
func TestTimelineLoadReadable(t *testing.T) {
	t.Parallel()
	c := timelineChart(demoLikeResult())
	_, legendH := c.legendLayout()
	f := c.frame(legendH)
	var load, rt *series
	for i := range c.series {
		switch s := &c.series[i]; {
		case strings.HasPrefix(s.name, "offered load"):
			load = s
		case strings.HasPrefix(s.name, "response time"):
			rt = s
		}
	}
	if load == nil || rt == nil {
		t.Fatal("timeline lacks the load or response-time series")
	}
	ls, rs := f.yScale(load), f.yScale(rt)
	if ls == rs {
		t.Errorf("load is drawn against the response-time scale %+v", rs)
	}
	if top := max(ls.d0, ls.d1); top < 20 || top > 30 {
		t.Errorf("load axis reaches %g, want just past the highest load, 20", top)
	}
	if name := load.name; !strings.Contains(name, "(upper panel)") {
		t.Errorf("load's legend entry %q does not say where it is drawn", name)
	}
	out := c.svg()
	if !strings.Contains(out, ">load (calls in flight)</text>") {
		t.Error("timeline has no axis titled for load with its unit")
	}
	lh, rh := pathHeight(t, out, colLoad, "2.2"), pathHeight(t, out, colRT, "2.2")
	if lh < 0.5*rh || lh < 60 {
		t.Errorf("load line spans %.1f px, response time %.1f px: load is squashed", lh, rh)
	}
}

// TestTimelineShowsLiveTesters has 4 testers live, then 2 after two were
// lost: the timeline draws the live testers in the upper panel, with
// the drop, and says in the legend what counts as live.
func TestTimelineShowsLiveTesters(t *testing.T) {
	t.Parallel()
	r := &analyze.Result{Summary: analyze.Summary{QuantumS: 1, DurationS: 20}}
	for i := range 20 {
		active := 4
		if i >= 10 {
			active = 2
		}
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(i), Load: float64(active), Active: active, Throughput: 1})
	}
	c := timelineChart(r)
	var live *series
	for i := range c.series {
		if strings.HasPrefix(c.series[i].name, "live testers") {
			live = &c.series[i]
		}
	}
	if live == nil || !live.upper || !strings.Contains(live.name, "lost") {
		t.Fatalf("no live testers series in the upper panel saying how lost testers count: %+v", live)
	}
	if lo, hi := slicesMinMax(live.y); lo != 2 || hi != 4 {
		t.Errorf("live testers from %v to %v, want 4 then 2", hi, lo)
	}
}

func slicesMinMax(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}
