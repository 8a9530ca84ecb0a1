package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBenchSearchSmoke runs `diperf bench search` briefly (4 workers of
// 20 ms, precision 50%, a budget of 8 s of load: the search ends without
// a capacity) and checks its last stdout line: one JSON object with every
// figure the benchmark is read by, the truth C/S = 200 calls/s, the ramp
// computed for 50% (steps of 100 calls/s to 300: 500 + 800 + 900 calls),
// and the calls the search made.
func TestBenchSearchSmoke(t *testing.T) {
	r := diperf(t, 90*time.Second, "bench", "search", "--workers", "4", "--service-time", "20ms",
		"--precision", "50%", "--max-rate", "320", "--time-budget", "8s")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"capacity", "truth", "error_pct", "calls", "wall_s", "ramp_calls", "ramp_basis",
		"arrivals", "workers", "service_time_ms", "verdict", "interval", "steps", "slo", "truth_basis", "brackets_truth"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, lines[len(lines)-1])
		}
	}
	if got["truth"] != 200.0 || got["ramp_calls"] != 2200.0 || got["slo"] != "p99_ms < 30" || got["arrivals"] != "uniform" {
		t.Errorf("truth %v, ramp_calls %v, slo %v, arrivals %v: want 200, 2200, p99_ms < 30, uniform",
			got["truth"], got["ramp_calls"], got["slo"], got["arrivals"])
	}
	if calls, _ := got["calls"].(float64); calls < 20 || calls < got["search_calls"].(float64) {
		t.Errorf("the run made %v calls, its steps %v: want at least a second of the first step's 20 calls/s, and no fewer than the steps'",
			got["calls"], got["search_calls"])
	}
	if !strings.Contains(r.stderr, "bench search:") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}
}
