package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cpuCapGroup makes a cgroup whose CPU quota is pct % of one core (cgroup
// v1's cpu hierarchy, else v2 with the cpu controller) and returns the
// file a process writes its pid into to join it; the test is skipped when
// this host lets it make none. The cgroup is removed when the test ends.
func cpuCapGroup(t *testing.T, pct int) string {
	t.Helper()
	name := fmt.Sprintf("diperf-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	period := 100000
	quota := period * pct / 100
	var dir, procs string
	var files map[string]string
	if _, err := os.Stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"); err == nil {
		dir, procs = filepath.Join("/sys/fs/cgroup/cpu", name), "cgroup.procs"
		files = map[string]string{"cpu.cfs_period_us": fmt.Sprint(period), "cpu.cfs_quota_us": fmt.Sprint(quota)}
	} else if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); err == nil && strings.Contains(string(b), "cpu") {
		dir, procs = filepath.Join("/sys/fs/cgroup", name), "cgroup.procs"
		files = map[string]string{"cpu.max": fmt.Sprintf("%d %d", quota, period)}
	} else {
		t.Skip("no cgroup cpu controller to cap the testers' CPU with (v1 /sys/fs/cgroup/cpu or v2 with cpu enabled)")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	t.Cleanup(func() {
		for range 50 { // its processes are gone once the run exits; the kernel may lag
			if os.Remove(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("cgroup %s not removed", dir)
	})
	for f, v := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644); err != nil {
			t.Fatalf("cgroup %s: %v", f, err)
		}
	}
	return filepath.Join(dir, procs)
}

// TestVerdictTestersStarvedOfCPU: a service of known capacity (2 workers
// × 50 ms = 40 calls/s) loaded by 6 exec testers whose whole run (the
// controller, the testers and their clients) shares 10% of one core: the
// testers reach a fraction of the capacity, their load in flight grows
// with their own delays and the throughput stays flat, which a load
// tester blind to itself calls "saturated". The run must say "limited by
// the testers", from the testers' own health (their CPU quota used up),
// in summary.json and the printed summary, and mark the quanta.
func TestVerdictTestersStarvedOfCPU(t *testing.T) {
	const capacity = 40.0 // calls/s, from the target's parameters
	procs := cpuCapGroup(t, 10)
	url := startTarget(t, 2, 50*time.Millisecond)
	exp := writeExperiment(t, `name: starved
target: `+url+`
client:
  exec: [`+bin+`, call, http, "$DIPERF_TARGET"]
  timeout: 10s
schedule:
  testers: 6
  tester_start_interval: 300ms
  tester_duration: 5s
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command("/bin/sh", "-c", `echo $$ > "$0" && shift && exec "$@"`, procs, "sh", bin, "run", exp, "--out", out, "--ui", "off")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("diperf run in a CPU-capped cgroup: %v\n%s", err, b)
	}
	s := readSummary(t, out)
	if s.Throughput.Max >= capacity/2 {
		t.Fatalf("the capped testers reached %.1f calls/s of a capacity of %.0f: the cap did not starve them, the test shows nothing", s.Throughput.Max, capacity)
	}
	if s.Saturation.Verdict != "tester_limited" || s.Saturation.Saturated {
		t.Errorf("verdict %q (saturated %v, %s), want tester_limited: the service had %.0f calls/s to spare",
			s.Saturation.Verdict, s.Saturation.Saturated, s.Saturation.Evidence, capacity-s.Throughput.Max)
	}
	if !strings.Contains(string(b), "limited by the testers") {
		t.Errorf("the printed summary does not say \"limited by the testers\":\n%s", b)
	}
	q := readCSV(t, filepath.Join(out, "quanta.csv"), "tester_bound")
	bound := 0
	for _, r := range q.rows {
		if r.str(t, "tester_bound") != "" {
			bound++
		}
	}
	if bound == 0 {
		t.Errorf("no quantum of %d marked tester_bound", len(q.rows))
	}
}
