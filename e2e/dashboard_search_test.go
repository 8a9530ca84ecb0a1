package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/dashboard"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/search"
)

// searchPanel is what the dashboard shows of a capacity search.
type searchPanel struct {
	Updates int      `json:"updates"` // answers of /api/search the panel had
	Hidden  bool     `json:"hidden"`
	Cards   []string `json:"cards"` // step, load, bracket, verdict
	Rows    []string `json:"rows"`  // per step: its decision cell
	Painted int      `json:"painted"`
}

const searchPanelJS = `(() => {
	const d = window.diperfSearch || {}, p = document.getElementById('search');
	let painted = 0;
	const cv = p.querySelector('canvas');
	if (cv) {
		const px = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
		for (let i = 3; i < px.length; i += 4) if (px[i] > 0) painted++;
	}
	return {updates: d.updates || 0, hidden: p.hidden,
		cards: ['s-step', 's-load', 's-bracket', 's-verdict'].map(id => document.getElementById(id).textContent),
		rows: [...p.querySelectorAll('#search-steps tbody td.decision')].map(td => td.textContent), painted};
})()`

// waitPanel reads the panel until ok says it is what the test waits for,
// at most 10 s.
func waitPanel(t *testing.T, ctx context.Context, ok func(searchPanel) bool) searchPanel {
	t.Helper()
	var p searchPanel
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		p, err = chromedp.Run(ctx, chromedp.Evaluate[searchPanel](searchPanelJS))
		if err != nil {
			t.Fatalf("read the dashboard: %v", err)
		}
		if ok(p) || time.Now().After(deadline) {
			return p
		}
	}
}

// TestDashboardShowsSearch serves a live run to headless Chromium: while
// the run is not a search the search panel stays hidden; once the
// controller has recorded a search of 2 decided steps (100 calls/s met,
// 400 failed) and a third under way at 200, the panel shows step 3 at 200,
// the bracket [100, 400], "searching" and a row a step; when the run
// ended with the third step met, the verdict. The page logs no error.
func TestDashboardShowsSearch(t *testing.T) {
	const base = int64(1_700_000_000)
	now := time.Unix(base+10, 0)
	r := live.New(live.Options{Name: "search", Testers: 1, Now: func() time.Time { return now }})
	r.Event("started", 0, "127.0.0.1:1", "", base*1e9)
	r.Add(0, []sample.Sample{{Start: (base+1)*1e9 + 1e8, End: (base+1)*1e9 + 2e8, Status: sample.OK}}, 1, nil)
	srv, err := dashboard.Start(r, dashboard.Options{Addr: "127.0.0.1:0", Period: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ctx, con := browser.New(t, time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL())); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	if p := waitPanel(t, ctx, func(p searchPanel) bool { return p.Updates > 0 }); !p.Hidden || p.Updates == 0 {
		t.Errorf("a run that is not a search: the panel %+v, want hidden", p)
	}
	step := func(n int, load float64, decision string) search.StepRecord {
		return search.StepRecord{Step: n, Load: load, Seconds: 5, WarmupS: 2, Calls: 10, Decision: decision}
	}
	lo, hi := 100.0, 400.0
	res := search.Result{Verdict: search.VerdictBudgetOut, Capacity: &lo, Interval: [2]*float64{&lo, &hi}, BreaksAt: &hi,
		Steps: []search.StepRecord{step(1, 100, search.Meets), step(2, 400, search.Fails), step(3, 200, "")}}
	r.SetSearch(res)
	want := []string{"3", "200", "[100, 400]", "searching"}
	p := waitPanel(t, ctx, func(p searchPanel) bool { return slices.Equal(p.Cards, want) })
	if p.Hidden || !slices.Equal(p.Cards, want) || len(p.Rows) != 3 || p.Rows[2] != "under way" || p.Painted < 500 {
		t.Errorf("a search under way: the panel %+v, want cards %q, 3 rows, the last under way, a chart", p, want)
	}
	lo = 200
	res.Steps[2].Decision, res.Verdict, res.Capacity = search.Meets, search.VerdictCapacity, &lo
	r.SetSearch(res)
	r.End("")
	want = []string{"3", "200", "[200, 400]", search.VerdictCapacity}
	if p := waitPanel(t, ctx, func(p searchPanel) bool { return slices.Equal(p.Cards, want) }); !slices.Equal(p.Cards, want) {
		t.Errorf("the search ended: the panel %+v, want cards %q", p, want)
	}
	for _, e := range con.Errors() {
		t.Errorf("console: %s", e)
	}
}
