package e2e

import (
	"encoding/json"
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
	"github.com/diperf/diperf/internal/webui"
)

// ticksCases are y ranges whose tick labels are of every width: from one
// digit to ten, the demo's response times (900–1,100 ms) and memory
// (1,200–1,800 MB), negatives, millionths, and billions 100 apart.
var ticksCases = [][2]float64{
	{0, 1}, {0, 10}, {900, 1100}, {1200, 1800}, {0, 1e6}, {-999999, 0},
	{0, 1234567890}, {1234567890, 1234567990}, {0.0001, 0.000123},
}

// ticksPage draws two charts per case of cases (window.cases), on an x
// axis over the range: one with the range on a left axis and its negation
// on a right one, one with the left axis alone. ticksState reads each y
// axis back (its width, the width its widest label needs: tick, gap and
// text measured in the axis' font, its ticks and labels) and each x axis'
// (how far its first and last labels reach, from the canvas' left edge).
const (
	ticksPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><style>%CSS%</style></head><body>
<script>%JS%</script><script>
window.charts = window.cases.flatMap((c, i) => [true, false].map(both => {
	const el = document.createElement('div');
	el.style.width = '700px';
	document.body.appendChild(el);
	const ys = [c[0], (c[0] + c[1]) / 2, c[1]], series = [{label: 'memory', unit: 'MB', axis: 'left', values: ys}];
	if (both) series.push({label: 'response time', unit: 'ms', axis: 'right', values: ys.map(v => -v)});
	return diperfCharts.build(el, {id: 'c' + i, title: 'case ' + i, xLabel: 'load', x: ys, height: 260, series});
}));
</script></body></html>`
	ticksState = `(async () => {
	await new Promise(r => setTimeout(r, 100)); // uPlot draws in a microtask
	const out = [];
	charts.forEach(ch => ch.u.axes.forEach((a, i) => {
		const u = ch.u;
		u.ctx.font = a.font[0];
		const w = a._values.map(v => u.ctx.measureText(v).width / uPlot.pxRatio);
		const ax = {size: a._size, need: (a.ticks.show ? a.ticks.size : 0) + a.gap + Math.max(...w),
			splits: a._splits, labels: a._values, x: i === 0, width: u.width};
		if (i === 0) {
			const at = k => u.bbox.left / uPlot.pxRatio + u.valToPos(a._splits[k], 'x');
			ax.from = at(0) - w[0] / 2;
			ax.to = at(w.length - 1) + w[w.length - 1] / 2;
			ax.overlap = Math.max(0, ...w.slice(1).map((wk, k) => (w[k] + wk) / 2 - (at(k + 1) - at(k))));
		}
		out.push(ax);
	}));
	return out;
})()`
)

// wholeNumbers formats whole numbers as the dashboard's cards and tables
// do (fmt).
const wholeNumbers = `[1200, 1000, -1000, 100, 100000, 2e6, 10].map(diperfCharts.fmt)`

// chartAxis is one axis as ticksState reads it.
type chartAxis struct {
	Size, Need float64
	Splits     []float64
	Labels     []string
	X          bool    // the x axis: From and To are set
	From, To   float64 // how far its labels reach, from the canvas' left edge (px)
	Width      float64 // the canvas' width (px)
	Overlap    float64 // how far two neighbouring x labels overlap at most (px)
}

// TestChartsTickLabels draws, in headless Chromium, charts whose ticks
// are 1 to 13 characters wide, on x and on y axes of both sides, and checks
// that every y axis is as wide as its widest label needs and that the x
// axis' first and last labels are inside the canvas (no label cut) and
// overlap none of their neighbours, and that every label names its tick: "1200", not "12"; ticks a billion
// and 25 apart are told apart; no exponent. The cards' and tables' whole
// numbers keep their zeros too.
func TestChartsTickLabels(t *testing.T) {
	ctx, con := browser.New(t, time.Minute)
	page := filepath.Join(t.TempDir(), "ticks.html")
	cases, err := json.Marshal(ticksCases)
	if err != nil {
		t.Fatal(err)
	}
	html := strings.Replace(ticksPage, "%CSS%", string(webui.UPlotCSS())+string(webui.ChartsCSS()), 1)
	html = strings.Replace(html, "%JS%", "window.cases = "+string(cases)+";\n"+string(webui.UPlotJS())+"\n"+string(webui.ChartsJS()), 1)
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	axes, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartAxis](ticksState, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%v (the page logged %q)", err, con.Errors())
	}
	if len(axes) != 5*len(ticksCases) { // x and 2 y axes, x and 1 y axis
		t.Fatalf("%d axes, want %d", len(axes), 5*len(ticksCases))
	}
	for i, a := range axes {
		c := ticksCases[i/5]
		switch {
		case a.X && (a.From < 0 || a.To > a.Width):
			t.Errorf("range %v, x axis: labels %q reach from %.1f to %.1f px, the canvas is 0 to %.0f: cut", c, a.Labels, a.From, a.To, a.Width)
		case a.X && a.Overlap > 0:
			t.Errorf("range %v, x axis: labels %q overlap by %.1f px", c, a.Labels, a.Overlap)
		case !a.X && a.Need > a.Size:
			t.Errorf("range %v, y axis %d: labels %q need %.1f px, the axis has %.0f: cut", c, i%5, a.Labels, a.Need, a.Size)
		}
		checkTickLabels(t, c, a)
	}
	whole, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](wholeNumbers))
	if want := []string{"1200", "1000", "-1000", "100", "100000", "2M", "10"}; err != nil || !slices.Equal(whole, want) {
		t.Errorf("fmt (the cards' and tables' numbers) wrote %q (%v), want %q", whole, err, want)
	}
	for _, e := range con.Errors() {
		t.Errorf("the page logged: %s", e)
	}
}

// checkTickLabels checks that every label of a reads back as its tick, to
// a millionth of the ticks' step, in plain decimals with M, G or T.
func checkTickLabels(t *testing.T, c [2]float64, a chartAxis) {
	t.Helper()
	if len(a.Splits) < 2 || len(a.Labels) != len(a.Splits) {
		t.Errorf("range %v: ticks %v, labels %q", c, a.Splits, a.Labels)
		return
	}
	step := math.Abs(a.Splits[1] - a.Splits[0])
	plain := regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?[MGT]?$`)
	for k, l := range a.Labels {
		if !plain.MatchString(l) {
			t.Errorf("range %v: label %q is not a plain number", c, l)
			continue
		}
		mult := map[byte]float64{'M': 1e6, 'G': 1e9, 'T': 1e12}[l[len(l)-1]]
		num := strings.TrimRight(l, "MGT")
		if mult == 0 {
			mult = 1
		}
		v, _ := strconv.ParseFloat(num, 64)
		if math.Abs(v*mult-a.Splits[k]) > 1e-6*step {
			t.Errorf("range %v: the tick at %v reads %q", c, a.Splits[k], l)
		}
	}
}
