package e2e

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUDPNoReplyIsNamedSo runs the udp client against a port that takes
// datagrams and never answers: every call is the class no_reply (not
// "lost", which names samples lost on their way to the controller: none
// here), the summary's classes add up to the total, and the run fails
// (exit 1) saying that every call got no reply; `diperf analyze` of the
// run says so again, with the same exit.
func TestUDPNoReplyIsNamedSo(t *testing.T) {
	t.Parallel()
	silent, err := net.ListenPacket("udp", "127.0.0.1:0") // never read: no reply, no ICMP
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	exp := writeExperiment(t, `name: silent
client:
  udp: {address: "`+silent.LocalAddr().String()+`", send: ping}
  timeout: 100ms
schedule:
  testers: 1
  tester_duration: 1s
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out, "--ui", "off")
	s := readSummary(t, out)
	c := s.Samples
	if c.Total < 5 || s.Errors["no_reply"] != c.Total || s.Errors["lost"] != 0 || c.LostInTransport != 0 ||
		c.OK+c.Failed+c.Cancelled != c.Total {
		t.Errorf("samples %+v errors %v: want every call no_reply, nothing lost in transport", c, s.Errors)
	}
	why := "every call failed: no_reply " + itoa(c.Total) + " × 'no reply within 100ms'"
	if r.code != 1 || !strings.Contains(r.stderr, why) {
		t.Errorf("exit %d, want 1 and %q\nstdout %s\nstderr %s", r.code, why, r.stdout, r.stderr)
	}
	line := "samples        " + itoa(c.Total) + " total = 0 ok + " + itoa(c.Total) + " failed (no_reply " + itoa(c.Total) +
		"); 0 lost in transport"
	if !strings.Contains(r.stdout, line) {
		t.Errorf("summary table lacks %q:\n%s", line, r.stdout)
	}
	a := diperf(t, time.Minute, "analyze", out)
	if a.code != 1 || !strings.Contains(a.stderr, why) {
		t.Errorf("analyze: exit %d, want 1 and %q\nstderr %s", a.code, why, a.stderr)
	}
}
