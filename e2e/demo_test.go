package e2e

import (
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDemoFindsTheKnownCapacity runs the demo against targets of known
// capacity C/S: saturation must be found at a throughput of C/S (±5%),
// and at the load where C/S is reached without queueing (±15%). Each
// tester's call takes the light-load response time R0 = S + o, o being
// what the call adds to the service time (starting the client process,
// the HTTP exchange: about 15 ms here, more on a busy machine), so that
// load is N* = C·R0/S (Denning and Buzen's knee, the client overhead as
// think time): C when o is nothing, C·(1 + o/S) in fact. The tests run one
// at a time: they measure.
//
// The per-second throughput of a saturated target is exactly C/S only
// when a second holds a whole number of service times: each worker then
// serves 1/S calls in every second. With S = 300 ms a worker serves 3 or
// 4 calls in a second depending on its phase, and the median second
// ranges from 36 to 48 calls as the workers' phases drift on a busy
// machine; the wide service therefore has S = 250 ms.
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
		// a wider service, of a higher capacity
		{"C=12 S=250ms", []string{"--testers", "24", "--tester-start-interval", "500ms", "--tester-duration", "20s",
			"--workers", "12", "--service-time", "250ms"}, 12, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "demo")
			start := time.Now()
			var r result
			if tt.args == nil {
				out, r = readmeDemo(t) // shared with TestPredictOnDemo
			} else {
				r = diperf(t, 2*time.Minute, append([]string{"demo", "--out", out}, tt.args...)...)
			}
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			t.Logf("demo %s took %v", tt.name, time.Since(start).Round(time.Second))
			checkRunDir(t, out)
			checkTargetRTT(t, out)
			s := readSummary(t, out)
			capacity := float64(tt.c) / tt.s.Seconds()
			r0 := lightResponseMs(t, out, float64(tt.c)/2)
			knee := float64(tt.c) * r0 / float64(tt.s.Milliseconds())
			sat := s.Saturation
			t.Logf("saturation %+v; light-load response time %.1f ms; want load %.2f, throughput %.1f", sat, r0, knee, capacity)
			if r0 < float64(tt.s.Milliseconds()) {
				t.Errorf("light-load response time %.1f ms, below the service time %v", r0, tt.s)
			}
			if !sat.Saturated || math.Abs(sat.Load-knee) > 0.15*knee {
				t.Errorf("saturation load %.2f (saturated %v), want C·R0/S = %.2f ± 15%%", sat.Load, sat.Saturated, knee)
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

// lightResponseMs returns R0, the mean response time (ms) of the
// successful calls of the quanta whose load is at most maxLoad: below the
// capacity, no call queues.
func lightResponseMs(t *testing.T, dir string, maxLoad float64) float64 {
	t.Helper()
	var sum float64
	var n int
	for _, r := range readCSV(t, filepath.Join(dir, "quanta.csv"), "load", "ok", "rt_mean_ms").rows {
		if ok := r.int(t, "ok"); ok > 0 && r.float(t, "load") <= maxLoad {
			sum += r.float(t, "rt_mean_ms") * float64(ok)
			n += ok
		}
	}
	if n == 0 {
		t.Fatalf("no successful call at a load of at most %g", maxLoad)
	}
	return sum / float64(n)
}

// The README's demo, run once for the tests that read it.
var readme struct {
	once sync.Once
	out  string
	r    result
}

// readmeDemo runs `diperf demo` with its defaults, as the README's first
// command does, the first time it is called, and returns its run
// directory and what the command did: TestDemoFindsTheKnownCapacity and
// TestPredictOnDemo read the same 40 s run.
func readmeDemo(t *testing.T) (string, result) {
	t.Helper()
	readme.once.Do(func() {
		readme.out = filepath.Join(filepath.Dir(bin), "readme-demo")
		readme.r = diperf(t, 2*time.Minute, "demo", "--out", readme.out)
	})
	return readme.out, readme.r
}
