package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// floodJoinExperiment is a join run of three testers that waits 10 s for
// them: %[1]s is the token file, %[2]s the listen address, %[3]s more of
// the controller section (relays).
const floodJoinExperiment = `name: flood
client:
  exec: [sleep, "0.05"]
testbed:
  provider: join
  token_file: %[1]s
  wait: 10s
controller:
  listen: %[2]s
%[3]sschedule:
  testers: %[4]d
  tester_start_interval: 0s
  tester_duration: 2s
  client_interval: 0s
`

// floodJoin is a join run of testers testers, with controller more.
func floodJoin(t *testing.T, testers int, more string) *joinSetup {
	t.Helper()
	s := joinNew(t, testers, "10s")
	s.exp = writeExperiment(t, fmt.Sprintf(floodJoinExperiment, s.token, s.addr, more, testers))
	return s
}

// TestPreAuthIdleFloodJoin holds 600 idle connections, each from its own
// source address, to a join run's port (the controller's, or its relays')
// while three testers join: every tester joins within the run's 10 s wait
// and runs, and the run exits 0. The same when each connection sends one
// byte and then nothing (it holds a handshake place for 10 s).
func TestPreAuthIdleFloodJoin(t *testing.T) {
	for _, tc := range []struct {
		name, more string
		say        []byte
	}{{"direct", "", nil}, {"relays", "  relays: 2\n", nil}, {"one-byte", "", []byte{0}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := floodJoin(t, 3, tc.more)
			run := hardenStartRun(t, s.mark, "run", s.exp, "--out", s.out, "--ui", "off")
			waitEvent(t, s.out, "batch-start", -1)
			flood := startFlood(t, s.addr, 600, tc.say)
			flood.waitOpen(t, 600)
			loop := s.joinShellLoop(t, "ok", 3, s.token)
			if code := run.wait(t, time.Minute); code != 0 {
				t.Fatalf("run exit %d\n%s", code, run.stderr.String())
			}
			loop.wait(t, 30*time.Second)
			for _, jt := range s.joinOutcomes(t, "ok", 3) {
				if jt.rc != 0 || jt.produced == 0 {
					t.Errorf("tester %s: exit %d, %d samples\n%s", jt.id, jt.rc, jt.produced, jt.stderr)
				}
			}
			if st := readSummary(t, s.out).Testers; st.Started != 3 || st.Failed != 0 {
				t.Errorf("under an idle flood: %+v", st)
			}
			t.Logf("flood: %d connections made, %d closed by the controller", flood.opened.Load(), flood.closed.Load())
		})
	}
}

// nofileExperiment is a local run whose testers start one a second, so
// that most start while the flood holds the controller's port.
const nofileExperiment = `name: nofile
client:
  exec: [sleep, "0.05"]
controller:
  listen: %s
schedule:
  testers: 4
  tester_start_interval: 1s
  tester_duration: 2s
  client_interval: 0s
`

// TestPreAuthFloodLeavesOwnFiles runs the controller with 512 open files
// at most (soft and hard) and holds 600 idle connections from as many
// sources to its port, or to its own TCP time server's: it still starts
// every local tester (each costs it pipes and a log file), they all run,
// and the run exits 0.
func TestPreAuthFloodLeavesOwnFiles(t *testing.T) {
	for _, tc := range []struct{ name, more, at string }{
		{"controller", "", "listening"},
		{"time-server", "sync:\n  transport: tcp\n", "time-server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exp := writeExperiment(t, fmt.Sprintf(nofileExperiment, freeAddr(t))+tc.more)
			out := filepath.Join(t.TempDir(), "run")
			mark := newMark(t)
			run := hardenStart(t, mark, exec.Command("sh", limitedCmd(512, "run", exp, "--out", out, "--ui", "off")...))
			addr, _ := waitEvent(t, out, tc.at, -1)["detail"].(string)
			flood := startIdleFlood(t, addr, 600)
			flood.waitOpen(t, 600)
			if code := run.wait(t, time.Minute); code != 0 {
				t.Fatalf("run exit %d\n%s", code, run.stderr.String())
			}
			if st := readSummary(t, out).Testers; st.Started != 4 || st.Failed != 0 {
				t.Errorf("with 512 files and an idle flood: %+v\n%s", st, run.stderr.String())
			}
			hardenNothingLost(t, out, mark, 4)
			var conns, per int
			d, _ := waitEvent(t, out, "pre-auth-limits", -1)["detail"].(string)
			if _, err := fmt.Sscanf(d, "at most %d connections not yet proved, %d from one source", &conns, &per); err != nil || conns > 512-(32+4*4) {
				t.Errorf("pre-auth limits %q at 512 open files, 4 local testers", d)
			}
		})
	}
}

// TestPreAuthDashboardFlood holds 600 idle connections to the dashboard of
// a run limited to 512 open files: a request with the run's token is
// still answered within 3 s, and the run's testers run.
func TestPreAuthDashboardFlood(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	token := "e2e-preauth-dashboard-token-0123"
	tok := filepath.Join(dir, "ui.token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ui, out := freeAddr(t), filepath.Join(dir, "run")
	exp := writeExperiment(t, strings.Replace(strings.Replace(nofileExperiment, "%s", "127.0.0.1:0", 1), "testers: 4", "testers: 3", 1))
	mark := newMark(t)
	run := hardenStart(t, mark, exec.Command("sh", limitedCmd(512, "run", exp, "--out", out, "--ui", ui, "--ui-token-file", tok)...))
	waitEvent(t, out, "listening", -1)
	flood := startIdleFlood(t, ui, 600)
	flood.waitOpen(t, 600)
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", "http://"+ui+"/api/snapshot", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("the dashboard under an idle flood: %v after %v", err, time.Since(start))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the dashboard under an idle flood answered %s", resp.Status)
	}
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("run exit %d\n%s", code, run.stderr.String())
	}
	if st := readSummary(t, out).Testers; st.Started != 3 || st.Failed != 0 {
		t.Errorf("with a flooded dashboard: %+v", st)
	}
}

// TestPreAuthBusyTesterRetries fills what one source may hold of a
// controller limited to 512 open files (connections from 127.0.0.1 that
// sent one byte and then nothing), and then starts a joining tester from
// the same source: refused for want of room, it tries again and joins
// once the room is back, and the run exits 0. A tester with the wrong
// token (before that) is still refused at once, whatever its --join-retry.
func TestPreAuthBusyTesterRetries(t *testing.T) {
	t.Parallel()
	s := floodJoin(t, 1, "")
	run := hardenStart(t, s.mark, exec.Command("sh", limitedCmd(512, "run", s.exp, "--out", s.out, "--ui", "off")...))
	waitEvent(t, s.out, "batch-start", -1)
	wrong := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrong, []byte("a-wrong-token-0123456789abcdefgh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.joinShellLoop(t, "wrong", 1, wrong, "--join-retry", "1m").wait(t, 30*time.Second)
	if bad := s.joinOutcomes(t, "wrong", 1)[0]; bad.rc == 0 || time.Since(start) > 10*time.Second || strings.Contains(bad.stderr, "trying again") {
		t.Errorf("the tester with the wrong token: exit %d after %v\n%s", bad.rc, time.Since(start), bad.stderr)
	}
	var held []net.Conn
	for range 80 {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte{0}); err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	loop := s.joinShellLoop(t, "ok", 1, s.token, "--join-retry", "30s")
	errFile := filepath.Join(s.logs, "ok-1.err")
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(errFile); strings.Contains(string(b), "trying again") {
			break
		}
		if _, err := os.Stat(filepath.Join(s.logs, "ok-1.rc")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range held {
		c.Close()
	}
	loop.wait(t, 40*time.Second)
	jt := s.joinOutcomes(t, "ok", 1)[0]
	if jt.rc != 0 || jt.produced == 0 || !strings.Contains(jt.stderr, "peer: busy") || !strings.Contains(jt.stderr, "trying again") {
		t.Errorf("the tester refused for want of room: exit %d, %d samples\n%s", jt.rc, jt.produced, jt.stderr)
	}
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("run exit %d\n%s", code, run.stderr.String())
	}
	if st := readSummary(t, s.out).Testers; st.Started != 1 || st.Failed != 0 {
		t.Errorf("after a busy refusal: %+v", st)
	}
}
