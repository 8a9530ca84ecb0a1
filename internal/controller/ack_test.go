package controller

import (
	"context"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// frames is how many frames of each type a fake tester heard, and the
// highest Seq acknowledged to it.
type frames struct {
	acks, beats int
	acked       uint64
}

func (f *fakeTester) frames() frames {
	f.mu.Lock()
	defer f.mu.Unlock()
	return frames{acks: f.heard[protocol.TypeAck], beats: f.heard[protocol.TypeHeartbeat], acked: f.acked}
}

// runFake runs one fake tester on fake time through a controller, and
// returns what its script returned.
func runFake[T any](t *testing.T, script func(f *fakeTester) T) T {
	t.Helper()
	var got T
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(transport.NewMemory())
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		f, err := joinFake(ctx, tb, s)
		if err != nil {
			return err
		}
		f.send(t, protocol.TypeStarted, protocol.Started{LocalNs: time.Now().UnixNano()})
		got = script(f)
		return nil
	}
	if _, err := conductOnly(t, inprocOptions(testExperiment(t, 1, 30*time.Second), dir, tb)); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestAcksAreCoalesced has a tester send a batch every 10 ms for 2 s (200
// batches): it gets at most one acknowledgement per ackEvery (21 in 2 s),
// the last, before its Done is answered, covering every sample it sent.
func TestAcksAreCoalesced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type result struct {
			during, after frames
			sent          uint64
		}
		r := runFake(t, func(f *fakeTester) result {
			for range 200 {
				f.send(t, protocol.TypeSamples, 5)
				time.Sleep(10 * time.Millisecond)
			}
			synctest.Wait()
			during := f.frames()
			f.done(t, "completed")
			return result{during: during, after: f.frames(), sent: f.seq}
		})
		if most := int(2*time.Second/ackEvery) + 1; r.during.acks > most || r.during.acks < most/2 {
			t.Errorf("%d acknowledgements for 200 batches in 2 s, want at most one per %v (%d) and about that many",
				r.during.acks, ackEvery, most)
		}
		if r.sent-r.during.acked > 5*20 { // 20 batches of 5 in 2 × ackEvery
			t.Errorf("acknowledged up to Seq %d of %d while sending: the acks lag more than %v", r.during.acked, r.sent, 2*ackEvery)
		}
		if r.after.acked != r.sent {
			t.Errorf("acknowledged up to Seq %d at Done, want every sample (%d)", r.after.acked, r.sent)
		}
		if r.during.beats != 0 {
			t.Errorf("%d heartbeats to a tester acknowledged every 100 ms, want none", r.during.beats)
		}
	})
}

// TestHeartbeatOnlyWhenNothingElseWasSent has a tester send a batch every
// 500 ms for 4 s, then only heartbeats for 4 s: the controller, having
// acknowledged each batch, sends it no heartbeat in the first half, and
// one a second in the second; the tester is never taken for lost.
func TestHeartbeatOnlyWhenNothingElseWasSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got := runFake(t, func(f *fakeTester) [2]frames {
			for range 8 {
				f.send(t, protocol.TypeSamples, 1)
				time.Sleep(500 * time.Millisecond)
			}
			busy := f.frames()
			for range 8 {
				f.send(t, protocol.TypeHeartbeat, nil)
				time.Sleep(500 * time.Millisecond)
			}
			idle := f.frames()
			f.done(t, "completed")
			return [2]frames{busy, idle}
		})
		busy, idle := got[0], got[1]
		if busy.beats != 0 || busy.acks != 8 {
			t.Errorf("while sending a batch every 500 ms: %d heartbeats and %d acks, want 0 and 8", busy.beats, busy.acks)
		}
		if n := idle.beats - busy.beats; n < 3 || n > 4 {
			t.Errorf("%d heartbeats in 4 s with nothing else to send, want one a second", n)
		}
	})
}
