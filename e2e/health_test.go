package e2e

import (
	"path/filepath"
	"testing"
	"time"
)

// TestRunWritesTesterHealth runs 2 testers for 3 s and reads health.csv
// by its header: each tester has a row for most seconds of its client
// loop, its process tree's CPU above 0 (it starts an exec client per
// call), its CPU cores at least one, its schedule lag never negative, and
// its descriptors within their limit; none of it refused.
func TestRunWritesTesterHealth(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 4, 20*time.Millisecond)
	exp := exampleExperiment(t, url, "testers: 10 ", "testers: 2 ", "tester_duration: 20s", "tester_duration: 3s",
		"tester_start_interval: 1s", "tester_start_interval: 0s")
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	tab := readCSV(t, filepath.Join(out, "health.csv"), "slot", "t", "cpu_pct", "cpu_cores", "lag_mean_ms",
		"lag_max_ms", "starts", "fds", "fd_limit")
	perSlot := map[int]map[int]bool{}
	for _, row := range tab.rows {
		slot, sec := row.int(t, "slot"), row.int(t, "t")
		if perSlot[slot] == nil {
			perSlot[slot] = map[int]bool{}
		}
		if perSlot[slot][sec] {
			t.Errorf("line %d: tester %d's second %d twice", row.line, slot, sec)
		}
		perSlot[slot][sec] = true
		if c := row.float(t, "cpu_pct"); !(c > 0 && c <= 105) {
			t.Errorf("line %d: cpu_pct %v, want in (0, 105]", row.line, c)
		}
		if c := row.float(t, "cpu_cores"); c <= 0 {
			t.Errorf("line %d: cpu_cores %v", row.line, c)
		}
		if mean, most := row.float(t, "lag_mean_ms"), row.float(t, "lag_max_ms"); mean < 0 || most < mean {
			t.Errorf("line %d: lag mean %v ms, max %v ms", row.line, mean, most)
		}
		if fds, lim := row.int(t, "fds"), row.int(t, "fd_limit"); fds <= 0 || fds > lim {
			t.Errorf("line %d: %d descriptors of %d", row.line, fds, lim)
		}
	}
	// an honest tester's seconds are never refused
	for _, row := range readCSV(t, filepath.Join(out, "testers.csv"), "messages_refused").rows {
		if n := row.int(t, "messages_refused"); n != 0 {
			t.Errorf("testers.csv line %d: %d messages refused (%s)", row.line, n, row.str(t, "refused_reason"))
		}
	}
	// a 3 s client loop measured each second: at least 2 whole seconds
	for slot := range 2 {
		if n := len(perSlot[slot]); n < 2 {
			t.Errorf("tester %d has %d health seconds, want at least 2 of its 3 s", slot, n)
		}
	}
}
