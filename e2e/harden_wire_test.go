package e2e

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Frame types of the wire protocol (internal/protocol), as a relay sees them.
const (
	wireHello    = 1
	wireTestDesc = 4
	wireSamples  = 9
	wireStop     = 11
	wireMACSize  = 16
)

// wireFrame is one raw frame: its type and its body (for a secured frame:
// seq || payload || MAC).
type wireFrame struct {
	typ  byte
	body []byte
}

func (f wireFrame) bytes() []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(f.body)))
	return append(append(out, f.typ), f.body...)
}

func wireRead(r io.Reader) (wireFrame, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return wireFrame{}, err
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr[:4]))
	_, err := io.ReadFull(r, body)
	return wireFrame{typ: hdr[4], body: body}, err
}

// wireForged is a frame as the relay would like the receiver to take it:
// the sequence number it expects, a payload, a MAC made without the key.
func wireForged(typ byte, seq uint64, payload []byte) wireFrame {
	body := binary.BigEndian.AppendUint64(nil, seq)
	body = append(body, payload...)
	mac := make([]byte, wireMACSize)
	_, _ = rand.Read(mac)
	return wireFrame{typ: typ, body: append(body, mac...)}
}

// wireAttack is what the relay does to a session's frames after the
// handshake, given the direction (toController) and the frame's index in
// it: it returns the frames to send instead (nil: drop it).
type wireAttack func(toController bool, i int, f wireFrame) []wireFrame

// wireRelay listens on addr and relays each connection to upstream, frame
// by frame; after the handshake (Hello and Auth one way, Challenge and
// Welcome the other) each frame goes through the attack chosen by the slot the Hello
// names.
func wireRelay(t *testing.T, addr, upstream string, attacks map[int]wireAttack) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	relayEach(ln, upstream, func(down, up net.Conn) { wireRelaySession(down, up, attacks) })
}

func wireRelaySession(down, up net.Conn, attacks map[int]wireAttack) {
	defer down.Close()
	defer up.Close()
	hello, err := wireRead(down)
	if err != nil {
		return
	}
	var h struct{ Slot int }
	_ = json.Unmarshal(hello.body, &h)
	attack := attacks[h.Slot]
	if attack == nil {
		attack = func(_ bool, _ int, f wireFrame) []wireFrame { return []wireFrame{f} }
	}
	if _, err := up.Write(hello.bytes()); err != nil {
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	pump := func(src, dst net.Conn, toController bool, handshake int) {
		defer wg.Done()
		defer src.Close()
		defer dst.Close()
		for i := -handshake; ; i++ {
			f, err := wireRead(src)
			if err != nil {
				return
			}
			out := []wireFrame{f}
			if i >= 0 {
				out = attack(toController, i, f)
			}
			for _, g := range out {
				if _, err := dst.Write(g.bytes()); err != nil {
					return
				}
			}
		}
	}
	go pump(down, up, true, 1)  // Auth; Hello is already through
	go pump(up, down, false, 2) // Challenge, Welcome
	wg.Wait()
}

// TestWireRelayGetsNothingDone puts a relay between the controller and its
// testers (the testers are told the relay's address) that forwards the
// handshake, then injects a test description, a Stop or a sample batch,
// drops, reorders or replays a frame, one attack per tester. No attack
// gets anything done: the injected command never runs, each attacked
// tester is dropped with the reason in testers.csv and events.jsonl, and
// the tester the relay leaves alone runs to the end with every sample
// acknowledged.
func TestWireRelayGetsNothingDone(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "pwned")
	desc, _ := json.Marshal(map[string]any{"target": "", "client": map[string]any{"kind": "exec", "argv": []string{"sh", "-c", "touch " + marker}},
		"duration_ns": 1e9, "interval_ns": 0, "timeout_ns": 1e9, "sync_interval_ns": 1e9, "sync_probes": 1, "batch_ns": 1e8,
		"time_server": "127.0.0.1:1", "time_transport": "udp"})
	batch := []byte{2, 1, 1, 1, 2, 4, 0, 0, 0} // version 2, produced 1, one sample
	inject := func(toController bool, at int, f wireFrame) wireAttack {
		return func(to bool, i int, g wireFrame) []wireFrame {
			if to == toController && i == at {
				return []wireFrame{f, g}
			}
			return []wireFrame{g}
		}
	}
	attacks := map[int]wireAttack{
		0: inject(false, 0, wireForged(wireTestDesc, 0, desc)), // its own test description, before the real one
		1: inject(false, 1, wireForged(wireStop, 1, nil)),      // a Stop, mid-run
		2: inject(true, 1, wireForged(wireSamples, 1, batch)),  // samples the tester never made
		3: func(to bool, i int, f wireFrame) []wireFrame { // drop the tester's second frame
			if to && i == 1 {
				return nil
			}
			return []wireFrame{f}
		},
		4: wireReorder(), // swap the tester's second and third frames
		5: func(to bool, i int, f wireFrame) []wireFrame { // replay the tester's first frame
			if to && i == 0 {
				return []wireFrame{f, f}
			}
			return []wireFrame{f}
		},
	}
	want := map[int]string{0: "bad MAC: forged or altered", 1: "bad MAC: forged or altered", 2: "bad MAC: forged or altered",
		3: "frame 2 arrived where 1 was expected: dropped, replayed or reordered",
		4: "frame 2 arrived where 1 was expected", 5: "frame 0 arrived where 1 was expected"}

	ctl, relay := freeAddr(t), freeAddr(t)
	wireRelay(t, relay, ctl, attacks)
	exp := writeExperiment(t, `name: relay
client:
  exec: [sh, -c, "sleep 0.05"]
schedule:
  testers: 7
  tester_start_interval: 200ms
  tester_duration: 3s
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	run := hardenStartRun(t, mark, "run", exp, "--out", out, "--listen", ctl, "--advertise", relay)
	run.wait(t, 2*time.Minute)
	// The controller kills the testers it drops, most before they log their
	// counts: the one left alone must, and no process may outlive the run.
	defer hardenNothingLost(t, out, mark, 1)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a tester ran the command the relay injected")
	}
	failed := map[int]string{}
	for _, e := range eventsOf(t, out) {
		if e["event"] == "failed" {
			failed[int(e["tester"].(float64))] = e["detail"].(string)
		}
	}
	for slot, text := range want {
		r := testerRow(t, out, slot)
		if reason := r.str(t, "failure_reason"); !strings.Contains(reason, text) {
			t.Errorf("tester %d: failure_reason %q, want %q", slot, reason, text)
		}
		if !strings.Contains(failed[slot], text) {
			t.Errorf("tester %d: failed event %q, want %q", slot, failed[slot], text)
		}
	}
	if r := testerRow(t, out, 6); r.str(t, "failure_reason") != "" {
		t.Errorf("the tester the relay left alone failed: %q\n%s", r.str(t, "failure_reason"), run.stderr.String())
	}
	acked, produced := wireCounts(t, out, 6)
	if acked == 0 || acked != produced {
		t.Errorf("the tester the relay left alone: %d samples acknowledged of %d produced", acked, produced)
	}
}

// wireReorder swaps the tester's frames 1 and 2.
func wireReorder() wireAttack {
	var held wireFrame
	return func(to bool, i int, f wireFrame) []wireFrame {
		switch {
		case to && i == 1:
			held = f
			return nil
		case to && i == 2:
			return []wireFrame{f, held}
		}
		return []wireFrame{f}
	}
}

var wireCountsRE = regexp.MustCompile(`acked_samples=(\d+) produced_samples=(\d+)`)

// wireCounts reads the acked and produced sample counts a tester logged.
func wireCounts(t *testing.T, dir string, slot int) (acked, produced int) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "logs", fmt.Sprintf("tester-%03d.log", slot)))
	m := wireCountsRE.FindSubmatch(b)
	if m == nil {
		t.Fatalf("tester %d logged no counts:\n%s", slot, b)
	}
	acked, _ = strconv.Atoi(string(m[1]))
	produced, _ = strconv.Atoi(string(m[2]))
	return acked, produced
}

// TestWireAcceptSurvivesFdExhaustion runs the controller with 64 file
// descriptors and holds 200 idle connections to it once its first tester
// joined: the controller holds only a few of them (those not yet proved
// are bounded by what its open-file limit leaves, and one source may hold
// a share of that) and refuses or closes the rest at once, so that the
// testers launched after still start and join, every planned tester
// runs, and the run exits 0.
func TestWireAcceptSurvivesFdExhaustion(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, strings.Replace(strings.Replace(sleepyExperiment, "%s", "2s", 1), "200ms", "3s", 1))
	out := filepath.Join(t.TempDir(), "run")
	ctl := freeAddr(t)
	mark := newMark(t)
	run := hardenStart(t, mark, exec.Command("sh", "-c", `ulimit -n 64 && exec "$0" "$@"`, bin, "run", exp, "--out", out, "--listen", ctl))
	waitEvent(t, out, "admitted", 0)
	var idle []net.Conn
	for range 200 { // far more than 64: every one the controller held would cost it a descriptor
		c, err := net.Dial("tcp", ctl)
		if err != nil {
			break
		}
		idle = append(idle, c)
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	if s := readSummary(t, out); s.Testers.Started != 3 || s.Testers.Failed != 0 {
		t.Errorf("testers beside 200 idle connections and 64 descriptors: %+v", s.Testers)
	}
	hardenNothingLost(t, out, mark, 3)
	refused := false
	for _, e := range eventsOf(t, out) {
		refused = refused || e["event"] == "rejected" || e["event"] == "rejected-summary"
	}
	if !refused {
		t.Error("no idle connection was refused or closed")
	}
}

// TestWireHugeHellosAreRefusedCheaply opens 300 connections that each
// announce a 1 MiB Hello during a run: each is refused from its header,
// the controller's memory stays low, the testers are undisturbed and the
// refusals take a few lines of events.jsonl.
func TestWireHugeHellosAreRefusedCheaply(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, strings.Replace(sleepyExperiment, "%s", "4s", 1))
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	addr, _ := waitEvent(t, out, "listening", -1)["detail"].(string)
	waitEvent(t, out, "started", 0)
	var wg sync.WaitGroup
	for range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			hdr := binary.BigEndian.AppendUint32(nil, 1<<20)
			_, _ = c.Write(append(hdr, wireHello))
			_, _ = c.Write(make([]byte, 1<<20))
			_, _ = io.Copy(io.Discard, c) // until the controller hangs up
		}()
	}
	wg.Wait()
	hwm := wireVmHWM(t, run.cmd.Process.Pid)
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	if hwm > 100<<20 {
		t.Errorf("controller peak memory %d MB after 300 huge hellos, want under 100 MB", hwm>>20)
	}
	if s := readSummary(t, out); s.Testers.Failed != 0 || s.Testers.Started != 3 {
		t.Errorf("huge hellos disturbed the testers: %+v", s.Testers)
	}
	hardenNothingLost(t, out, mark, 3)
	full, summaries := 0, 0
	for _, e := range eventsOf(t, out) {
		switch e["event"] {
		case "rejected":
			full++
			if d, _ := e["detail"].(string); !strings.Contains(d, "frame too large") {
				t.Errorf("rejected for %q, want the frame limit", d)
			}
		case "rejected-summary":
			summaries++
		}
	}
	if full == 0 || full > 20 || summaries == 0 {
		t.Errorf("300 refusals logged as %d in full and %d summaries", full, summaries)
	}
}

// wireVmHWM is a process's peak resident memory, bytes.
func wireVmHWM(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}
