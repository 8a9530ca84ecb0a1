package e2e

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
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
	rows := readTesters(t, dir)
	clients := readCSVFile(t, filepath.Join(dir, "clients.csv"))
	if len(clients) != len(rows)+1 {
		t.Fatalf("%d testers, %d clients", len(rows), len(clients)-1)
	}
	for i, row := range rows {
		rtt, err := strconv.ParseFloat(row[20], 64)
		if err != nil || rtt <= 0 || rtt > 50 {
			t.Errorf("tester %s: target_rtt_ms %q, want (0, 50] ms", row[0], row[20])
			continue
		}
		lat, _ := strconv.ParseFloat(clients[i+1][6], 64)
		if math.Abs(lat-rtt) > 1e-3 {
			t.Errorf("tester %s: clients.csv latency_ms %v, want the target round trip %v", row[0], lat, rtt)
		}
	}
}

// readCSVFile reads a whole CSV file, header included.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// serverServed sums the target's own served-per-second counts.
func serverServed(t *testing.T, dir string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "server.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 || fmt.Sprint(rows[0]) != "[unix_s served]" {
		t.Fatalf("server.csv: %v %v", rows, err)
	}
	n := 0
	for _, r := range rows[1:] {
		v, _ := strconv.Atoi(r[1])
		n += v
	}
	return n
}
