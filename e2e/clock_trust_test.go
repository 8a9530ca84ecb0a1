package e2e

import (
	"encoding/binary"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// clockTrustExperiment is a one-tester join run: %[1]s is the token file,
// %[2]s the listen address, %[3]s more keys (e.g. the sync section).
const clockTrustExperiment = `name: clocktrust
client:
  exec: [sleep, '0.05']
testbed:
  provider: join
  token_file: %[1]s
  wait: 30s
controller:
  listen: %[2]s
schedule:
  testers: 1
  tester_duration: 3s
  client_interval: 0s
%[3]s`

// shift is what the relays add to a reply's T2 and T3.
const shift = 5 * time.Second

// injectedOffset is the tester's clock error (--clock-offset): every
// process here shares one wall clock, so its true offset, global − local,
// is −injectedOffset.
const injectedOffset = 3 * time.Second

// relayAction is one datagram a relay sends back for a reply, after delay.
type relayAction struct {
	p     []byte
	delay time.Duration
}

// startTimeRelay relays UDP datagrams on loopback between clients and the
// time server at upstream, each client through its own upstream socket;
// the n-th reply (from 0) goes back as forge returns. It runs until the
// test ends, and returns its address.
func startTimeRelay(t *testing.T, upstream string, forge func(n int, reply []byte) []relayAction) string {
	t.Helper()
	down, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	up, err := net.ResolveUDPAddr("udp", upstream)
	if err != nil {
		t.Fatal(err)
	}
	r := &timeRelay{down: down, up: up, forge: forge, conns: map[string]*net.UDPConn{}}
	t.Cleanup(r.close)
	go r.serve()
	return down.LocalAddr().String()
}

type timeRelay struct {
	down  *net.UDPConn
	up    *net.UDPAddr
	forge func(n int, reply []byte) []relayAction
	mu    sync.Mutex
	n     int
	conns map[string]*net.UDPConn // client address → its upstream socket
}

func (r *timeRelay) serve() {
	buf := make([]byte, 2048)
	for {
		n, from, err := r.down.ReadFromUDP(buf)
		if err != nil {
			return
		}
		if c := r.upstreamOf(from); c != nil {
			_, _ = c.Write(buf[:n])
		}
	}
}

// upstreamOf returns the upstream socket of client from, made (with its
// reader) on its first datagram.
func (r *timeRelay) upstreamOf(from *net.UDPAddr) *net.UDPConn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.conns[from.String()]; ok {
		return c
	}
	c, err := net.DialUDP("udp", nil, r.up)
	if err != nil {
		return nil
	}
	r.conns[from.String()] = c
	go r.back(c, from)
	return c
}

// back sends the replies read on c back to client to, as forge says.
func (r *timeRelay) back(c *net.UDPConn, to *net.UDPAddr) {
	buf := make([]byte, 2048)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		acts := r.forge(r.n, append([]byte(nil), buf[:n]...))
		r.n++
		r.mu.Unlock()
		for _, a := range acts {
			time.Sleep(a.delay)
			_, _ = r.down.WriteToUDP(a.p, to)
		}
	}
}

func (r *timeRelay) close() {
	r.down.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
}

// shifted returns a copy of reply with shift added to its T2 and T3
// (bytes 16 to 32 of the time server's replies).
func shifted(reply []byte) []byte {
	p := append([]byte(nil), reply...)
	if len(p) >= 32 {
		for _, at := range []int{16, 24} {
			binary.BigEndian.PutUint64(p[at:], binary.BigEndian.Uint64(p[at:])+uint64(shift))
		}
	}
	return p
}

// clockTrustRun runs a join run with the experiment's extra keys and
// returns its run directory. Its one tester syncs with the time server
// the run names (relayTo set: a relay the caller started and named in
// extra's sync.server), or else through a relay with forge to the
// controller's own.
func clockTrustRun(t *testing.T, extra string, relayTo string, forge func(int, []byte) []relayAction) string {
	t.Helper()
	d := t.TempDir()
	token, out, addr := filepath.Join(d, "token"), filepath.Join(d, "run"), freeAddr(t)
	exp := writeExperiment(t, fmt.Sprintf(clockTrustExperiment, token, addr, extra))
	run := startRun(t, "run", exp, "--out", out)
	waitEvent(t, out, "batch-start", -1)
	args := []string{"tester", "--join", addr, "--token-file", token, "--clock-offset", injectedOffset.String()}
	if relayTo == "" { // the controller's own time server, as it tells testers
		ts, _ := waitEvent(t, out, "time-server", -1)["detail"].(string)
		args = append(args, "--time-server", startTimeRelay(t, ts, forge), "--time-transport", "udp")
	}
	tester := startCmd(t, nil, exec.Command(bin, args...))
	if code := run.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("run exit %d\n%s", code, run.stderr.String())
	}
	tester.wait(t, 15*time.Second)
	return out
}

// TestClockSyncShiftedOnThePathIsRefused puts a relay between a tester
// and the controller's time server that forges a copy of every reply with
// 5 s added to its T2 and T3, and sends it ahead of the real reply, which
// it holds back 2 ms. Unauthenticated, the tester took the forged replies:
// its offset was 5 s off with an error bound of microseconds. Now it
// refuses them (counted in testers.csv and summary.json) and syncs on the
// real ones: every sync's offset is the truth within its error bound.
func TestClockSyncShiftedOnThePathIsRefused(t *testing.T) {
	forge := func(_ int, reply []byte) []relayAction {
		return []relayAction{{p: shifted(reply)}, {p: reply, delay: 2 * time.Millisecond}}
	}
	out := clockTrustRun(t, "", "", forge)
	syncs := readCSV(t, filepath.Join(out, "syncs.csv"), "offset_ns", "error_bound_ns").rows
	if len(syncs) == 0 {
		t.Fatal("syncs.csv has no sync")
	}
	truth := -float64(injectedOffset)
	for _, s := range syncs {
		off, bound := s.float(t, "offset_ns"), s.float(t, "error_bound_ns")
		// The bound is what physics allows; 1 µs for the rounding of the
		// injected clock's conversions.
		if d := off - truth; d > bound+1000 || d < -bound-1000 {
			t.Errorf("sync offset %.3f ms ± %.3f ms; the truth is %.3f ms: the shifted replies were taken", off/1e6, bound/1e6, truth/1e6)
		}
	}
	r := testerRow(t, out, 0)
	refused, err := strconv.ParseUint(r.str(t, "clock_refused"), 10, 64)
	if err != nil || refused < uint64(len(syncs)) || r.str(t, "clock_auth") != "true" || r.str(t, "clock_suspect") != "" {
		t.Errorf("testers.csv: clock_refused %q, clock_auth %q, clock_suspect %q; want at least one refused per sync (%d), authenticated, not suspect",
			r.str(t, "clock_refused"), r.str(t, "clock_auth"), r.str(t, "clock_suspect"), len(syncs))
	}
	if c := readSummary(t, out).Clock; c.RefusedReplies < refused || c.Unauthenticated != 0 || len(c.Suspect) != 0 {
		t.Errorf("summary.json clock %+v: want the %d refused replies, no tester unauthenticated or suspect", c, refused)
	}
	if !hasEvent(t, out, "clock-refused", 0) {
		t.Error("no clock-refused event for tester 0")
	}
}

// TestClockSyncPartlyShiftedIsFlagged syncs a tester with a standalone
// diperf timeserver, which holds no keys (sync.server), through a relay
// that adds 5 s to every other reply. The replies cannot be
// authenticated, but its probes disagree beyond their error bounds: the
// tester is flagged (testers.csv clock_suspect, an event, summary.json),
// and the run says its syncs were not authenticated.
func TestClockSyncPartlyShiftedIsFlagged(t *testing.T) {
	ts := freeUDPAddr(t)
	startCmd(t, nil, exec.Command(bin, "timeserver", "--listen", ts))
	forge := func(n int, reply []byte) []relayAction {
		if n%2 == 1 {
			return []relayAction{{p: shifted(reply)}}
		}
		return []relayAction{{p: reply}}
	}
	relay := startTimeRelay(t, ts, forge)
	out := clockTrustRun(t, "sync:\n  server: "+relay+"\n", relay, forge)
	r := testerRow(t, out, 0)
	if r.str(t, "clock_suspect") == "" || r.str(t, "clock_auth") != "false" {
		t.Errorf("testers.csv: clock_suspect %q, clock_auth %q; want a reason, and not authenticated", r.str(t, "clock_suspect"), r.str(t, "clock_auth"))
	}
	c := readSummary(t, out).Clock
	if len(c.Suspect) != 1 || c.Suspect[0].Index != 0 || c.Unauthenticated != 1 {
		t.Errorf("summary.json clock %+v: want tester 0 suspect and 1 unauthenticated", c)
	}
	if !hasEvent(t, out, "clock-suspect", 0) || !hasEvent(t, out, "clock-unauthenticated", -1) {
		t.Error("want a clock-suspect event for tester 0 and a clock-unauthenticated one for the run")
	}
}

// hasEvent reports whether events.jsonl has event for tester (-1: the run).
func hasEvent(t *testing.T, dir, event string, tester int) bool {
	t.Helper()
	for _, e := range eventsOf(t, dir) {
		if got, ok := e["tester"]; e["event"] == event && (got == float64(tester) || tester < 0 && !ok) {
			return true
		}
	}
	return false
}
