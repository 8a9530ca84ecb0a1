package controller

import (
	"context"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// holdGate takes every place of c's gate after delay and gives them back
// after hold: every per-tester goroutine that queues there (a session
// handling a batch, a writer) waits meanwhile, as behind a lock held up
// by a slow spool write.
func holdGate(c *controller, delay, hold time.Duration) {
	go func() {
		time.Sleep(delay)
		for range cap(c.gate) {
			c.enter()
		}
		time.Sleep(hold)
		for range cap(c.gate) {
			c.leave()
		}
	}()
}

// noEvent fails if slot has an event named name.
func noEvent(t *testing.T, dir, name string, slot int) {
	t.Helper()
	for _, e := range events(t, dir) {
		if e.Event == name && e.Slot != nil && *e.Slot == slot {
			t.Errorf("tester %d: %s at %v: %s", slot, name, time.Unix(0, e.TimeNs).Format(time.StampMilli), e.Detail)
		}
	}
}

// TestBusyControllerStillHearsAndAnswers holds the controller's gate for
// 4 s twice. The first time the tester sends a heartbeat a second and a
// probe: they are read and the probe answered at once, the gate full. The
// second time the tester sends a batch, which its session cannot take
// until the gate is free, and nothing can be read behind it for 4 s:
// that is the controller's wait, not the tester's silence. Neither time
// is the tester marked lost.
func TestBusyControllerStillHearsAndAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		var c *controller
		answers := -1
		tb.start = startedFakes(t, tb, func(ctx context.Context, f *fakeTester, s testbed.Spec) {
			holdGate(c, time.Second, 4*time.Second)
			holdGate(c, 6*time.Second, 4*time.Second)
			for range 3 {
				time.Sleep(time.Second)
				f.send(t, protocol.TypeHeartbeat, nil)
			}
			time.Sleep(500 * time.Millisecond) // 3.5 s: the gate is full
			before := f.count(protocol.TypeHeartbeat)
			f.send(t, protocol.TypeHeartbeat, protocol.Heartbeat{Probe: 7})
			time.Sleep(10 * time.Millisecond)
			answers = f.count(protocol.TypeHeartbeat) - before
			time.Sleep(2600 * time.Millisecond) // 6.1 s: full again
			f.send(t, protocol.TypeSamples, 5)
			time.Sleep(4500 * time.Millisecond)
			f.done(t, "completed")
		})
		_, err := conductOnlyWith(t, inprocOptions(testExperiment(t, 1, 30*time.Second), dir, tb), func(made *controller) { c = made })
		if err != nil {
			t.Fatal(err)
		}
		if answers != 1 {
			t.Errorf("%d heartbeats came within 10 ms of the probe, want its answer", answers)
		}
		noEvent(t, dir, "tester-lost", 0)
	})
}

// TestHeartbeatsDuringTheRampUp launches two testers 10 s apart: the
// first, launched at once, hears the controller every second during the
// ramp-up, and when it falls silent it is marked lost within 3 s, not
// once the second is launched.
func TestHeartbeatsDuringTheRampUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		heard := -1
		var last time.Time
		tb.start = startedFakes(t, tb, func(ctx context.Context, f *fakeTester, s testbed.Spec) {
			if s.Slot > 0 {
				f.done(t, "completed")
				return
			}
			for range 5 {
				time.Sleep(time.Second)
				f.send(t, protocol.TypeHeartbeat, nil)
			}
			heard = f.count(protocol.TypeHeartbeat)
			last = time.Now()
			time.Sleep(4 * time.Second) // silent, before the second tester is launched
			f.done(t, "completed")
		})
		exp := testExperiment(t, 2, 20*time.Second)
		exp.Schedule.TesterStartInterval = experiment.Duration(10 * time.Second)
		if _, err := conductOnly(t, inprocOptions(exp, dir, tb)); err != nil {
			t.Fatal(err)
		}
		if heard < 4 {
			t.Errorf("the first tester heard %d heartbeats in its first 5 s, during the ramp-up; want one a second", heard)
		}
		lost := eventAt(t, dir, "tester-lost", 0)
		if after := time.Unix(0, lost.TimeNs).Sub(last); after > LostAfter {
			t.Errorf("marked lost %v after its last frame, want within %v", after, LostAfter)
		}
	})
}

// TestProbeFloodGetsFewAnswers has a tester send 200 probes, each with a
// spool error, at once and then 20 more 10 ms apart: it gets one answer
// per 100 ms and one spool-error event, not one per heartbeat.
func TestProbeFloodGetsFewAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		answers := -1
		tb.start = startedFakes(t, tb, func(ctx context.Context, f *fakeTester, s testbed.Spec) {
			time.Sleep(50 * time.Millisecond) // a heartbeat from the controller in between would be counted
			before := f.count(protocol.TypeHeartbeat)
			for i := range 220 {
				f.send(t, protocol.TypeHeartbeat, protocol.Heartbeat{Probe: uint64(i + 1), SpoolError: "disk full"})
				if i >= 200 {
					time.Sleep(10 * time.Millisecond)
				}
			}
			answers = f.count(protocol.TypeHeartbeat) - before
			f.done(t, "completed")
		})
		if _, err := conductOnly(t, inprocOptions(testExperiment(t, 1, 30*time.Second), dir, tb)); err != nil {
			t.Fatal(err)
		}
		if answers < 1 || answers > 3 {
			t.Errorf("%d answers to 220 probes in 200 ms, want one per 100 ms", answers)
		}
		n := 0
		for _, e := range events(t, dir) {
			if e.Event == "spool-error" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d spool-error events, want 1", n)
		}
	})
}
