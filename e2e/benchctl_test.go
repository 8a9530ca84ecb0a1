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
		t.Run(mode, func(t *testing.T) { benchController(t, mode) })
	}
}

func benchController(t *testing.T, mode string) {
	r := diperf(t, 2*time.Minute, "bench", "controller", "--testers", "20", "--rate", "2000", "--duration", "2s",
		"--mode", mode)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"sent", "received", "stored", "lost", "samples_per_s", "controller_rss_mb",
		"controller_cpu_s", "bytes_per_tester", "connect_s", "drain_s"} {
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
}

// TestBenchControllerBadTransport refuses a transport the benchmark does
// not have, as a usage error that names the ones it has.
func TestBenchControllerBadTransport(t *testing.T) {
	r := diperf(t, 30*time.Second, "bench", "controller", "--transport", "pigeon")
	if r.code != 2 || !strings.Contains(r.stderr, "want tcp, udp or ssh") {
		t.Errorf("exit %d, stderr %q; want 2 and the transports it has", r.code, r.stderr)
	}
}
