package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/model"
)

func TestPolyCurve(t *testing.T) {
	t.Parallel()
	f := func(u float64) float64 { return 3 + 2*u - 0.1*u*u }
	for _, t0 := range []float64{0, 1e6} { // wherever the time axis starts
		x, y := make([]float64, 41), make([]float64, 41)
		for i := range x {
			x[i], y[i] = t0+float64(i)/2, f(float64(i)/2)
		}
		y[7] = math.NaN() // a quantum with no calls
		xs, ys, ok := polyCurve(x, y, 2)
		if !ok || len(xs) != polySamples {
			t.Fatalf("t0 %g: polyCurve failed or drew %d points", t0, len(xs))
		}
		for i := range xs {
			if want := f(xs[i] - t0); math.Abs(ys[i]-want) > 1e-6 {
				t.Fatalf("t0 %g: curve at %g = %g, want %g", t0, xs[i], ys[i], want)
			}
		}
	}
	if _, _, ok := polyCurve([]float64{1, 2}, []float64{1, 2}, 3); ok {
		t.Error("polyCurve fitted a cubic to two points")
	}
	if _, _, ok := polyCurve([]float64{1, 1, 1}, []float64{1, 2, 3}, 1); ok {
		t.Error("polyCurve fitted a line to a single x")
	}
}

func TestPolyCurveHeldInRange(t *testing.T) {
	t.Parallel()
	x, y := make([]float64, 30), make([]float64, 30)
	for i := range x {
		x[i] = float64(i)
		if i >= 10 && i < 20 {
			y[i] = 10 // a step: a polynomial swings past it
		}
	}
	_, ys, ok := polyCurve(x, y, 6)
	if !ok || slices.Min(ys) < 0 || slices.Max(ys) > 10 {
		t.Errorf("polynomial leaves the data range 0..10: %v..%v (ok %v)", slices.Min(ys), slices.Max(ys), ok)
	}
}

func TestTimelineApproximations(t *testing.T) {
	t.Parallel()
	out := timelineChart(smallResult()).svg()
	for _, want := range []string{"moving average of 5 quanta", "polynomial approximation, degree 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if n := strings.Count(out, `stroke-dasharray="6 4"`); n != 3 {
		t.Errorf("timeline draws %d dashed polynomials, want 3", n)
	}
	r := smallResult()
	r.Quanta = r.Quanta[:3]
	if strings.Contains(timelineChart(r).svg(), "polynomial") {
		t.Error("a 3-quantum timeline claims a polynomial approximation")
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	sum := func(s []int) int {
		n := 0
		for _, v := range s {
			n += v
		}
		return n
	}
	items := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	got, k := fold(items, 3, sum)
	if k != 4 || !slices.Equal(got, []int{10, 26, 19}) {
		t.Errorf("fold(1..10, 3) = %v, k %d; want [10 26 19], k 4", got, k)
	}
	if got, k := fold(items, 10, sum); k != 1 || len(got) != 10 {
		t.Errorf("fold at the limit changed the items: %v, k %d", got, k)
	}
	if got, k := fold([]int(nil), 0, sum); k != 1 || len(got) != 0 {
		t.Errorf("fold(nil, 0) = %v, k %d", got, k)
	}
}

func TestMeanBy(t *testing.T) {
	t.Parallel()
	id := func(v float64) float64 { return v }
	if got := meanBy([]float64{1, math.NaN(), 3, math.Inf(1)}, id); got != 2 {
		t.Errorf("meanBy skipping NaN and Inf = %v, want 2", got)
	}
	if got := meanBy([]float64{math.NaN()}, id); !math.IsNaN(got) {
		t.Errorf("meanBy of nothing = %v, want NaN", got)
	}
}

func TestBubbleRadii(t *testing.T) {
	t.Parallel()
	rs := bubbleRadii([]bubble{{size: 400}, {size: 100}, {size: 0}, {size: math.NaN()}}, 846)
	if rs[0] != bubbleHiR || math.Abs(rs[0]/rs[1]-2) > 1e-9 {
		t.Errorf("radii %v: want the largest %v and area proportional to size", rs, float64(bubbleHiR))
	}
	if rs[2] != bubbleMinR || rs[3] != bubbleMinR {
		t.Errorf("radii of no calls = %v, %v; want %v", rs[2], rs[3], bubbleMinR)
	}
	many := make([]bubble, maxBubbles)
	for i := range many {
		many[i].size = 1
	}
	if r := bubbleRadii(many, 846)[0]; r != bubbleLoR {
		t.Errorf("radius with %d bubbles = %v, want %v", maxBubbles, r, float64(bubbleLoR))
	}
}

func TestBubbleCharts(t *testing.T) {
	t.Parallel()
	r := smallResult()
	r.Clients[3].Whole.OK = 0 // no successful call: no response time to place
	load, lat := loadBubblesChart(r), latencyBubblesChart(r)
	if got := load.series[0].y; !slices.Equal(got, []float64{5, 5.5, 6.5}) {
		t.Errorf("load bubbles y = %v, want the testers' average loads", got)
	}
	if got := load.series[1]; got.name != "failed tester" || !slices.Equal(got.x, []float64{2}) {
		t.Errorf("failed bubbles = %q at %v, want tester 2", got.name, got.x)
	}
	if got := lat.series[0]; !slices.Equal(got.x, []float64{0.5, 1.5, 3.5}) || !math.IsNaN(got.y[2]) {
		t.Errorf("latency bubbles at %v, %v; want latencies and no y for a tester without calls", got.x, got.y)
	}
	for _, c := range []*chart{loadBubblesChart(&analyze.Result{}), latencyBubblesChart(&analyze.Result{})} {
		out := c.svg()
		checkXML(t, out)
		if !strings.Contains(out, "no testers") {
			t.Errorf("%s without testers lacks the note", c.id)
		}
	}
}

func TestTestersChart(t *testing.T) {
	t.Parallel()
	r := smallResult()
	r.Clients[1].Peak = analyze.Share{} // did not run through the peak window
	c := testersChart(r)
	if got := c.series[0].y; !math.IsNaN(got[1]) || got[0] != 25 {
		t.Errorf("peak utilization = %v, want 25%% for tester 0 and none for tester 1", got)
	}
	if got := c.series[2].y; got[0] != 1 || !c.series[2].right {
		t.Errorf("peak fairness = %v (right %v), want 1 for tester 0 on the right axis", got, c.series[2].right)
	}
	if len(c.rules) != 1 || c.rules[0].v != 1 || !c.rules[0].right {
		t.Errorf("rules = %+v, want the fair share at 1 on the right axis", c.rules)
	}
	for i := range r.Clients {
		r.Clients[i].Peak = analyze.Share{}
	}
	if out := testersChart(r).svg(); !strings.Contains(out, "no tester ran through the whole peak window") {
		t.Error("utilization chart lacks the note on a missing peak window")
	}
}

func TestSaturationChart(t *testing.T) {
	t.Parallel()
	out := saturationChart(smallResult(), smallModel()).svg()
	checkXML(t, out)
	for _, want := range []string{"USL fit: λ 20 calls/s, σ 0.05, κ 0.002 (R² 0.97), peak at 21.8 calls in flight<",
		"bounds fit min(N/R0, X*): R0 50 ms, X* 118.5 calls/s, knee at 5.925 calls in flight (R² 0.99) — predicts<",
		"response time of the predicting fit", "model extrapolated", "saturation: 6.25 calls in flight, 118.5 calls/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("saturation chart lacks %q", want)
		}
	}
	m := smallModel()
	m.Chosen, m.Bounds = model.ModelUSL, nil
	out = saturationChart(smallResult(), m).svg()
	if !strings.Contains(out, "peak at 21.8 calls in flight — predicts<") || strings.Contains(out, "bounds fit") {
		t.Error("a USL-only model is not drawn as the one that predicts")
	}
	r := smallResult()
	r.Summary.Saturation.Saturated = false
	out = saturationChart(r, nil).svg()
	checkXML(t, out)
	for _, want := range []string{"no model: too few quanta", "* never saturated: highest load 6.25", "* not saturated"} {
		if !strings.Contains(out, want) {
			t.Errorf("unsaturated chart without a model lacks %q", want)
		}
	}
	if strings.Contains(out, "USL fit") {
		t.Error("chart draws a model it was not given")
	}
}

func TestPercentileChart(t *testing.T) {
	t.Parallel()
	c := percentileChart(smallResult())
	want := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "max"}
	if !slices.Equal(c.x.labels, want) || !slices.Equal(c.x.ticks, []float64{0, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("ticks %v labelled %q, want 0..6 labelled %q", c.x.ticks, c.x.labels, want)
	}
	s := c.series[0]
	if s.x[0] != 0 || math.Abs(s.x[12]-math.Log10(5)) > 1e-12 || s.x[len(s.x)-1] != 6 {
		t.Errorf("positions %v: want 0%% at 0, 80%% at log10(5), max at 6", s.x)
	}
	out := c.svg()
	checkXML(t, out)
	for _, w := range want {
		if !strings.Contains(out, ">"+w+"<") {
			t.Errorf("percentile chart lacks the tick %q", w)
		}
	}
	if w := "median 4.49 ms · p90 221.8 ms · p99 472.6 ms · max 512 ms"; !strings.Contains(out, w) {
		t.Errorf("percentile chart lacks the note %q", w)
	}
	r := smallResult()
	r.Percentiles = []analyze.PercentilePoint{{P: 50, Ms: 3}, {P: 90, Ms: math.NaN()}, {P: 99, Ms: 9}}
	if c := percentileChart(r); !slices.Equal(c.x.labels, []string{"0%", "90%", "99%"}) {
		t.Errorf("labels without a maximum = %q", c.x.labels)
	}
	r.Percentiles = nil
	if out := percentileChart(r).svg(); !strings.Contains(out, "no data") {
		t.Error("empty percentile chart lacks the no-data note")
	}
}
