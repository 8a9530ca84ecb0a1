package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/report"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/search"
)

// searchSteps is a search of 4 steps of 10 s from second t0 on: 100 and
// 200 calls/s meet, 400 fails, 300 (after 3 s of rest) meets: the bracket
// [300, 400].
func searchSteps(t0 int64) search.Result {
	v := func(f float64) *float64 { return &f }
	step := func(n int, load float64, rest int, decision string, p99 float64) search.StepRecord {
		from := t0 + int64(n-1)*10
		return search.StepRecord{Step: n, Load: load, From: from, To: from + 9, Seconds: 10, RestS: rest, WarmupS: 2,
			Settled: true, Calls: uint64(load) * 10, Measured: uint64(load) * uint64(8-rest), Throughput: load,
			Decision: decision, Why: decision, SLOs: []search.SLORecord{{SLO: "p99_ms < 50", Value: v(p99),
				Low: v(p99 * 0.9), High: v(p99 * 1.1), Objective: 50, Of: uint64(load) * 8, Decision: decision}}}
	}
	lo, hi := 300.0, 400.0
	return search.Result{Verdict: search.VerdictBudgetOut, Capacity: &lo, Interval: [2]*float64{&lo, &hi}, BreaksAt: &hi,
		Binding: "p99_ms < 50", Precision: 0.05, Seconds: 40, Why: "the time budget ran out: the capacity lies in [300, 400]",
		Steps: []search.StepRecord{step(1, 100, 0, search.Meets, 10), step(2, 200, 0, search.Meets, 20),
			step(3, 400, 0, search.Fails, 900), step(4, 300, 3, search.Meets, 40)}}
}

// searchPage is what the browser shows of the report's search section.
type searchPage struct {
	SVGs    map[string]int `json:"svgs"` // per search graph in the page: its shapes drawn (rect, path, circle)
	Rows    int            `json:"rows"` // rows of the steps' table
	Verdict string         `json:"verdict"`
}

const searchPageJS = `(() => {
	const svgs = {};
	for (const s of document.querySelectorAll('#search ~ figure svg[id^="graph-s"]'))
		svgs[s.id] = s.querySelectorAll('rect, path, circle').length;
	return {svgs, rows: document.querySelectorAll('#search-steps tr').length - 1,
		verdict: (document.getElementById('search-verdict') || {}).textContent || ''};
})()`

// TestReportSearchInChromium writes the report of a run directory holding
// a search.json of 4 steps and opens it in headless Chromium: the search
// section shows the verdict, the load and bracket graphs are interactive
// (uPlot) with every second of the 40 and every step drawn, the SLO graph
// is drawn, the table has a row a step, and the page logs no error.
func TestReportSearchInChromium(t *testing.T) {
	dir := t.TempDir()
	const origin = int64(1_700_000_000)
	r := &analyze.Result{Name: "search", Origin: origin * 1e9, Summary: analyze.Summary{QuantumS: 1, DurationS: 40,
		Open: &analyze.OpenModel{}}}
	for s := range 40 {
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(s), Load: 2, Throughput: 100, OK: 100,
			RT: analyze.RTStats{N: 100, Mean: 5, Median: 5, P90: 6, P99: 7}})
	}
	if err := rundir.WriteSearch(dir, searchSteps(origin)); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteFile(dir, r, nil); err != nil {
		t.Fatal(err)
	}
	ctx, con := browser.New(t, time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, rundir.Report))); err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartState](chartsJS))
	if err != nil {
		t.Fatal(err)
	}
	var load, bracket *chartState
	for i := range charts {
		switch charts[i].ID {
		case report.SearchLoadGraphID:
			load = &charts[i]
		case report.SearchBracketGraphID:
			bracket = &charts[i]
		}
	}
	// 4 steps: lo after each, hi after the last 2, 3 loads met and 1 failed
	if bracket == nil || bracket.Rows != 4 || bracket.Values != 4+2+3+1 || bracket.Painted < 1000 || bracket.SVGShow {
		t.Errorf("search bracket chart: %+v", bracket)
	}
	// 40 seconds: the load offered each, 3 resting, 8 of warm-up, 29 measured, 4 throughput dots
	if load == nil || load.Rows != 40 || load.Values != 40+3+8+29+4 || load.Painted < 2000 || load.SVGShow {
		t.Errorf("search load chart: %+v", load)
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[searchPage](searchPageJS))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{report.SearchSLOGraphID + "1", report.SearchBracketGraphID} { // the SVG, shown or not
		if p.SVGs[id] < 10 {
			t.Errorf("graph %s: %d shapes drawn", id, p.SVGs[id])
		}
	}
	if p.Rows != 4 || p.Verdict == "" {
		t.Errorf("search section: %+v", p)
	}
	for _, e := range con.Errors() {
		t.Errorf("console: %s", e)
	}
}
