package report

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/webui"
)

// uplotBanner is the one address in the page: the comment uPlot's
// minified script opens with, which names where it comes from.
const uplotBanner = "/*! https://github.com/leeoniya/uPlot (v" + webui.UPlotVersion + ") */"

var (
	scriptTagRE = regexp.MustCompile(`<script[^>]*>`)
	specRE      = regexp.MustCompile(`(?s)<script type="application/json" id="data-([^"]+)">(.*?)</script>`)
	chartDivRE  = regexp.MustCompile(`<div class="dp-chart" data-chart="([^"]+)"></div>`)
)

// checkOffline fails the test when the page would fetch anything: every
// script is inline (no src), no style sheet is linked or imported, and no
// address appears but uPlot's banner comment.
func checkOffline(t *testing.T, page string) {
	t.Helper()
	lower := strings.ToLower(strings.Replace(page, uplotBanner, "", 1))
	for _, bad := range []string{"http://", "https://", "<link", "@import", "url(http", " src="} {
		if strings.Contains(lower, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, tag := range scriptTagRE.FindAllString(page, -1) {
		if tag != "<script>" && !strings.HasPrefix(tag, `<script type="application/json" id="data-`) {
			t.Errorf("page has the script element %s", tag)
		}
	}
}

// pageSpecs returns the chart specs a page embeds, by id, parsed as
// charts.js parses them; it fails the test when one does not parse or has
// no chart element to draw into.
func pageSpecs(t *testing.T, page string) map[string]webui.ChartSpec {
	t.Helper()
	divs := map[string]bool{}
	for _, m := range chartDivRE.FindAllStringSubmatch(page, -1) {
		divs[m[1]] = true
	}
	out := map[string]webui.ChartSpec{}
	for _, m := range specRE.FindAllStringSubmatch(page, -1) {
		var s struct {
			webui.ChartSpec
			X      []*float64 `json:"x"`
			Series []struct {
				Label  string     `json:"label"`
				Values []*float64 `json:"values"`
			} `json:"series"`
		}
		if err := json.Unmarshal([]byte(m[2]), &s); err != nil {
			t.Fatalf("spec %s does not parse: %v", m[1], err)
		}
		if !divs[m[1]] || s.ID != m[1] {
			t.Errorf("spec %s (id %q) has no chart element", m[1], s.ID)
		}
		for _, se := range s.Series {
			if len(se.Values) != len(s.X) {
				t.Errorf("spec %s: series %q has %d values for %d x", m[1], se.Label, len(se.Values), len(s.X))
			}
			s.ChartSpec.Series = append(s.ChartSpec.Series, webui.Series{Label: se.Label, Values: derefs(se.Values)})
		}
		s.ChartSpec.X = derefs(s.X)
		out[m[1]] = s.ChartSpec
	}
	return out
}

// derefs turns JSON nulls into NaN.
func derefs(p []*float64) []float64 {
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = nan
		if v != nil {
			out[i] = *v
		}
	}
	return out
}

// interactiveIDs are the graphs every report draws interactively.
var interactiveIDs = []string{idTimeline, idSaturation, idPercentiles, idClock}

// TestInteractiveCharts checks that the small run's page embeds a chart
// spec for each time and load graph, with data, and the scripts that draw
// them; the per-tester graphs stay SVG only.
func TestInteractiveCharts(t *testing.T) {
	t.Parallel()
	page := render(t, smallResult())
	checkOffline(t, page)
	specs := pageSpecs(t, page)
	for _, id := range interactiveIDs {
		s, ok := specs[id]
		if !ok {
			t.Errorf("page has no interactive chart %s", id)
			continue
		}
		if len(s.X) == 0 || len(s.Series) == 0 || finiteCount(s.Series[0].Values) == 0 {
			t.Errorf("chart %s has no data: %d x, %d series", id, len(s.X), len(s.Series))
		}
	}
	for _, id := range []string{idTesters, idLoadBubbles, idLatencyBubbles} {
		if _, ok := specs[id]; ok {
			t.Errorf("per-tester graph %s has an interactive chart", id)
		}
	}
	for _, want := range []string{string(webui.ChartsJS()), "window.diperfReport = diperfCharts.renderAll(document)", "MIT License"} {
		if !strings.Contains(page, want[:min(len(want), 200)]) {
			t.Errorf("page lacks %.60q", want)
		}
	}
	tl := specs[idTimeline]
	if got := tl.Series[0].Values[3]; got != smallResult().Quanta[3].Load {
		t.Errorf("timeline's offered load at quantum 3 is %v, want %v", got, smallResult().Quanta[3].Load)
	}
}

// A run name that closes a script element stays text: the page has as
// many script elements as it opens, and the name comes back whole from
// the spec's JSON.
func TestInteractiveEscapesScript(t *testing.T) {
	t.Parallel()
	r := smallResult()
	r.Name = `x</script><script>alert(1)</script>`
	r.Quanta[0].Extras = map[string]analyze.ExtraQuantum{"</script><b>": {PerS: 1}}
	page := render(t, r)
	if n, m := strings.Count(page, "<script"), strings.Count(page, "</script>"); n != m || n != len(pageSpecs(t, page))+3 {
		t.Errorf("page has %d <script and %d </script> for %d specs", n, m, len(pageSpecs(t, page)))
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("the run name opened a script element")
	}
	var s webui.ChartSpec
	m := specRE.FindStringSubmatch(page[strings.Index(page, `id="data-`+idExtras+`"`)-40:])
	if m == nil || json.Unmarshal([]byte(m[2]), &s) != nil || s.Series[0].Label != "</script><b> per second" {
		t.Errorf("extras spec did not keep its key's label: %v", m)
	}
}

// finiteCount counts the finite values of y.
func finiteCount(y []float64) int {
	n := 0
	for _, v := range y {
		if finite(v) {
			n++
		}
	}
	return n
}
