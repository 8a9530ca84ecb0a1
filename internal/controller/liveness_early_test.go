package controller

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// startedFakes is a testbed start that joins a fake tester for each slot,
// says its client loop started and sent 5 samples, then runs play.
func startedFakes(t *testing.T, tb *inproc, play func(ctx context.Context, f *fakeTester, s testbed.Spec)) func(context.Context, testbed.Spec) error {
	return func(ctx context.Context, s testbed.Spec) error {
		f, err := joinFake(ctx, tb, s)
		if err != nil {
			return err
		}
		f.send(t, protocol.TypeStarted, protocol.Started{LocalNs: time.Now().UnixNano()})
		f.send(t, protocol.TypeSamples, 5)
		play(ctx, f, s)
		return nil
	}
}

// beatUntilStopped sends a heartbeat a second until the controller says
// Stop (then Done "stopped") or ctx ends.
func beatUntilStopped(t *testing.T, ctx context.Context, f *fakeTester) {
	for {
		select {
		case <-f.stop:
			f.done(t, "stopped")
			return
		case <-ctx.Done():
			f.conn.Close()
			return
		case <-time.After(time.Second):
			f.send(t, protocol.TypeHeartbeat, nil)
		}
	}
}

// TestTesterBackIsWrittenWhenHeard has a tester fall silent for 8 s (it
// is marked lost) and then speak again 5 s before it ends: tester-back is
// written the moment it is heard again, not when its session ends; how
// many of its samples came late is said when it ends (late-samples).
func TestTesterBackIsWrittenWhenHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		var back time.Time
		tb.start = startedFakes(t, tb, func(ctx context.Context, f *fakeTester, s testbed.Spec) {
			time.Sleep(8 * time.Second)
			f.send(t, protocol.TypeHeartbeat, nil)
			back = time.Now()
			time.Sleep(5 * time.Second)
			f.send(t, protocol.TypeSamples, 3)
			f.done(t, "completed")
		})
		if _, err := conductOnly(t, inprocOptions(testExperiment(t, 1, 30*time.Second), dir, tb)); err != nil {
			t.Fatal(err)
		}
		b, stopped := eventAt(t, dir, "tester-back", 0), eventAt(t, dir, "stopped", 0)
		if at := time.Unix(0, b.TimeNs); at.Before(back) || at.Sub(back) > sweepEvery {
			t.Errorf("tester-back written %v after the tester was heard again, want at once", at.Sub(back))
		}
		if gap := time.Duration(stopped.TimeNs - b.TimeNs); gap < 4*time.Second || !strings.Contains(b.Detail, "after it was lost") {
			t.Errorf("tester-back %q %v before its session ended, want it when heard, 5 s before", b.Detail, gap)
		}
		if late := eventAt(t, dir, "late-samples", 0); late.Detail != "3 samples came after it was lost" {
			t.Errorf("late-samples says %q", late.Detail)
		}
	})
}

// TestCutOffTesterFailsAndAbortsTheRun has a tester say Done "cut off
// from the controller" (it stopped its clients early) without ever
// having been marked lost: under failure_policy abort it fails, stopped
// early with that reason, and stops the run.
func TestCutOffTesterFailsAndAbortsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		tb.start = startedFakes(t, tb, func(ctx context.Context, f *fakeTester, s testbed.Spec) {
			if s.Slot == 0 {
				time.Sleep(2 * time.Second)
				f.done(t, "cut off from the controller")
				return
			}
			beatUntilStopped(t, ctx, f)
		})
		exp := testExperiment(t, 2, time.Minute)
		exp.FailurePolicy = experiment.PolicyAbort
		c, err := conductOnly(t, inprocOptions(exp, dir, tb))
		const want = "run aborted (failure_policy: abort): tester 0 (rogue:1) failed: stopped its clients before its time: cut off from the controller"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("run: %v, want %q", err, want)
		}
		r0, r1 := c.slots[0].rec, c.slots[1].rec
		if !r0.Failed || !r0.StoppedEarly || r0.StopReason != "cut off from the controller" || r0.Received != 5 {
			t.Errorf("tester 0: %+v, want failed, stopped early because cut off, its 5 samples kept", r0)
		}
		if r1.Failed || r1.StoppedEarly {
			t.Errorf("tester 1, told to stop: %+v, want neither failed nor stopped early", r1)
		}
	})
}

// TestEarlyStopsAreCounted runs three testers under failure_policy
// continue: one cut off, one whose connection ends mid-run, one that
// completes. The first two fail and are marked stopped early, each with
// its reason; the third is not.
func TestEarlyStopsAreCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		tb.start = startedFakes(t, tb, func(ctx context.Context, f *fakeTester, s testbed.Spec) {
			time.Sleep(2 * time.Second)
			switch s.Slot {
			case 0:
				f.done(t, "cut off from the controller")
			case 1:
				f.conn.Close()
			default:
				f.done(t, "completed")
			}
		})
		c, err := conductOnly(t, inprocOptions(testExperiment(t, 3, time.Minute), dir, tb))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"cut off from the controller", "lost connection", ""}
		for i, s := range c.slots {
			if r := s.rec; r.StoppedEarly != (want[i] != "") || r.StopReason != want[i] || r.Failed != (want[i] != "") {
				t.Errorf("tester %d: stopped early %v (%q), failed %v, want the reason %q", i, r.StoppedEarly, r.StopReason, r.Failed, want[i])
			}
		}
		if c.failed != 2 {
			t.Errorf("%d failures counted, want 2", c.failed)
		}
	})
}

// TestAbortDuringTheRampUpLaunchesNoMore launches three testers 5 s
// apart under failure_policy abort; the first dies 1 s in: the run
// aborts, and the other two are never launched.
func TestAbortDuringTheRampUpLaunchesNoMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		tb := newInproc(transport.NewMemory())
		tb.start = startedFakes(t, tb, func(ctx context.Context, f *fakeTester, s testbed.Spec) {
			if s.Slot > 0 {
				beatUntilStopped(t, ctx, f)
				return
			}
			time.Sleep(time.Second)
			f.conn.Close()
		})
		exp := testExperiment(t, 3, time.Minute)
		exp.FailurePolicy = experiment.PolicyAbort
		exp.Schedule.TesterStartInterval = experiment.Duration(5 * time.Second)
		if _, err := conductOnly(t, inprocOptions(exp, dir, tb)); err == nil || !strings.Contains(err.Error(), "tester 0 (rogue:1) failed") {
			t.Fatalf("run: %v, want it aborted by tester 0", err)
		}
		if n := len(tb.specs); n != 1 {
			t.Errorf("%d testers launched, want the first only", n)
		}
	})
}

// TestReasonFromTheWireIsBounded cuts a Done reason of 10,000 bytes to
// protocol.MaxErrText and drops what is not UTF-8.
func TestReasonFromTheWireIsBounded(t *testing.T) {
	t.Parallel()
	if got := reasonText(strings.Repeat("é", 5000)); len(got) > protocol.MaxErrText || !utf8.ValidString(got) {
		t.Errorf("reason of %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
	if got := reasonText("cut\xff off"); got != "cut off" {
		t.Errorf("reasonText kept %q", got)
	}
}
