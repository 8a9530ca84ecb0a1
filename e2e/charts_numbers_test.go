package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/webui"
)

// numbersPage loads charts.js alone.
const numbersPage = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><script>%JS%</script></body></html>`

// axisNumbers formats values the way the dashboard's and the report's
// axes and tables do (fmt); legendNumbers as their legends do (withUnit).
const (
	axisNumbers   = `[0.000123, 3e-7, 1e-9, 12.345, 1234.5, 2.5e6, 1.5e9, 2.5e13, 1e20].map(diperfCharts.fmt)`
	legendNumbers = `[[1500, "ms"], [0.5, "ms"], [94.1e6, "bit/s"], [1500, "MB/s"], [12, "calls/s"], [2.5e6, "calls/s"]]
		.map(p => diperfCharts.withUnit(p[0], p[1]))`
)

// TestChartsNumbers checks, in headless Chromium, that charts.js writes
// no number in scientific notation, on an axis or in a legend, and that a
// legend's time, bit rate and byte rate are scaled within their family.
func TestChartsNumbers(t *testing.T) {
	ctx, con := browser.New(t, time.Minute)
	page := filepath.Join(t.TempDir(), "numbers.html")
	html := strings.Replace(numbersPage, "%JS%", string(webui.UPlotJS())+"\n"+string(webui.ChartsJS()), 1)
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range []struct {
		js   string
		want []string
	}{
		{axisNumbers, []string{"0.000123", "0.0000003", "0.000000001", "12.35", "1235", "2.5M", "1.5G", "25T", "100000000T"}},
		{legendNumbers, []string{"1.5 s", "500 µs", "94.1 Mbit/s", "1.5 GB/s", "12 calls/s", "2.5M calls/s"}},
	} {
		g, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](c.js))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(g, "|") != strings.Join(c.want, "|") {
			t.Errorf("charts.js wrote\n%q\nwant\n%q", g, c.want)
		}
		got = append(got, g...)
	}
	exp := regexp.MustCompile(`[0-9]e[+-]?[0-9]`)
	for _, s := range got {
		if exp.MatchString(s) {
			t.Errorf("%q is in scientific notation", s)
		}
	}
	for _, e := range con.Errors() {
		t.Errorf("the page logged: %s", e)
	}
}
