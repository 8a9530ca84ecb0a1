package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
)

// writeSearchRun writes the report of r into a run directory holding res
// as search.json, and returns the directory and the page.
func writeSearchRun(t *testing.T, r *analyze.Result, res *search.Result) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if res != nil {
		if err := rundir.WriteSearch(dir, *res); err != nil {
			t.Fatal(err)
		}
	}
	return dir, reportIn(t, dir, r)
}

// reportIn writes the report of r into dir and returns the page.
func reportIn(t *testing.T, dir string, r *analyze.Result) string {
	t.Helper()
	if err := WriteFile(dir, r, smallModel()); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, rundir.Report))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// rectsIn counts the rectangles of the group of the given fill and
// opacity in svg.
func rectsIn(svg, fill, op string) int {
	re := regexp.MustCompile(`<g fill="` + fill + `" fill-opacity="` + op + `">((?:<rect[^>]*/>)*)</g>`)
	m := re.FindStringSubmatch(svg)
	if m == nil {
		return 0
	}
	return strings.Count(m[1], "<rect")
}

// TestReportDrawsSearchPath runs the search engine against a simulated
// service of capacity 200 calls/s (p99_ms < 30): 50, 100, 200 meet, 400
// and 210 fail (210 after a rest). The report draws the load of each step
// with its parts shaded (1 rest, 5 warm-ups, 3 measured seconds that met,
// 2 that failed), each SLO's statistic against its objective, the bracket
// ending at the search's interval [200, 210], the verdict and a row per
// step; each graph is written beside the page.
func TestReportDrawsSearchPath(t *testing.T) {
	r := smallResult()
	r.Summary.Open = &analyze.OpenModel{} // an open-model run: the load is a rate
	res := simulatedSearch(t, r.Origin/1e9)
	if res.Verdict != search.VerdictCapacity || len(res.Steps) != 5 || *res.Capacity != 200 {
		t.Fatalf("the simulated search: %s, %d steps, capacity %v", res.Verdict, len(res.Steps), res.Capacity)
	}
	dir, page := writeSearchRun(t, r, &res)
	for _, want := range []string{`<h2 id="search">Capacity search</h2>`, "Verdict: capacity", "capacity 200: it met every objective, 210 failed p99_ms &lt; 30",
		"<td class=\"l\">[200 calls/s, 210 calls/s]</td>", "<td class=\"l\">p99_ms &lt; 30</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	ids := []string{SearchLoadGraphID, SearchSLOGraphID + "1", SearchSLOGraphID + "2", SearchBracketGraphID}
	svgs := map[string]string{}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(dir, rundir.GraphFile(id)))
		if err != nil || !strings.Contains(page, `<svg id="`+id+`"`) {
			t.Fatalf("graph %s: not drawn in the page or beside it (%v)", id, err)
		}
		svgs[id] = string(b)
	}
	load := svgs[SearchLoadGraphID]
	for _, c := range []struct {
		what, fill, op string
		n              int
	}{{"rest", colRest, "0.5", 1}, {"warm-up", colWarmup, "0.4", 5}, {"met", colMeets, "0.2", 3}, {"failed", colFails, "0.2", 2}} {
		if got := rectsIn(load, c.fill, c.op); got != c.n {
			t.Errorf("load graph: %d %s parts shaded, want %d", got, c.what, c.n)
		}
	}
	if rows := strings.Count(page, "<tr><td>"); rows != 5+testerRowsIn(page) {
		t.Errorf("steps table: %d rows, want 5", rows-testerRowsIn(page))
	}
	if strings.Count(page, "fails: p99_ms &lt; 30</td>") != 2 {
		t.Errorf("steps table: the failed steps' binding SLO is not said")
	}
}

// testerRowsIn counts the testers table's rows of page.
func testerRowsIn(page string) int {
	i := strings.Index(page, `<table class="testers">`)
	if i < 0 {
		return 0
	}
	return strings.Count(page[i:], "<tr><td>")
}

// TestSearchGraphsFollowTheEngine checks the graphs' figures against the
// engine's answer: the bracket after the last step is the search's
// interval, each SLO's objective line is at its bound, its failed steps
// are crossed and the weak decisions ringed.
func TestSearchGraphsFollowTheEngine(t *testing.T) {
	r := smallResult()
	res := simulatedSearch(t, r.Origin/1e9)
	v := searchViewOf(&res)
	lo, hi := bracketAfter(v.res.Steps)
	n := len(lo) - 1
	if lo[n] != *res.Interval[0] || hi[n] != *res.Interval[1] {
		t.Errorf("bracket after the last step [%v, %v], the search's interval [%v, %v]", lo[n], hi[n], *res.Interval[0], *res.Interval[1])
	}
	if lo[0] != 50 || hi[2] == hi[2] || hi[3] != 400 {
		t.Errorf("bracket: lo %v, hi %v: want lo 50 after step 1, no hi before step 4, 400 after it", lo, hi)
	}
	spec := searchBracketSpec(r, v)
	if len(spec.X) != 5 || spec.Series[0].Values[4] != 200 || spec.Series[1].Values[4] != 210 {
		t.Errorf("bracket chart: %+v, want 5 steps, ending at [200, 210]", spec)
	}
	p99 := searchSLOChart(v, 1, "p99_ms < 30")
	if len(p99.rules) != 1 || p99.rules[0].v != 30 {
		t.Errorf("p99 graph: objective %+v, want a line at 30", p99.rules)
	}
	// the saturated steps' p99 (over a second) is drawn at the top, 90 ms, and said
	if len(p99.notes) != 1 || !strings.Contains(p99.notes[0], "above it: step 4: 1") {
		t.Errorf("p99 graph: notes %q, want the steps above 90 ms named", p99.notes)
	}
	count := map[string]int{}
	for _, s := range p99.series {
		count[s.name] = len(s.x)
	}
	if count["met"] != 3 || count["failed"] != 2 || count["95% interval"] != 5 {
		t.Errorf("p99 graph: %v: want 3 met, 2 failed, 5 intervals", count)
	}
	errs := searchSLOChart(v, 2, "error_rate < 1%")
	for _, s := range errs.series {
		if s.name == "weak (point estimate at the step's limit)" && len(s.x) != 2 {
			t.Errorf("error-rate graph: %d weak decisions ringed, want 2", len(s.x))
		}
	}
	if errs.y.title != "error_rate < 1% (%)" || errs.rules[0].v != 1 {
		t.Errorf("error-rate graph: axis %q, objective %v", errs.y.title, errs.rules[0].v)
	}
}

// TestReportWithoutSearch: a run that was not a search has no search
// section and no search graph.
func TestReportWithoutSearch(t *testing.T) {
	dir, page := writeSearchRun(t, smallResult(), nil)
	if strings.Contains(page, `id="search"`) || strings.Contains(page, "graph-s1") {
		t.Error("a run without search.json has a search section")
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.GraphFile(SearchLoadGraphID))); err == nil {
		t.Error("a run without search.json has a search graph file")
	}
}

// TestSearchLoadSpec checks graph (s1)'s interactive chart against the
// simulated search's 27 seconds: 4 resting, 10 of warm-up, 11 measured
// in steps that met and 2 in steps that failed, a throughput dot a step.
func TestSearchLoadSpec(t *testing.T) {
	r := smallResult()
	r.Summary.Open = &analyze.OpenModel{}
	res := simulatedSearch(t, r.Origin/1e9)
	spec := searchLoadSpec(r, searchViewOf(&res))
	if spec == nil || len(spec.X) != 27 {
		t.Fatalf("spec: %+v", spec)
	}
	want := map[string]int{"load offered": 27, "rest (no load)": 4, "warm-up (left out)": 10, "measured: meets": 11,
		"measured: fails": 2, "measured: tester-limited": 0, "measured: unmeasured": 0, "throughput after warm-up": 5}
	for _, s := range spec.Series {
		if n := finiteCount(s.Values); n != want[s.Label] {
			t.Errorf("series %q: %d values, want %d", s.Label, n, want[s.Label])
		}
	}
}
