package e2e

import (
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
}

// ldapWindow finds the saturated window in quanta.csv and reads slapd's
// searches and CPU seconds at the first and last scrape in it.
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
	type read struct{ t, v float64 }
	firstOf, lastOf := map[string]read{}, map[string]read{}
	for _, r := range readCSV(t, filepath.Join(dir, "monitor.csv"), "time_ns", "endpoint", "metric", "value").rows {
		m := r.str(t, "metric")
		if r.str(t, "endpoint") != "slapd" || (m != "slapd_searches" && m != "slapd_cpu_seconds") {
			continue
		}
		at := float64(int64(r.int(t, "time_ns"))-originNs) / 1e9
		if at < w.start || at > w.end {
			continue
		}
		if _, ok := firstOf[m]; !ok {
			firstOf[m] = read{at, r.float(t, "value")}
		}
		lastOf[m] = read{at, r.float(t, "value")}
	}
	w.searches = lastOf["slapd_searches"].v - firstOf["slapd_searches"].v
	w.cpu = lastOf["slapd_cpu_seconds"].v - firstOf["slapd_cpu_seconds"].v
	dt := lastOf["slapd_cpu_seconds"].t - firstOf["slapd_cpu_seconds"].t
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
