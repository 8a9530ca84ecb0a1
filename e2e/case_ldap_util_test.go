package e2e

import (
	"math"
	"path/filepath"
	"testing"
)

// ldapWin is what slapd's own record (monitor.csv) says of the run's
// saturated window: the quanta whose load is at least half the largest.
type ldapWin struct {
	start, end float64 // s on the run's timeline
	searches   float64 // searches slapd completed in it
	cpu        float64 // CPU seconds slapd used in it
	share      float64 // cpu per second: the share of one CPU
	capacity   float64 // quota / (cpu per search), calls/s
	lo, hi     float64 // the least and largest capacity of its scrape intervals
}

// ldapWindow finds the saturated window in quanta.csv and reads slapd's
// searches and CPU seconds at each scrape in it.
func ldapWindow(t *testing.T, dir string, originNs int64, quotaPct int) ldapWin {
	t.Helper()
	var w ldapWin
	quanta := readCSV(t, filepath.Join(dir, "quanta.csv"), "t_s", "load").rows
	var maxLoad float64
	for _, r := range quanta {
		maxLoad = max(maxLoad, r.float(t, "load"))
	}
	first := true
	for _, r := range quanta {
		if r.float(t, "load") >= maxLoad/2 {
			if first {
				w.start, first = r.float(t, "t_s"), false
			}
			w.end = r.float(t, "t_s") + 1 // the quantum is 1 s (experiment.yaml)
		}
	}
	var ts, n, c []float64 // per scrape in the window: time, searches, CPU seconds
	at := map[string]int{}
	for _, r := range readCSV(t, filepath.Join(dir, "monitor.csv"), "time_ns", "endpoint", "metric", "value").rows {
		m, stamp := r.str(t, "metric"), r.str(t, "time_ns")
		if r.str(t, "endpoint") != "slapd" || (m != "slapd_searches" && m != "slapd_cpu_seconds") {
			continue
		}
		sec := float64(int64(r.int(t, "time_ns"))-originNs) / 1e9
		if sec < w.start || sec > w.end {
			continue
		}
		i, ok := at[stamp]
		if !ok {
			i, at[stamp] = len(ts), len(ts)
			ts, n, c = append(ts, sec), append(n, 0), append(c, 0)
		}
		if m == "slapd_searches" {
			n[i] = r.float(t, "value")
		} else {
			c[i] = r.float(t, "value")
		}
	}
	if len(ts) < 3 {
		t.Fatalf("monitor.csv: %d scrapes of slapd in %.1f-%.1f s", len(ts), w.start, w.end)
	}
	k := len(ts) - 1
	w.searches, w.cpu = n[k]-n[0], c[k]-c[0]
	dt := ts[k] - ts[0]
	w.lo, w.hi = math.Inf(1), 0
	for i := 1; i <= k; i++ {
		if n[i] > n[i-1] && c[i] > c[i-1] {
			capi := float64(quotaPct) / 100 / ((c[i] - c[i-1]) / (n[i] - n[i-1]))
			w.lo, w.hi = min(w.lo, capi), max(w.hi, capi)
		}
	}
	if w.searches <= 0 || w.cpu <= 0 || dt < 2 {
		t.Fatalf("monitor.csv: slapd's record of %.1f-%.1f s: %.0f searches, %.3f s of CPU over %.1f s", w.start, w.end, w.searches, w.cpu, dt)
	}
	w.share = w.cpu / dt
	w.capacity = float64(quotaPct) / 100 / (w.cpu / w.searches)
	return w
}

// ldapServed is the searches slapd completed from the run's first scrape
// to its last (monitor.csv's slapd_searches).
func ldapServed(t *testing.T, dir string) float64 {
	t.Helper()
	var vals []float64
	for _, r := range readCSV(t, filepath.Join(dir, "monitor.csv"), "endpoint", "metric", "value").rows {
		if r.str(t, "endpoint") == "slapd" && r.str(t, "metric") == "slapd_searches" {
			vals = append(vals, r.float(t, "value"))
		}
	}
	if len(vals) < 2 {
		t.Fatalf("monitor.csv has %d scrapes of slapd_searches", len(vals))
	}
	return vals[len(vals)-1] - vals[0]
}
