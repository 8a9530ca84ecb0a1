package e2e

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/diperf/diperf/e2e/browser"
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/report"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// TestReportHealthPanelInChromium writes the report of a 20 s run whose
// directory holds 2 testers' health.csv and a quanta.csv marking 2 quanta
// tester-bound, and opens it in headless Chromium: the health panel's
// interactive chart is drawn (its SVG fallback hidden), with every second
// of the lines and the 2 quanta's seconds marked, and the page logs no
// error.
func TestReportHealthPanelInChromium(t *testing.T) {
	dir := t.TempDir()
	const origin = int64(1_700_000_000)
	r := &analyze.Result{Name: "health", Origin: origin * 1e9, Summary: analyze.Summary{QuantumS: 1, DurationS: 20}}
	var rows []sample.Health
	quanta := "t_s,tester_bound\n"
	for s := range int64(20) {
		r.Quanta = append(r.Quanta, analyze.Quantum{T: float64(s), Load: 2, Throughput: 10, OK: 10,
			RT: analyze.RTStats{N: 10, Mean: 5, Median: 5, P90: 6, P99: 7}})
		bound := ""
		if s == 12 || s == 13 {
			bound = "cpu"
		}
		quanta += itoa(int(s)) + "," + bound + "\n"
		for slot := range 2 {
			rows = append(rows, sample.Health{Slot: slot, T: origin + s, CPUPct: 30 + 3*float64(s), CPUCores: 1,
				HostBusyPct: 50, HostStealPct: math.NaN(), LagMaxMs: float64(s), Starts: 10, FDs: 9, FDLimit: 1024})
		}
	}
	if err := rundir.WriteHealth(dir, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.Quanta), []byte(quanta), 0o644); err != nil {
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
	var h *chartState
	for i := range charts {
		if charts[i].ID == report.HealthGraphID {
			h = &charts[i]
		}
	}
	// 20 seconds of 3 lines, and the 2 seconds of the bound quanta marked
	if h == nil || h.Rows != 20 || h.Values != 3*20+2 || h.Painted < 2000 || h.SVGShow {
		t.Errorf("health chart: %+v", h)
	}
	for _, e := range con.Errors() {
		t.Errorf("console: %s", e)
	}
}
