package e2e

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/report"
)

// interactiveFigure is the docs' screenshot of an interactive chart,
// written when DIPERF_UPDATE_DOCS is set (the run is longer then).
const interactiveFigure = "../docs/figures/report-interactive.png"

// chartState is what the page says of one interactive chart.
type chartState struct {
	ID      string   `json:"id"`
	Rows    int      `json:"rows"`
	Values  int      `json:"values"`  // non-null values over its series
	Painted int      `json:"painted"` // canvas pixels drawn
	SVGShow bool     `json:"svgShown"`
	Legend  []string `json:"legend"`
}

// chartsJS reports every chart the page built (window.diperfReport).
const chartsJS = `Object.entries(window.diperfReport || {}).map(([id, c]) => {
	const cv = document.querySelector('#fig-' + id + ' canvas');
	let painted = 0;
	if (cv) {
		const px = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
		for (let i = 3; i < px.length; i += 4) if (px[i] > 0) painted++;
	}
	const svg = document.getElementById(id);
	return {id, rows: c.u.data[0].length,
		values: c.u.data.slice(1).reduce((n, s) => n + s.filter(v => v != null).length, 0),
		painted, svgShown: !!svg && getComputedStyle(svg).display !== 'none',
		legend: [...document.querySelectorAll('#fig-' + id + ' .u-legend .u-value')].map(e => e.textContent)};
})`

// chartIDRE finds the interactive charts in a report's HTML.
var chartIDRE = regexp.MustCompile(`<div class="dp-chart" data-chart="([^"]+)">`)

// interactiveCharts returns the ids of the interactive charts of the report
// at page, sorted, and fails the test unless graphs (a), (e), (f) and (g)
// are among them.
func interactiveCharts(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range chartIDRE.FindAllStringSubmatch(string(b), -1) {
		ids = append(ids, m[1])
	}
	slices.Sort(ids)
	for _, id := range []string{"graph-a-timeline", "graph-e-saturation", "graph-f-percentiles", "graph-g-clock"} {
		if !slices.Contains(ids, id) {
			t.Errorf("report has no interactive %s; has %q", id, ids)
		}
	}
	return ids
}

// TestReportAllChartsInChromium renders the report of an analyzed
// open-model run whose clients reported extras and measured their HTTP
// phases, so that it has every interactive chart, (h) and (i) too, and
// works them in Chromium like the demo's.
func TestReportAllChartsInChromium(t *testing.T) {
	r := &analyze.Result{Name: "all charts", Summary: analyze.Summary{QuantumS: 1, DurationS: 60,
		Saturation: analyze.Saturation{Load: 8, Throughput: 40}}}
	for i := range 60 {
		x := float64(i)
		load := 10 * math.Sin(math.Pi*x/60)
		rt := 100 + 20*load
		r.Quanta = append(r.Quanta, analyze.Quantum{T: x, Load: load, Throughput: 1000 * load / rt, Active: 4,
			RT:     analyze.RTStats{N: 10, Mean: rt, Median: 0.9 * rt, P90: 1.4 * rt, P99: 2 * rt},
			Open:   &analyze.OpenQuantum{OfferedPS: 50, AchievedPS: 1000 * load / rt, Late: i % 3, Dropped: i % 5},
			Phases: &analyze.PhaseQuantum{FirstByteN: 10, FirstByteMs: 0.7 * rt},
			Extras: map[string]analyze.ExtraQuantum{"MB": {Calls: 10, PerS: load}}})
	}
	for i := range 4 {
		c := analyze.Client{Index: i, ID: "h:" + strconv.Itoa(i), Host: "h", StartS: 5 * float64(i), EndS: 60}
		for k := range 6 {
			c.Clock.Syncs = append(c.Clock.Syncs, analyze.SyncPoint{T: c.StartS + 9*float64(k),
				OffsetMs: 3 + 0.1*float64(k*i), BoundMs: 0.2 + 0.05*float64(k)})
		}
		r.Clients = append(r.Clients, c)
	}
	for _, p := range []float64{0, 50, 90, 99, 99.9, 100} {
		r.Percentiles = append(r.Percentiles, analyze.PercentilePoint{P: p, Ms: 100 + 3*p})
	}
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Render(f, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := interactiveCharts(t, page)
	for _, id := range []string{report.OpenRateGraphID, report.ExtrasGraphID} {
		if !slices.Contains(want, id) {
			t.Errorf("report has no interactive %s", id)
		}
	}
	checkInteractive(t, page, want, false)
}

// checkInteractive opens the report at page in headless Chromium through
// chromedp, offline (file://), and works its charts as a reader would: every
// interactive chart (want) drew its data on a canvas in place of its SVG,
// hovering the timeline fills its legend with values and units, a click on
// a legend entry hides that series and another shows it again, dragging
// across the plot zooms the x scale and a double click zooms back out; the
// page logs no error and throws nothing.
func checkInteractive(t *testing.T, page string, want []string, docs bool) {
	ctx, con := browser.New(t, 2*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("open %s: %v", page, err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartState](chartsJS))
	if err != nil {
		t.Fatalf("read the charts: %v", err)
	}
	var ids []string
	for _, c := range charts {
		ids = append(ids, c.ID)
		if c.Rows == 0 || c.Values == 0 || c.Painted < 2000 || c.SVGShow {
			t.Errorf("chart %s: %d rows, %d values, %d pixels painted, SVG shown %v", c.ID, c.Rows, c.Values,
				c.Painted, c.SVGShow)
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, want) {
		t.Errorf("the page built the charts %q, want %q", ids, want)
	}
	const tl = "graph-a-timeline"
	hoverLegend(t, ctx, tl)
	toggleSeries(t, ctx, tl)
	zoom(t, ctx, tl)
	for _, e := range con.Errors() {
		t.Errorf("the page logged: %s", e)
	}
	pointAt(t, ctx, tl)
	shot := filepath.Join(t.TempDir(), "interactive.png")
	png, err := browser.ElementPNG(ctx, "#fig-"+tl)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, shot)
	if docs && os.Getenv("DIPERF_UPDATE_DOCS") != "" {
		if err := os.WriteFile(interactiveFigure, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rect is an element's box in the viewport, CSS px.
type rect struct{ X, Y, W, H float64 }

// plotRect scrolls chart id's plot area into view and returns its box.
func plotRect(t *testing.T, ctx context.Context, id string) rect {
	t.Helper()
	r, err := chromedp.Run(ctx, chromedp.Evaluate[rect](`(() => {
		const o = document.querySelector('#fig-`+id+` .u-over');
		o.scrollIntoView({block: 'center'});
		const b = o.getBoundingClientRect();
		return {X: b.left, Y: b.top, W: b.width, H: b.height};
	})()`))
	if err != nil || r.W < 100 || r.H < 100 {
		t.Fatalf("plot area of %s: %+v, %v", id, r, err)
	}
	return r
}

var valueRE = regexp.MustCompile(`^-?[0-9][0-9.e+-]* (ms|calls/s|calls in flight)$`)

// hoverLegend moves the mouse over chart id and expects its legend to show
// values with their units.
func hoverLegend(t *testing.T, ctx context.Context, id string) {
	r := plotRect(t, ctx, id)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, r.X+r.W*0.6, r.Y+r.H/2)); err != nil {
		t.Fatal(err)
	}
	legend, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('#fig-`+id+` .u-legend .u-value')].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range legend {
		if valueRE.MatchString(v) {
			n++
		}
	}
	if n < 2 {
		t.Errorf("hovering %s, its legend shows %q: want values with units", id, legend)
	}
}

// toggleSeries clicks the legend entry of chart id's first series and
// expects the series hidden, then clicks it again and expects it back.
func toggleSeries(t *testing.T, ctx context.Context, id string) {
	shown := func() bool {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.diperfReport['`+id+`'].u.series[1].show &&
			!document.querySelectorAll('#fig-`+id+` .u-legend .u-series')[1].classList.contains('u-off')`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	entry := `#fig-` + id + ` .u-legend .u-series:nth-child(2) .u-label`
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(entry))); err != nil {
		t.Fatal(err)
	}
	if shown() {
		t.Errorf("a click on %s's first legend entry did not hide its series", id)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(entry))); err != nil {
		t.Fatal(err)
	}
	if !shown() {
		t.Errorf("a second click on %s's first legend entry did not show its series again", id)
	}
}

// xScale is chart id's x scale.
func xScale(t *testing.T, ctx context.Context, id string) [2]float64 {
	s, err := chromedp.Run(ctx, chromedp.Evaluate[[2]float64](
		`(s => [s.min, s.max])(window.diperfReport['`+id+`'].u.scales.x)`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// zoom drags across the middle of chart id and expects its x scale
// narrowed, then double-clicks and expects it back.
func zoom(t *testing.T, ctx context.Context, id string) {
	r := plotRect(t, ctx, id)
	before := xScale(t, ctx, id)
	y := r.Y + r.H/2
	drag := func() {
		if err := chromedp.Do(ctx,
			chromedp.MouseEvent(chromedp.MouseMoved, r.X+r.W*0.3, y),
			chromedp.MouseEvent(chromedp.MousePressed, r.X+r.W*0.3, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
			chromedp.MouseEvent(chromedp.MouseMoved, r.X+r.W*0.5, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(chromedp.MouseMoved, r.X+r.W*0.7, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(chromedp.MouseReleased, r.X+r.W*0.7, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		); err != nil {
			t.Fatal(err)
		}
	}
	drag()
	after := xScale(t, ctx, id)
	if !(after[0] > before[0] && after[1] < before[1]) {
		t.Errorf("dragging across %s left its x scale at %v (was %v)", id, after, before)
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(r.X+r.W/2, y),
		chromedp.MouseClickXY(r.X+r.W/2, y, chromedp.ClickCount(2))); err != nil {
		t.Fatal(err)
	}
	if back := xScale(t, ctx, id); back != before {
		t.Errorf("a double click on %s left its x scale at %v, want %v", id, back, before)
	}
}

// pointAt puts chart id's cursor at 60% of its width, as a hovering mouse
// would, so that its legend shows values for the screenshot.
func pointAt(t *testing.T, ctx context.Context, id string) {
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(u => {
		const w = u.over.clientWidth, h = u.over.clientHeight;
		u.setCursor({left: 0.6 * w, top: 0.5 * h});
		return true;
	})(window.diperfReport['`+id+`'].u)`)); err != nil {
		t.Fatal(err)
	}
	if legend := strings.Join(chartLegend(t, ctx, id), " "); !strings.Contains(legend, "ms") {
		t.Errorf("%s's legend shows %q with its cursor placed", id, legend)
	}
}

// chartLegend is the text of chart id's legend values.
func chartLegend(t *testing.T, ctx context.Context, id string) []string {
	l, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('#fig-`+id+` .u-legend .u-value')].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	return l
}
