package e2e

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDemoFindsTheKnownCapacity runs the demo against targets of known
// capacity C/S: saturation must be found at a load of C (±15%) and a
// throughput of C/S (±5%). The tests run one at a time: they measure.
func TestDemoFindsTheKnownCapacity(t *testing.T) {
	tests := []struct {
		name string
		args []string // demo flags
		c    int
		s    time.Duration
	}{
		// the README's command, as a newcomer runs it: defaults, under 2 minutes
		{"readme defaults", nil, 8, 400 * time.Millisecond},
		// a small service, reached quickly
		{"C=4 S=200ms", []string{"--testers", "10", "--tester-start-interval", "500ms", "--tester-duration", "12s",
			"--workers", "4", "--service-time", "200ms"}, 4, 200 * time.Millisecond},
		// a wider, slower service
		{"C=12 S=300ms", []string{"--testers", "24", "--tester-start-interval", "500ms", "--tester-duration", "20s",
			"--workers", "12", "--service-time", "300ms"}, 12, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "demo")
			start := time.Now()
			r := diperf(t, 2*time.Minute, append([]string{"demo", "--out", out}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			t.Logf("demo %s took %v", tt.name, time.Since(start).Round(time.Second))
			checkRunDir(t, out)
			checkTargetRTT(t, out)
			s := readSummary(t, out)
			capacity := float64(tt.c) / tt.s.Seconds()
			sat := s.Saturation
			t.Logf("saturation %+v; want load %d, throughput %.1f", sat, tt.c, capacity)
			if !sat.Saturated || math.Abs(sat.Load-float64(tt.c)) > 0.15*float64(tt.c) {
				t.Errorf("saturation load %.2f (saturated %v), want %d ± 15%%", sat.Load, sat.Saturated, tt.c)
			}
			if math.Abs(sat.Throughput-capacity) > 0.05*capacity {
				t.Errorf("saturation throughput %.2f, want %.1f ± 5%%", sat.Throughput, capacity)
			}
			if served := serverServed(t, out); math.Abs(float64(served-s.Samples.OK)) > 0.01*float64(served) {
				t.Errorf("server view served %d calls, clients saw %d ok", served, s.Samples.OK)
			}
			if !strings.Contains(r.stdout, "report: "+filepath.Join(out, "report.html")) {
				t.Errorf("demo does not print the report path:\n%s", r.stdout)
			}
		})
	}
}

// checkTargetRTT checks that every tester measured its round trip to the
// target (a loopback port here: well under 50 ms) and that clients.csv
// reports it as the tester's network latency.
func checkTargetRTT(t *testing.T, dir string) {
	t.Helper()
	testers := readTesters(t, dir)
	clients := readCSV(t, filepath.Join(dir, "clients.csv"), "index", "latency_ms").rows
	if len(clients) != len(testers) {
		t.Fatalf("%d testers, %d clients", len(testers), len(clients))
	}
	latency := map[string]float64{}
	for _, c := range clients {
		latency[c.str(t, "index")] = c.float(t, "latency_ms")
	}
	for _, row := range testers {
		index, rtt := row.str(t, "index"), row.float(t, "target_rtt_ms")
		if rtt <= 0 || rtt > 50 {
			t.Errorf("tester %s: target_rtt_ms %v, want (0, 50] ms", index, rtt)
			continue
		}
		lat, ok := latency[index]
		if !ok {
			t.Errorf("tester %s has no row in clients.csv", index)
		} else if math.Abs(lat-rtt) > 1e-3 {
			t.Errorf("tester %s: clients.csv latency_ms %v, want the target round trip %v", index, lat, rtt)
		}
	}
}

// serverServed sums the target's own served-per-second counts.
func serverServed(t *testing.T, dir string) int {
	t.Helper()
	tab := readCSV(t, filepath.Join(dir, "server.csv"), "unix_s", "served")
	if len(tab.rows) == 0 {
		t.Fatal("server.csv has no rows")
	}
	n := 0
	for _, r := range tab.rows {
		n += r.int(t, "served")
	}
	return n
}
