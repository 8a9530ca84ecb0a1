package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBenchController loads a real controller (diperf run, a child of the
// benchmark) with 20 tester sessions at 2,000 samples/s for 2 s: every
// sample sent is stored, and the JSON line holds every figure; in both
// controller modes.
func TestBenchController(t *testing.T) {
	for _, mode := range []string{"disk", "memory"} {
		t.Run(mode, func(t *testing.T) {
			if got := benchController(t, mode); got["generator_processes"] != 1.0 {
				t.Errorf("generator processes %v, want 1", got["generator_processes"])
			}
		})
	}
}

// TestBenchControllerGeneratorProcesses spreads the 20 testers over two
// generator processes of 10 (as past RLIMIT_NOFILE): their counts add up
// to what the controller stored, none lost.
func TestBenchControllerGeneratorProcesses(t *testing.T) {
	got := benchController(t, "disk", "--testers-per-process", "10")
	if got["generator_processes"] != 2.0 {
		t.Errorf("generator processes %v, want 2", got["generator_processes"])
	}
	if got["acked"] != got["sent"] {
		t.Errorf("acked %v of %v sent", got["acked"], got["sent"])
	}
}

// benchController runs bench controller with 20 testers at 2,000
// samples/s for 2 s and checks its JSON line, which it returns.
func benchController(t *testing.T, mode string, extra ...string) map[string]any {
	args := append([]string{"bench", "controller", "--testers", "20", "--rate", "2000", "--duration", "2s", "--mode", mode}, extra...)
	r := diperf(t, 2*time.Minute, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"sent", "received", "stored", "lost", "samples_per_s", "controller_rss_mb",
		"controller_cpu_s", "bytes_per_tester", "connect_s", "drain_s", "controller_processes", "rss_end_mb",
		"generator_processes", "generator_cpu_s"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, lines[len(lines)-1])
		}
	}
	sent, stored, received := got["sent"].(float64), got["stored"].(float64), got["received"].(float64)
	if sent < 3900 || sent > 4000 || stored != sent || received != sent || got["lost"].(float64) != 0 {
		t.Errorf("sent %v, received %v, stored %v, lost %v: want about 4,000 sent, all of them stored",
			sent, received, stored, got["lost"])
	}
	if got["mode"] != mode {
		t.Errorf("mode %v, want %s", got["mode"], mode)
	}
	if got["controller_rss_mb"].(float64) <= 0 || got["failed_sessions"].(float64) != 0 {
		t.Errorf("controller RSS %v MB, failed sessions %v", got["controller_rss_mb"], got["failed_sessions"])
	}
	if !strings.Contains(r.stderr, "received") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}
	if got["controller_processes"].(float64) < 1 || got["rss_end_mb"].(float64) <= 0 {
		t.Errorf("controller processes %v, RSS at the end %v MB", got["controller_processes"], got["rss_end_mb"])
	}
	if _, ok := got["rss_at_1min_mb"]; ok {
		t.Errorf("rss_at_1min_mb in a 2 s run: %v", got["rss_at_1min_mb"])
	}
	return got
}

// TestBenchControllerBadTransport refuses a transport the benchmark does
// not have, as a usage error that names the ones it has.
func TestBenchControllerBadTransport(t *testing.T) {
	r := diperf(t, 30*time.Second, "bench", "controller", "--transport", "pigeon")
	if r.code != 2 || !strings.Contains(r.stderr, "want tcp, udp or ssh") {
		t.Errorf("exit %d, stderr %q; want 2 and the transports it has", r.code, r.stderr)
	}
}
