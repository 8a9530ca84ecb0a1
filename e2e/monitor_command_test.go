package e2e

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run against `diperf target` whose server view is a command: curl
// reads the target's /metrics every quantum and the counter
// served_total is taken from its output. monitor.csv has it, `diperf
// validate --endpoint served --counter served_total` passes, and the
// client view agrees with it per window, cumulatively and in total.
func TestMonitorCommandCounter(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed (scripts/test.sh installs it)")
	}
	url := startTarget(t, 64, time.Millisecond)
	exp := writeExperiment(t, fmt.Sprintf(`name: command-monitored
client:
  http: {url: %[1]q}
schedule:
  testers: 3
  tester_start_interval: 200ms
  tester_duration: 5s
  client_interval: 0s
monitor:
  - name: served
    format: command
    interval: 500ms
    command:
      argv: [%[2]s, -sf, --max-time, "1", "%[1]smetrics"]
      counters:
        served_total: '^diperf_target_served_total (\d+)$'
  - name: broken
    format: command
    command: {argv: [sh, -c, "echo nope >&2; exit 2"], counters: {x: '(\d+)'}}
`, url, curl))
	out := filepath.Join(t.TempDir(), "run")
	if r := diperf(t, time.Minute, "run", exp, "--out", out); r.code != 0 {
		t.Fatalf("a failing command endpoint must not fail the run: exit %d\n%s", r.code, r.stderr)
	}
	tab := readCSV(t, filepath.Join(out, "monitor.csv"), "endpoint", "metric", "value")
	seen := map[string]int{}
	for _, row := range tab.rows {
		seen[row.str(t, "endpoint")+" "+row.str(t, "metric")+" "+row.str(t, "value")]++
	}
	if seen["broken up 0"] == 0 || seen["broken up 1"] > 0 {
		t.Errorf("the failing command's scrapes: %d up 0, %d up 1; want all failed", seen["broken up 0"], seen["broken up 1"])
	}
	n, mx, med := runValidate(t, out, "--endpoint", "served", "--counter", "served_total")
	t.Logf("%d windows compared, max |difference| %.3f%%, median %.3f%%", n, mx, med)
	v := caseValidate(t, out, "served", "served_total", 1, 50)
	fin := v.Cum.Final
	if fin.Server < 100 || math.Abs(fin.Calls) > fin.Allowed {
		t.Errorf("totals: the server counted %.0f calls, %+.0f from the clients' (allowed %.1f)", fin.Server, fin.Calls, fin.Allowed)
	}
	ev, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil || !strings.Contains(string(ev), "exit status 2: nope") {
		t.Errorf("events.jsonl does not say why the broken command failed (exit status 2: nope)")
	}
}
