package dashboard

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

// The snapshot the page draws carries the testers' health: per second the
// highest of the testers (with how many reported), per tester its latest
// report; the page has the chart and the table's columns for them.
func TestSnapshotCarriesTesterHealth(t *testing.T) {
	r := fedRun(t)
	r.Health(sample.Health{Slot: 0, T: base + 2, CPUPct: 91.5, CPUCores: 2, HostBusyPct: math.NaN(), HostStealPct: math.NaN(),
		LagMeanMs: 4, LagMaxMs: 37.5, Starts: 12, FDs: 17, FDLimit: 1024})
	r.Health(sample.Health{Slot: 1, T: base + 2, CPUPct: 30, HostBusyPct: 64, LagMaxMs: 3, Starts: 2, FDs: 9, FDLimit: 256})
	s := start(t, r, Options{})
	code, body := authed(t, s, "/api/snapshot")
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var snap struct {
		Seconds []map[string]any `json:"seconds"`
		Testers []map[string]any `json:"testers"`
	}
	if err := json.Unmarshal([]byte(body), &snap); err != nil {
		t.Fatal(err)
	}
	var sec map[string]any
	for _, x := range snap.Seconds {
		if x["t"] == float64(base+2) {
			sec = x
		}
	}
	want := map[string]float64{"tester_cpu_pct": 91.5, "host_busy_pct": 64, "lag_max_ms": 37.5, "fds": 17, "health_n": 2, "host_n": 1}
	for k, v := range want {
		if sec[k] != v {
			t.Errorf("second %d: %s = %v, want %v (%v)", base+2, k, sec[k], v, sec)
		}
	}
	var h map[string]any
	for _, row := range snap.Testers {
		if row["index"] == 0.0 {
			h, _ = row["health"].(map[string]any)
		}
	}
	if h == nil || h["cpu_pct"] != 91.5 || h["host_busy_pct"] != nil || h["lag_max_ms"] != 37.5 || h["fds"] != 17.0 || h["fd_limit"] != 1024.0 {
		t.Errorf("tester 0's health = %v", h)
	}
	_, page := authed(t, s, "/")
	_, js := authed(t, s, "/assets/dashboard.js")
	for _, want := range []string{`id="chart-health"`, "CPU (%)", "Lag (ms)", "FDs"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, want := range []string{"tester_cpu_pct", "host_busy_pct", "lag_max_ms", "healthCells"} {
		if !strings.Contains(js, want) {
			t.Errorf("dashboard.js does not read %q", want)
		}
	}
}
