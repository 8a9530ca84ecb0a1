package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run whose client appends one line per call to a log, stamped with
// the call's time: a log endpoint that reads each line's own stamp, and
// one that counts lines as they are read, each agree with the clients'
// successful calls per window and in total (diperf validate's rule);
// monitor.csv holds their lines_total rows.
func TestMonitorLogFollowsARun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	exp := writeExperiment(t, fmt.Sprintf(`name: log-monitored
client:
  exec: [sh, -c, "date +%%s.%%N >> %[1]s"]
schedule:
  testers: 3
  tester_start_interval: 100ms
  tester_duration: 4s
  client_interval: 0s
monitor:
  - name: stamped
    format: log
    interval: 500ms
    log:
      path: %[1]s
      match: '^(\d+\.\d+)$'
      time: {group: 1, layout: unix}
  - name: arrival
    format: log
    interval: 500ms
    log: {path: %[1]s}
`, log))
	out := filepath.Join(dir, "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s := readSummary(t, out)
	for _, ep := range []string{"stamped", "arrival"} {
		v := caseValidate(t, out, ep, "lines_total", 1, 20)
		t.Logf("%s: %d calls ok, %d of %d windows checked, max |difference| %.2f%%, cumulative worst %+.0f calls",
			ep, s.Samples.OK, v.Checked, len(v.Intervals), v.MaxPct, v.Cum.Worst.Calls)
		if v.Calls < 50 {
			t.Errorf("%s: %d calls compared, want at least 50", ep, v.Calls)
		}
	}
	tab := readCSV(t, filepath.Join(out, "monitor.csv"), "endpoint", "metric", "value")
	last := map[string]float64{}
	for _, row := range tab.rows {
		if row.str(t, "metric") == "lines_total" {
			last[row.str(t, "endpoint")] = row.float(t, "value")
		}
	}
	if int(last["stamped"]) != s.Samples.OK || int(last["arrival"]) != s.Samples.OK {
		t.Errorf("lines_total at the end %v, want every successful call: %d", last, s.Samples.OK)
	}
	if html, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(html), "graph-k-server-log") {
		t.Errorf("report.html has no log graph (graph-k-server-log): %v", err)
	}
	if strings.Contains(r.stderr, "panic") {
		t.Errorf("stderr: %s", r.stderr)
	}
}
