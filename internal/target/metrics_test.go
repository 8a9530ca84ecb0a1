package target

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// metricNames are all metrics the service must expose.
var metricNames = []string{
	"diperf_target_served_total",
	"diperf_target_rejected_total",
	"diperf_target_in_service",
	"diperf_target_queued",
	"diperf_target_workers",
	"diperf_target_service_time_seconds",
}

// metricValues fetches /metrics, checks that it is Prometheus text (HELP
// and TYPE comments, every other line "name value") and returns the values.
func metricValues(t *testing.T, ts *testServer) map[string]float64 {
	t.Helper()
	code, body := ts.mustGet(t, PathMetrics)
	if code != http.StatusOK {
		t.Fatalf("/metrics status %d", code)
	}
	vals := map[string]float64{}
	typed := map[string]bool{}
	for line := range strings.Lines(body) {
		line = strings.TrimSuffix(line, "\n")
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			f := strings.Fields(rest)
			if len(f) != 2 || (f[1] != "counter" && f[1] != "gauge") {
				t.Fatalf("bad TYPE line %q", line)
			}
			typed[f[0]] = true
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("line %q is not `name value`", line)
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if !typed[f[0]] {
			t.Errorf("metric %s has no preceding # TYPE", f[0])
		}
		vals[f[0]] = v
	}
	return vals
}

func TestMetrics(t *testing.T) {
	bubble(t, func(t *testing.T) { checkMetrics(t) })
}

// checkMetrics makes two calls and checks every metric's value.
func checkMetrics(t *testing.T) {
	ts := newStarted(t, Config{Workers: 3, ServiceTime: 5 * time.Millisecond, Dist: DistFixed, Queue: 8}, nil)
	for range 2 {
		ts.mustGet(t, "/")
	}
	vals := metricValues(t, ts)
	for _, name := range metricNames {
		if _, ok := vals[name]; !ok {
			t.Errorf("metric %s missing", name)
		}
	}
	want := map[string]float64{
		"diperf_target_served_total":         2,
		"diperf_target_rejected_total":       0,
		"diperf_target_in_service":           0,
		"diperf_target_queued":               0,
		"diperf_target_workers":              3,
		"diperf_target_service_time_seconds": 0.005,
	}
	for name, w := range want {
		if vals[name] != w {
			t.Errorf("%s = %v, want %v", name, vals[name], w)
		}
	}
}
