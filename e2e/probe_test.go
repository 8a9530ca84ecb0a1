package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

const probeToken = "an-e2e-probe-token-of-enough-bytes"

// probeMesh starts the real directory (extra: its flags) and sensors a
// and b on loopback with a period of an hour (no scheduled test in the
// test's time), and waits until they are up; it returns the directory's
// URL, the token file, a client, and the sensors.
func probeMesh(t *testing.T, extra ...string) (string, string, *directory.Client, map[string]*exec.Cmd) {
	t.Helper()
	dir := t.TempDir()
	token := filepath.Join(dir, "tok")
	if err := os.WriteFile(token, []byte(probeToken), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	d := exec.Command(bin, append([]string{"directory", "--listen", addr, "--db", filepath.Join(dir, "dir.db"), "--token-file", token}, extra...)...)
	d.Stderr = &lockedBuffer{}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill(); d.Wait() })
	url := "http://" + addr
	c, err := directory.NewClient(url, []byte(probeToken), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitUp(t, c)
	sensors := map[string]*exec.Cmd{}
	for _, n := range []string{"a", "b"} {
		s := exec.Command(bin, "sensor", "--directory", url, "--token-file", token, "--listen", freeAddr(t), "--name", n,
			"--site", "S", "--period", "1h", "--test-time", "500ms", "--budget", "0.5")
		s.Stderr = &lockedBuffer{}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Process.Kill(); s.Wait() })
		sensors[n] = s
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, s := range sensors { // registered, its poll for probes open right after
		for !strings.Contains(s.Stderr.(*lockedBuffer).String(), "tests at") {
			if time.Now().After(deadline) {
				t.Fatalf("a sensor did not start within 10 s: %s", s.Stderr.(*lockedBuffer).String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	time.Sleep(time.Second) // the budget of 0.5 allows a 500 ms test 500 ms after the start
	return url, token, c, sensors
}

// TestProbeOnDemand: `diperf probe a b` has sensor a test b now; the
// result is printed, stored in the directory, and within seconds. A
// second probe while the first runs, and one past the rate, are refused
// with why; a requester without the token gets nothing; a probe whose
// sensor was killed (SIGKILL) does not hold the CLI past --timeout.
func TestProbeOnDemand(t *testing.T) {
	url, token, c, sensors := probeMesh(t, "--probes-per-minute", "5", "--probes-pending", "1")
	args := func(more ...string) []string {
		return append([]string{"probe", "a", "b", "--directory", url, "--token-file", token}, more...)
	}
	first := exec.Command(bin, args("--json")...)
	var out lockedBuffer
	first.Stdout, first.Stderr = &out, &lockedBuffer{}
	start := time.Now()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(first.Stderr.(*lockedBuffer).String(), "asked to test") && time.Since(start) < 5*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	second := diperf(t, 10*time.Second, args()...)
	if second.code != 1 || !strings.Contains(second.stderr, "429") || !strings.Contains(second.stderr, "1 of your probes are pending or running") {
		t.Errorf("a second probe while the first runs: exit %d, %s; want 1 and the 429 saying why", second.code, second.stderr)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first probe: %v\n%s", err, first.Stderr.(*lockedBuffer).String())
	}
	took := time.Since(start)
	var p directory.Probe
	if err := json.Unmarshal([]byte(out.String()), &p); err != nil || p.State != directory.ProbeDone || p.Result == nil || p.Result.BandwidthBps <= 0 {
		t.Fatalf("the first probe: %v, %s", err, out.String())
	}
	if took > 5*time.Second {
		t.Errorf("a 500 ms test took %v from the request to the result; want ~1 s", took)
	}
	rs, err := c.Results(context.Background(), directory.Query{Src: "a", Dst: "b"})
	if err != nil || len(rs) != 1 || rs[0].ID != p.Result.ID {
		t.Errorf("results a → b in the directory: %+v, %v; want the probe's, id %d, alone (no scheduled test)", rs, err, p.Result.ID)
	}
	lat := diperf(t, 10*time.Second, args("--kind", "latency")...)
	if lat.code != 0 || !strings.Contains(lat.stdout, "latency   a → b: ") || !strings.Contains(lat.stdout, "s (p50 ") {
		t.Errorf("a latency probe: exit %d, %q, %s", lat.code, lat.stdout, lat.stderr)
	}
	unknown := diperf(t, 10*time.Second, "probe", "a", "nosuch", "--directory", url, "--token-file", token)
	if unknown.code != 2 || !strings.Contains(unknown.stderr, "the directory knows the sensors a (live), b (live)") {
		t.Errorf("an unknown sensor: exit %d, %s; want 2 naming the sensors", unknown.code, unknown.stderr)
	}
	probeAttacks(t, url, token, args, sensors)
}

// probeAttacks: no token, a killed sensor, a flood past the rate.
func probeAttacks(t *testing.T, url, token string, args func(...string) []string, sensors map[string]*exec.Cmd) {
	wrong := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrong, []byte("not-the-token-but-long-enough-0123"), 0o600); err != nil {
		t.Fatal(err)
	}
	nt := diperf(t, 10*time.Second, "probe", "a", "b", "--directory", url, "--token-file", wrong)
	if nt.code != 1 || !strings.Contains(nt.stderr, "401") {
		t.Errorf("without the token: exit %d, %s; want 1 and 401", nt.code, nt.stderr)
	}
	if err := sensors["a"].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	sensors["a"].Wait()
	start := time.Now()
	hung := diperf(t, 10*time.Second, args("--timeout", "2s")...)
	if hung.code != 1 || !strings.Contains(hung.stderr, "no answer within --timeout 2s") || time.Since(start) > 4*time.Second {
		t.Errorf("a probe of a killed sensor: exit %d after %v, %s; want 1 after 2 s, saying so", hung.code, time.Since(start), hung.stderr)
	}
	flood := diperf(t, 10*time.Second, args()...)
	if flood.code != 1 || !strings.Contains(flood.stderr, "5 probes a minute from one address at most; the next one possible in") {
		t.Errorf("the 6th probe in a minute: exit %d, %s; want 1, refused with when the next is possible", flood.code, flood.stderr)
	}
}
