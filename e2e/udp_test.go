package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// udpExperiment is a small local run whose testers send their samples
// as datagrams (controller.transport: udp).
const udpExperiment = `name: udp
client:
  exec: ["true"]
controller:
  transport: udp
schedule:
  testers: 3
  tester_start_interval: 100ms
  tester_duration: 2s
  client_interval: 5ms
`

// runUDP runs udpExperiment with env added and returns its run directory.
func runUDP(t *testing.T, env ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	r := diperfEnv(t, 2*time.Minute, env, "run", writeExperiment(t, udpExperiment), "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	checkRunDir(t, out)
	return out
}

// udpTotals checks each tester's row of testers.csv against
// samples.parquet (samples_lost = produced − stored, exactly) and
// returns the run's sums: samples produced, stored, lost, datagrams lost.
func udpTotals(t *testing.T, dir string) (sent, stored, lost, dgLost int) {
	t.Helper()
	rows := samplesPerTester(t, dir)
	for _, r := range readTesters(t, dir) {
		i, s, l := r.int(t, "index"), r.int(t, "samples_sent"), r.int(t, "samples_lost")
		got := rows[int32(i)]
		if r.str(t, "transport") != "udp" || r.str(t, "udp_loss_exact") != "true" || r.int(t, "udp_datagrams") == 0 {
			t.Errorf("tester %d: transport %s, exact %s, %d datagrams: want udp, exact, some", i,
				r.str(t, "transport"), r.str(t, "udp_loss_exact"), r.int(t, "udp_datagrams"))
		}
		if s == 0 || l != s-got || r.int(t, "samples_received") != got {
			t.Errorf("tester %d: produced %d, received %d, lost %d; samples.parquet has %d", i, s,
				r.int(t, "samples_received"), l, got)
		}
		sent, stored, lost, dgLost = sent+s, stored+got, lost+l, dgLost+r.int(t, "udp_datagrams_lost")
	}
	return
}

// TestRunUDPStoresEverySample runs real testers sending their samples
// as datagrams to a real controller on loopback: every sample is stored,
// nothing is reported lost.
func TestRunUDPStoresEverySample(t *testing.T) {
	t.Parallel()
	out := runUDP(t)
	sent, stored, lost, dgLost := udpTotals(t, out)
	s := readSummary(t, out)
	if lost != 0 || dgLost != 0 || stored != sent || s.Samples.Lost != 0 || s.Samples.Total != sent {
		t.Errorf("produced %d, stored %d, lost %d (%d datagrams); summary %+v", sent, stored, lost, dgLost, s.Samples)
	}
	if u := s.Samples.UDP; u == nil || !u.Exact || u.Lost != 0 || u.Datagrams == 0 {
		t.Errorf("summary samples.udp %+v: want datagrams, none lost, exact", u)
	}
}

// TestRunUDPLossCountedExactly has every tester drop every third
// datagram it seals (the test hook DIPERF_TEST_UDP_DROP_EVERY: sealed,
// never sent): the loss is real, and testers.csv, summary.json and the
// report give it exactly, produced − stored.
func TestRunUDPLossCountedExactly(t *testing.T) {
	t.Parallel()
	out := runUDP(t, "DIPERF_TEST_UDP_DROP_EVERY=3")
	sent, stored, lost, dgLost := udpTotals(t, out)
	if lost == 0 || lost != sent-stored || dgLost == 0 {
		t.Fatalf("produced %d, stored %d, lost %d (%d datagrams): want a loss, exactly produced − stored", sent, stored, lost, dgLost)
	}
	for _, r := range readTesters(t, out) {
		got, lostDg := r.int(t, "udp_datagrams"), r.int(t, "udp_datagrams_lost")
		if lostDg != (got+lostDg)/3 { // numbers 3, 6, 9, ... of the datagrams sealed
			t.Errorf("tester %s: %d datagrams received, %d lost; want every third lost", r.str(t, "index"), got, lostDg)
		}
	}
	s := readSummary(t, out)
	if s.Samples.Lost != lost || s.Samples.Total != stored || s.Samples.UDP == nil || int(s.Samples.UDP.Lost) != dgLost {
		t.Errorf("summary samples %+v (udp %+v); want lost %d, total %d, %d datagrams lost", s.Samples, s.Samples.UDP, lost, stored, dgLost)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "lost " + itoa(lost) + " (UDP: "; !strings.Contains(string(html), want) {
		t.Errorf("report.html lacks %q", want)
	}
}

// TestBenchControllerUDP loads a real controller with 20 tester sessions
// sending datagrams for 5 s (longer than a silent tester lives: their
// datagrams are their sign of life, they send nothing else): what it
// stored is what was sent less what it reports lost.
func TestBenchControllerUDP(t *testing.T) {
	dir := t.TempDir()
	r := diperf(t, 2*time.Minute, "bench", "controller", "--transport", "udp", "--testers", "20", "--rate", "1000", "--duration", "5s",
		"--keep", "--dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	got := lastJSON(t, r.stdout)
	sent, stored, lost, ctl := got["sent"].(float64), got["stored"].(float64), got["lost"].(float64), got["controller_lost"].(float64)
	if sent < 4900 || lost != sent-stored || ctl != lost || got["transport"] != "udp" {
		t.Errorf("sent %v, stored %v, lost %v, controller's loss %v, transport %v: want lost = sent − stored = the controller's",
			sent, stored, lost, ctl, got["transport"])
	}
	for _, row := range readTesters(t, filepath.Join(dir, "run")) {
		if row.str(t, "failed") != "false" {
			t.Errorf("tester %s failed: %s", row.str(t, "index"), row.str(t, "failure_reason"))
		}
	}
}

// lastJSON parses the last line of out, a JSON object.
func lastJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, out)
	}
	return got
}
