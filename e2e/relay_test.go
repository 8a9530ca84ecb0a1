package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// relayExperiment: n local testers whose connections two relay processes
// accept for the controller.
const relayExperiment = `name: relays
client: {exec: ["true"], timeout: 5s}
testbed: {provider: local}
schedule: {testers: %d, tester_start_interval: 0s, tester_duration: %s, client_interval: 100ms}
controller: {relays: 2}
`

var relayPid = regexp.MustCompile(`relay worker (\d+): pid (\d+)`)

// relayPids returns the pids of the run's relays, from their relay-start
// events.
func relayPids(t *testing.T, events []map[string]any) []int {
	t.Helper()
	var pids []int
	for _, e := range events {
		if e["event"] == "relay-start" {
			m := relayPid.FindStringSubmatch(fmt.Sprint(e["detail"]))
			if m == nil {
				t.Fatalf("relay-start detail %q names no pid", e["detail"])
			}
			pid, _ := strconv.Atoi(m[2])
			pids = append(pids, pid)
		}
	}
	return pids
}

// Testers reach the controller through its relays: every one is admitted
// with its own address (not a relay's), every sample arrives, and the
// relays end with the run.
func TestRelaysCarryTesters(t *testing.T) {
	t.Parallel()
	out, s := engineRun(t, 2*time.Minute, fmt.Sprintf(relayExperiment, 8, "3s"))
	evs := eventsOf(t, out)
	pids := relayPids(t, evs)
	if len(pids) != 2 {
		t.Fatalf("%d relays started, want 2", len(pids))
	}
	addrs := map[string]bool{}
	exits := 0
	for _, e := range evs {
		switch e["event"] {
		case "admitted":
			addrs[fmt.Sprint(e["detail"])] = true
		case "relay-exit":
			exits++
			if d := fmt.Sprint(e["detail"]); !strings.Contains(d, "exit 0") {
				t.Errorf("a relay did not end cleanly: %s", d)
			}
		}
	}
	if len(addrs) != 8 {
		t.Errorf("%d distinct tester addresses admitted, want 8: %v", len(addrs), addrs)
	}
	for a := range addrs {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("admitted address %q is not a tester's", a)
		}
	}
	if exits != 2 {
		t.Errorf("%d relay-exit events, want 2", exits)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("relay pid %d still runs after the run", pid)
		}
	}
	recs, err := rundir.ReadTesters(out)
	if err != nil {
		t.Fatal(err)
	}
	var sent uint64
	for _, r := range recs {
		if r.Failed || r.Received != r.Sent || r.Sent == 0 {
			t.Errorf("tester %d: failed %v, sent %d, received %d", r.Slot, r.Failed, r.Sent, r.Received)
		}
		sent += r.Sent
	}
	if uint64(s.Samples.Total) != sent || s.Samples.Lost != 0 {
		t.Errorf("summary: %d samples, %d lost; the testers sent %d", s.Samples.Total, s.Samples.Lost, sent)
	}
}

// A relay killed with SIGKILL mid-run cuts off only its own testers: they
// are marked failed (their samples up to the cut kept), the others run to
// their end, the run still writes its results, and no relay is left.
func TestRelayKilledMidRun(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, fmt.Sprintf(relayExperiment, 8, "10s"))
	out := filepath.Join(t.TempDir(), "run")
	b := startRun(t, "run", exp, "--out", out)
	deadline := time.Now().Add(time.Minute)
	started := 0
	for started < 8 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		started = 0
		for _, e := range liveEvents(t, out) {
			if e["event"] == "started" {
				started++
			}
		}
	}
	if started < 8 {
		t.Fatalf("%d of 8 testers started within a minute\n%s", started, b.stderr.String())
	}
	pids := relayPids(t, liveEvents(t, out))
	if len(pids) != 2 {
		t.Fatalf("%d relays, want 2", len(pids))
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := b.wait(t, 2*time.Minute); code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s", code, b.stderr.String())
	}
	recs, err := rundir.ReadTesters(out)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, r := range recs {
		if r.Failed {
			failed++
			if !strings.Contains(r.FailureReason, "lost connection") && !strings.Contains(r.FailureReason, "no heartbeat") {
				t.Errorf("tester %d failed for %q, want a lost connection", r.Slot, r.FailureReason)
			}
		} else if r.Received != r.Sent {
			t.Errorf("tester %d (not failed): sent %d, received %d", r.Slot, r.Sent, r.Received)
		}
	}
	if failed == 0 || failed == 8 {
		t.Errorf("%d of 8 testers failed when one of two relays was killed; want its share", failed)
	}
	killed := false
	for _, e := range eventsOf(t, out) {
		if e["event"] == "relay-exit" && strings.Contains(fmt.Sprint(e["detail"]), "killed") {
			killed = true
		}
	}
	if !killed {
		t.Error("no relay-exit event says the relay was killed")
	}
	if syscall.Kill(pids[1], 0) == nil {
		t.Errorf("the surviving relay (pid %d) still runs after the run", pids[1])
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Errorf("no summary after a relay was killed: %v", err)
	}
}
