package report

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/webui"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "small.golden.html")
	got := withoutAssets(render(t, smallResult()))
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update)", err)
	}
	if got != string(want) {
		t.Errorf("page differs from %s; run go test ./internal/report -update and review the diff", path)
	}
}

// withoutAssets puts a placeholder for each vendored or shared asset the
// page inlines, which their own tests cover, so that the golden file shows
// the page's own text.
func withoutAssets(page string) string {
	for name, a := range map[string]string{
		"uPlot.js": string(uplotJS()), "uPlot.css": string(webui.UPlotCSS()),
		"charts.js": string(webui.ChartsJS()), "charts.css": string(webui.ChartsCSS()),
	} {
		if !strings.Contains(page, a) {
			panic("page lacks " + name)
		}
		page = strings.Replace(page, a, "/* "+name+" (webui) */", 1)
	}
	return page
}

// graphSpec is what the structure test expects of one graph.
type graphSpec struct {
	id, letter, title string
	axes              []string // axis titles, each with its unit
}

// graphSpecs are the graphs (a) to (g) of the report.
var graphSpecs = []graphSpec{
	{idTimeline, "a", "Offered load, response time and throughput over time",
		[]string{"time since the first tester started (s)", "load (calls in flight)", "response time (ms)", "throughput (calls/s)"}},
	{idTesters, "b", "Service utilization and fairness per tester",
		[]string{"tester (start order)", "service utilization (% of the calls completed)", "service fairness (1 = fair share)"}},
	{idLoadBubbles, "c", "Average aggregate load and calls completed per tester",
		[]string{"tester (start order)", "average aggregate load while it ran (calls in flight)"}},
	{idLatencyBubbles, "d", "Response time against network latency per tester",
		[]string{"network latency: round trip to the controller (ms)", "mean response time of its successful calls (ms)"}},
	{idSaturation, "e", "Throughput and response time against offered load",
		[]string{"offered load (calls in flight)", "throughput (calls/s)", "response time (ms)"}},
	{idPercentiles, "f", "Response-time percentile distribution",
		[]string{"percentile of the successful calls (tail scale: each step ten times closer to 100%)", "response time (ms)"}},
	{idClock, "g", "Clock synchronization per tester",
		[]string{"time since the first tester started (s)", "offset change since first sync (ms)", "error bound (ms)"}},
}

var (
	figureRE    = regexp.MustCompile(`(?s)<figure id="fig-([^"]+)">\n(<svg\b.*?</svg>)\n(?:<div class="dp-chart".*?</p>\n)?<figcaption>(.*?)</figcaption>`)
	axisTitleRE = regexp.MustCompile(`<text class="axis-title"[^>]*>([^<]+)</text>`)
	legendRE    = regexp.MustCompile(`(?s)<g class="chart-legend">(.*?)</g>`)
	textRE      = regexp.MustCompile(`<text [^>]*>([^<]+)</text>`)
)

// TestGraphStructure checks that the page shows every graph (a) to (g), in
// order, each with its id, title, axis titles with units, a legend and a
// caption that names it and links its .svg file.
func TestGraphStructure(t *testing.T) {
	t.Parallel()
	page := render(t, smallResult())
	figs := figureRE.FindAllStringSubmatch(page, -1)
	if len(figs) != len(graphSpecs) {
		t.Fatalf("page has %d figures, want %d", len(figs), len(graphSpecs))
	}
	for i, g := range graphSpecs {
		id, svg, caption := figs[i][1], figs[i][2], figs[i][3]
		if id != g.id || !strings.HasPrefix(svg, `<svg id="`+g.id+`"`) {
			t.Errorf("figure %d is %q, want %q", i, id, g.id)
			continue
		}
		checkXML(t, svg)
		title := esc(g.title)
		if !strings.Contains(svg, "<title>"+title+"</title>") || !strings.Contains(svg, `class="chart-title"`) ||
			!strings.Contains(svg, ">"+title+"</text>") {
			t.Errorf("%s lacks its title %q", g.id, g.title)
		}
		var axes []string
		for _, m := range axisTitleRE.FindAllStringSubmatch(svg, -1) {
			axes = append(axes, m[1])
		}
		for _, a := range g.axes {
			if !slices.Contains(axes, esc(a)) {
				t.Errorf("%s lacks the axis title %q; has %q", g.id, a, axes)
			}
		}
		if l := legendRE.FindStringSubmatch(svg); l == nil || len(textRE.FindAllString(l[1], -1)) == 0 {
			t.Errorf("%s has no legend", g.id)
		}
		if !strings.HasPrefix(caption, "Figure "+g.letter+". ") || !strings.Contains(caption, `<a href="`+g.id+`.svg">`) {
			t.Errorf("%s caption %.80q does not name the figure and link its file", g.id, caption)
		}
	}
}
