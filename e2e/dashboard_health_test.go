package e2e

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/dashboard"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/sample"
)

// healthPage is what the dashboard shows of the testers' health.
type healthPage struct {
	Updates int                 `json:"updates"`
	Peaks   map[string]float64  `json:"peaks"`   // the health chart's largest value per series label
	Painted int                 `json:"painted"` // its canvas pixels drawn
	Cells   map[string][]string `json:"cells"`   // per tester index: its CPU, lag and FDs cells
}

const healthPageJS = `(() => {
	const d = window.diperf || {}, c = (d.charts || {}).health;
	const peaks = {};
	let painted = 0;
	if (c) {
		c.u.series.forEach((s, i) => {
			if (i === 0) return;
			const vs = c.u.data[i].filter(v => v != null);
			if (vs.length) peaks[s.label] = Math.max(...vs);
		});
		const cv = c.u.root.querySelector('canvas');
		const px = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
		for (let i = 3; i < px.length; i += 4) if (px[i] > 0) painted++;
	}
	const cells = {};
	for (const tr of document.querySelectorAll('#testers tbody tr'))
		cells[tr.dataset.index] = [...tr.querySelectorAll('td.health')].map(td => td.textContent);
	return {updates: d.updates || 0, peaks, painted, cells};
})()`

// TestDashboardDrawsTesterHealth serves a live run, fed 3 testers' health
// reports, to headless Chromium: the health chart under throughput and
// load draws the highest of the testers each second, the testers table
// shows each one's latest CPU, lag and descriptors, and the page logs no
// error. It takes about as long as Chromium takes to start.
func TestDashboardDrawsTesterHealth(t *testing.T) {
	const base = int64(1_700_000_000)
	var mu sync.Mutex
	now := time.Unix(base, 0) // the run starts at base; the page is opened at base+10
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := live.New(live.Options{Name: "health", Testers: 3, Now: clock})
	mu.Lock()
	now = now.Add(10 * time.Second)
	mu.Unlock()
	for slot := range 3 {
		r.Event("started", slot, "127.0.0.1:"+string(rune('1'+slot)), "", base*1e9)
		var ss []sample.Sample
		for s := base; s < base+8; s++ {
			ss = append(ss, sample.Sample{Start: s*1e9 + 1e8, End: s*1e9 + 2e8, Status: sample.OK})
			lag := 2.0
			if slot == 2 && s == base+4 {
				lag = 480
			}
			cpu := 20 + 10*float64(slot)
			if slot == 1 && s == base+5 {
				cpu = 96.5
			}
			r.Health(sample.Health{Slot: slot, T: s, CPUPct: cpu, CPUCores: 1, HostBusyPct: 55 + float64(slot),
				HostStealPct: math.NaN(), LagMeanMs: 1, LagMaxMs: lag, Starts: 5, FDs: 10 + slot, FDLimit: 1024})
		}
		r.Add(slot, ss, uint64(len(ss)), nil)
	}
	srv, err := dashboard.Start(r, dashboard.Options{Addr: "127.0.0.1:0", Period: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ctx, con := browser.New(t, time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL())); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	var p healthPage
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		p, err = chromedp.Run(ctx, chromedp.Evaluate[healthPage](healthPageJS))
		if err != nil {
			t.Fatalf("read the dashboard: %v", err)
		}
		if p.Updates > 0 || time.Now().After(deadline) {
			break
		}
	}
	want := map[string]float64{"tester CPU, highest": 96.5, "host CPU busy, highest": 57, "schedule lag, largest": 480}
	for k, v := range want {
		if p.Peaks[k] != v {
			t.Errorf("health chart %q peaks at %v, want %v (%+v)", k, p.Peaks[k], v, p)
		}
	}
	if p.Painted < 2000 {
		t.Errorf("health chart: %d pixels painted", p.Painted)
	}
	if c := p.Cells["2"]; len(c) != 3 || c[0] != "40" || c[1] != "2" || c[2] != "12 / 1024" {
		t.Errorf("tester 2's health cells = %q, want its latest report: 40, 2, 12 / 1024", c)
	}
	for _, e := range con.Errors() {
		t.Errorf("console: %s", e)
	}
}
