package tester

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/transport"
)

// probed records a heartbeat that asks for an answer (its payload has a
// "probe"), and answers it at once when the fake does. Called with p.mu
// held, from read.
func (p *partitionable) probed(payload []byte) {
	var m map[string]json.RawMessage
	if len(payload) == 0 || json.Unmarshal(payload, &m) != nil || m["probe"] == nil {
		return
	}
	p.probes = append(p.probes, time.Now())
	if p.answer && !p.cut {
		_ = p.conn.Write(protocol.TypeHeartbeat, nil)
	}
}

// jumpClock is a clock that runs with time.Now and can jump ahead, as the
// clock of a process that was stopped for a while (SIGSTOP, a host that
// did not run it) is seen to jump by that process once it runs again.
type jumpClock struct{ skew atomic.Int64 }

func (j *jumpClock) now() time.Time { return time.Now().Add(time.Duration(j.skew.Load())) }

// stall makes the clock jump by d.
func (j *jumpClock) stall(d time.Duration) { j.skew.Add(int64(d)) }

// runTester runs a tester against the fake controller at "controller:1"
// and returns its result when it ends.
func runTester(net *transport.Memory, secret testCred, now func() time.Time) <-chan error {
	result := make(chan error, 1)
	go func() {
		result <- Run(context.Background(), Options{Controller: "controller:1", Token: secret.tok, Transport: net, now: now})
	}()
	return result
}

// TestOwnStallIsNotTheControllersSilence stalls the tester's own process
// for 3 s (its clock jumps 3 s between two ticks of its watch, while the
// controller went on speaking every second): the tester must not take
// that for the controller's silence. It runs its clients to the end and
// says "completed".
func TestOwnStallIsNotTheControllersSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net, secret := transport.NewMemory(), newTestCred(t)
		p, stop := startPartitionable(t, net, secret, 12*time.Second)
		defer stop()
		var clk jumpClock
		result := runTester(net, secret, clk.now)
		<-p.open
		time.Sleep(4 * time.Second)
		clk.stall(3 * time.Second)
		stalled := time.Now()
		if err := <-result; err != nil {
			t.Fatalf("the tester ended with %v", err)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.done == nil || p.done.Reason != "completed" {
			t.Fatalf("done %+v, want the test completed: the tester's own stall is not the controller's silence", p.done)
		}
		after := 0
		for _, s := range p.samples {
			if s.end.After(stalled.Add(3 * time.Second)) {
				after++
			}
		}
		if after == 0 {
			t.Errorf("no call ended more than 3 s after the stall: the clients stopped")
		}
	})
}

// checkOneProbe checks that, of probes, one only came during the cut, 1
// to 2.25 s after it: the last heartbeat came at most 1 s before the cut,
// and the probe goes 2 s after it, checked every 250 ms.
func checkOneProbe(t *testing.T, probes []time.Time, cut time.Time) {
	t.Helper()
	var inCut []time.Duration
	for _, at := range probes {
		if at.After(cut) && at.Before(cut.Add(10*time.Second)) {
			inCut = append(inCut, at.Sub(cut))
		}
	}
	if len(inCut) != 1 || inCut[0] < time.Second || inCut[0] > 2250*time.Millisecond {
		t.Errorf("probes %v after the cut, want one 1 to 2.25 s after it", inCut)
	}
}

// TestAnsweredProbesKeepTheTesterRunning has a controller that never
// sends a heartbeat of its own but answers every probe at once: it is
// there, so the tester runs its clients to the end.
func TestAnsweredProbesKeepTheTesterRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net, secret := transport.NewMemory(), newTestCred(t)
		p, stop := startFakeController(t, net, secret, 12*time.Second, fakeOpts{quiet: true, answer: true})
		defer stop()
		if err := <-runTester(net, secret, nil); err != nil {
			t.Fatalf("the tester ended with %v", err)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.done == nil || p.done.Reason != "completed" || len(p.probes) < 3 {
			t.Errorf("done %+v after %d probes, want the test completed, a probe every 2 s answered", p.done, len(p.probes))
		}
	})
}

// TestHeartbeatsFlowWhileACallHangs runs one client whose call hangs for
// its whole timeout (2 s, past the 1 s test): the tester's heartbeats,
// every 200 ms, go on meanwhile. Real time: the call is a real process.
func TestHeartbeatsFlowWhileACallHangs(t *testing.T) {
	t.Parallel()
	net, secret := transport.NewMemory(), newTestCred(t)
	hung := func(ts string, d time.Duration) protocol.TestDesc {
		desc := fakeDesc(ts, d)
		desc.Client.Argv = []string{"sleep", "30"}
		desc.TimeoutNs, desc.HeartbeatNs = int64(2*time.Second), int64(200*time.Millisecond)
		return desc
	}
	p, stop := startFakeController(t, net, secret, time.Second, fakeOpts{desc: hung})
	defer stop()
	start := time.Now()
	if err := <-runTester(net, secret, nil); err != nil {
		t.Fatalf("the tester ended with %v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	took := time.Since(start)
	// One heartbeat per 200 ms period at least while the call hung (no
	// sample was sent to say it instead), allowing a period lost at each
	// end and one to a busy host.
	if want := int(took/(200*time.Millisecond)) - 3; p.hbs < want || len(p.samples) != 1 {
		t.Errorf("%d heartbeats and %d samples in %v, want at least %d heartbeats while the one call hung", p.hbs, len(p.samples), took, want)
	}
}
