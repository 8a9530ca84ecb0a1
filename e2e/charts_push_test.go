package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/webui"
)

// pushPage is a page with one chart of window 5, to which pushState pushes
// 12 points, one of them a gap.
const pushPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><style>%CSS%</style></head><body>
<div id="c" style="width:800px"></div><script>%JS%</script><script>
window.chart = diperfCharts.build(document.getElementById('c'), {id: 'c', title: 'push', xLabel: 'time (s)',
	x: [], kind: 'line', window: 5, series: [
	{label: 'throughput', unit: 'calls/s', axis: 'left', values: []},
	{label: 'response time', unit: 'ms', axis: 'right', values: []}]});
</script></body></html>`

// pushState pushes the points, waits for uPlot's redraw, and returns the
// chart's columns and x scale.
const pushState = `(async () => {
	for (let i = 0; i < 12; i++) chart.push(i, [10 * i, i === 11 ? null : i / 2]);
	await new Promise(r => setTimeout(r, 100)); // uPlot redraws in a microtask
	const u = chart.u;
	return {x: u.data[0], thr: u.data[1], rt: u.data[2], min: u.scales.x.min, max: u.scales.x.max,
		axes: document.querySelectorAll('#c .u-axis').length};
})()`

// zoomState zooms the chart as a drag does (a selection, then the x scale
// set), pushes a point, double-clicks and pushes another; it returns the x
// scale after each push.
const zoomState = `(async () => {
	const u = chart.u, tick = () => new Promise(r => setTimeout(r, 100));
	u.setSelect({left: 100, top: 0, width: 200, height: 50});
	u.setScale('x', {min: 8, max: 9});
	chart.push(12, [120, 6]);
	await tick();
	const zoomed = [u.scales.x.min, u.scales.x.max];
	u.over.dispatchEvent(new MouseEvent('dblclick', {bubbles: true}));
	chart.push(13, [130, 6.5]);
	await tick();
	return zoomed.concat([u.scales.x.min, u.scales.x.max]);
})()`

// TestChartsPush drives charts.js's live path, as the dashboard uses it,
// in headless Chromium: pushed points append, the window keeps the last 5,
// a null is a gap, the x scale follows unless the user zoomed (until a
// double click), and units differing give two y axes.
func TestChartsPush(t *testing.T) {
	ctx, con := browser.New(t, time.Minute)
	page := filepath.Join(t.TempDir(), "push.html")
	html := strings.Replace(pushPage, "%CSS%", string(webui.UPlotCSS())+string(webui.ChartsCSS()), 1)
	html = strings.Replace(html, "%JS%", string(webui.UPlotJS())+"\n"+string(webui.ChartsJS()), 1)
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	type state struct {
		X, Thr, RT []*float64
		Min, Max   float64
		Axes       int
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[state](pushState, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.X) != 5 || *s.X[0] != 7 || *s.X[4] != 11 || *s.Thr[4] != 110 || s.RT[4] != nil || *s.RT[3] != 5 {
		t.Errorf("after 12 pushes into a window of 5: x %v, throughput %v, response time %v", s.X, s.Thr, s.RT)
	}
	if s.Min != 7 || s.Max != 11 || s.Axes != 3 {
		t.Errorf("x scale %v–%v, want 7–11; %d axes, want 3 (x and one per unit)", s.Min, s.Max, s.Axes)
	}
	zoom, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](zoomState, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(zoom) != 4 || zoom[0] != 8 || zoom[1] != 9 || zoom[2] != 9 || zoom[3] != 13 {
		t.Errorf("x scale zoomed to 8–9 then pushed: %v, want 8–9; after a double click and a push, want 9–13", zoom)
	}
	for _, e := range con.Errors() {
		t.Errorf("the page logged: %s", e)
	}
}
