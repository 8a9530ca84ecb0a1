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

// ticksPage draws one chart per case of cases (window.cases), the range on
// a left axis and its negation on a right one, and ticksState reads each y
// axis back: its width, the width its widest label needs (tick, gap and
// text measured in the axis' font), its ticks and labels.
const (
	ticksPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><style>%CSS%</style></head><body>
<script>%JS%</script><script>
window.charts = window.cases.map((c, i) => {
	const el = document.createElement('div');
	el.style.width = '700px';
	document.body.appendChild(el);
	const ys = [c[0], (c[0] + c[1]) / 2, c[1]];
	return diperfCharts.build(el, {id: 'c' + i, title: 'case ' + i, xLabel: 'time (s)', x: [0, 1, 2], height: 260,
		series: [{label: 'memory', unit: 'MB', axis: 'left', values: ys},
			{label: 'response time', unit: 'ms', axis: 'right', values: ys.map(v => -v)}]});
});
</script></body></html>`
	ticksState = `(async () => {
	await new Promise(r => setTimeout(r, 100)); // uPlot draws in a microtask
	const out = [];
	charts.forEach(ch => ch.u.axes.forEach((a, i) => {
		if (i === 0) return;
		ch.u.ctx.font = a.font[0];
		const widest = Math.max(...a._values.map(v => ch.u.ctx.measureText(v).width)) / uPlot.pxRatio;
		out.push({size: a._size, need: (a.ticks.show ? a.ticks.size : 0) + a.gap + widest,
			splits: a._splits, labels: a._values});
	}));
	return out;
})()`
)

// wholeNumbers formats whole numbers as the dashboard's cards and tables
// do (fmt).
const wholeNumbers = `[1200, 1000, -1000, 100, 100000, 2e6, 10].map(diperfCharts.fmt)`

// yAxis is one y axis as ticksState reads it.
type yAxis struct {
	Size, Need float64
	Splits     []float64
	Labels     []string
}

// TestChartsTickLabels draws, in headless Chromium, charts whose y ticks
// are 1 to 10 characters wide on both sides and checks that every y axis
// is as wide as its widest label needs (no label cut at the plot's edge),
// and that every label names its tick: "1200", not "12"; ticks a billion
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
	axes, err := chromedp.Run(ctx, chromedp.Evaluate[[]yAxis](ticksState, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(axes) != 2*len(ticksCases) {
		t.Fatalf("%d y axes, want %d", len(axes), 2*len(ticksCases))
	}
	for i, a := range axes {
		c := ticksCases[i/2]
		if a.Need > a.Size {
			t.Errorf("range %v, axis %d: labels %q need %.1f px, the axis has %.0f: cut", c, i%2, a.Labels, a.Need, a.Size)
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
func checkTickLabels(t *testing.T, c [2]float64, a yAxis) {
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
