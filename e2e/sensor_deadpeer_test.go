package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// TestSensorsTestOnPastADeadPeer: two real sensors and a third registered
// at an address that accepts and never answers. Each try to it costs its
// answer time (1 s), not the 5 s of a handshake timeout nor the ~130 s of
// SYN retries; it is held back, and the live pair is tested on, at about a
// test per period; each sensor says at its end how many tests missed as
// their peer did not answer.
func TestSensorsTestOnPastADeadPeer(t *testing.T) {
	dir := t.TempDir()
	tok := []byte("an-e2e-mesh-token-of-enough-bytes")
	token, addr := filepath.Join(dir, "tok"), freeAddr(t)
	if err := os.WriteFile(token, tok, 0o600); err != nil {
		t.Fatal(err)
	}
	startDirectory(t, addr, filepath.Join(dir, "dir.db"), token)
	url := "http://" + addr
	c, err := directory.NewClient(url, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitUp(t, c)
	mute, err := net.Listen("tcp", "127.0.0.1:0") // accepted by the kernel, never answered
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	reg := directory.Registration{Name: "dead", Address: mute.Addr().String(), Version: "dev",
		Groups: []string{"local", "site:A"}, Capabilities: []string{"bandwidth", "latency"}}
	if _, err := c.Register(context.Background(), reg); err != nil {
		t.Fatal(err)
	}
	var sensors []*exec.Cmd
	for _, name := range []string{"s1", "s2"} {
		s := exec.Command(bin, "sensor", "--directory", url, "--token-file", token, "--listen", freeAddr(t),
			"--name", name, "--site", "A", "--period", "300ms", "--test-time", "200ms")
		s.Stdout, s.Stderr = &lockedBuffer{}, &lockedBuffer{}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Process.Kill(); s.Wait() })
		sensors = append(sensors, s)
	}
	const run = 8 * time.Second
	time.Sleep(run)
	missedRe := regexp.MustCompile(`(\d+) missed as the peer did not answer`)
	for _, s := range sensors {
		_ = s.Process.Signal(syscall.SIGINT)
		if err := s.Wait(); err != nil {
			t.Errorf("a sensor interrupted: %v", err)
		}
		m := missedRe.FindStringSubmatch(s.Stdout.(*lockedBuffer).String())
		if n, _ := strconv.Atoi(append(m, "", "")[1]); n == 0 {
			t.Errorf("%s did not say it missed tests to the dead peer: %s\n%s", s.Args[9], s.Stdout, s.Stderr)
		}
	}
	rs, err := c.Results(context.Background(), directory.Query{Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range rs {
		per[r.Src]++
	}
	// 8 s: the dead peer takes ~1 s a try, tried after 0.3, 0.6, 1.2,
	// 2.4 s of hold; the rest is a test every 0.3–0.4 s, less busy
	// retries between the two: 5 each at least
	t.Logf("results in %v: %v", run, per)
	if per["s1"] < 5 || per["s2"] < 5 {
		t.Errorf("results in %v: %v; want 5 from each sensor at least", run, per)
	}
}
