package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

// eventTime is when an event of events.jsonl was written.
func eventTime(e map[string]any) time.Time {
	ns, _ := e["t_ns"].(float64)
	return time.Unix(0, int64(ns))
}

// pauseProcess stops the process pid (one this test started) for d with
// SIGSTOP, then lets it go on with SIGCONT; it returns when it went on.
func pauseProcess(t *testing.T, pid int, d time.Duration) time.Time {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	return time.Now()
}

// stallRun starts a run of testers whose client records its calls, with
// experiment lines extra, and returns where the calls and the run go.
func stallRun(t *testing.T, testers int, duration, extra string) (calls, out string, run *background) {
	t.Helper()
	calls = filepath.Join(t.TempDir(), "calls")
	exp := failClientExp(t, calls, testers, duration, extra)
	out = filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	failKillMarked(t, mark)
	return calls, out, hardenStartRun(t, mark, "run", exp, "--out", out)
}

// TestStoppedTesterIsBackAtOnceAndRunsOn stops a tester's process for
// 4 s (SIGSTOP), past the controller's 3 s silence bound, 0.5 s into its
// 7 s test. The controller marks it lost, and writes tester-back the
// moment it is heard again, seconds before its session ends. The tester
// does not take its own stall for the controller's silence: it runs its
// clients to the end of its duration and says "completed".
func TestStoppedTesterIsBackAtOnceAndRunsOn(t *testing.T) {
	t.Parallel()
	calls, out, run := stallRun(t, 1, "7s", "")
	pid := pidOf(t, waitEvent(t, out, "admitted", 0))
	waitEvent(t, out, "started", 0)
	time.Sleep(500 * time.Millisecond)
	resumed := pauseProcess(t, pid, 4*time.Second)
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	waitEvent(t, out, "tester-lost", 0)
	back, stopped := waitEvent(t, out, "tester-back", 0), waitEvent(t, out, "stopped", 0)
	if d := eventTime(back).Sub(resumed); d < -100*time.Millisecond || d > time.Second {
		t.Errorf("tester-back written %v after the tester went on, want at once", d)
	}
	if d := eventTime(stopped).Sub(eventTime(back)); d < 1500*time.Millisecond {
		t.Errorf("tester-back written %v before the tester stopped, want when heard, some 2.5 s before", d)
	}
	if why, _ := stopped["detail"].(string); why != "completed" {
		log, _ := os.ReadFile(rundir.LogPath(out, 0))
		t.Errorf("the tester stopped %q after its own stall, want completed; its log:\n%s", why, log)
	}
	if n, _ := failCallsAfter(t, calls, resumed.Add(time.Second)); n == 0 {
		t.Errorf("no call began after the tester went on: its clients stopped")
	}
	if r := testerRow(t, out, 0); r.str(t, "stopped_early") != "false" || r.str(t, "failed") != "true" {
		t.Errorf("testers.csv: failed %s, stopped_early %s: want failed (lost), not stopped early",
			r.str(t, "failed"), r.str(t, "stopped_early"))
	}
}

// TestSilentControllerStopsTestersWhichAreMarked stops the controller's
// process for 4.5 s (SIGSTOP) under failure_policy abort: its two testers
// hear nothing, their probes go unanswered, and they stop their clients.
// When the controller goes on, each says it was cut off: the controller
// marks them failed and stopped early (testers.csv, summary.json), the
// policy aborts the run, and its own stall does not make it take them
// for lost.
func TestSilentControllerStopsTestersWhichAreMarked(t *testing.T) {
	t.Parallel()
	calls, out, run := stallRun(t, 2, "20s", "failure_policy: abort\n")
	waitEvent(t, out, "started", 1)
	time.Sleep(time.Second)
	stoppedAt := time.Now()
	pauseProcess(t, run.cmd.Process.Pid, 4500*time.Millisecond)
	const why = "stopped its clients before its time: cut off from the controller"
	if code := run.wait(t, time.Minute); code != 1 || !strings.Contains(run.stderr.String(), why) {
		t.Fatalf("exit %d, want 1 and the run aborted because %q\n%s", code, why, run.stderr.String())
	}
	for i := range 2 {
		r := testerRow(t, out, i)
		if r.str(t, "stopped_early") != "true" || r.str(t, "stop_reason") != "cut off from the controller" || r.str(t, "failed") != "true" {
			t.Errorf("testers.csv, tester %d: failed %s, stopped_early %s (%q): want failed, stopped early, cut off",
				i, r.str(t, "failed"), r.str(t, "stopped_early"), r.str(t, "stop_reason"))
		}
	}
	if s := readSummary(t, out); s.Testers.StoppedEarly != 2 || len(s.EarlyStops) != 2 || s.EarlyStops[0].Reason != "cut off from the controller" {
		t.Errorf("summary.json: %d testers stopped early, %+v: want both, cut off", s.Testers.StoppedEarly, s.EarlyStops)
	}
	for _, e := range eventsOf(t, out) {
		if e["event"] == "tester-lost" {
			t.Errorf("%v: the controller's own stall is not its testers' silence", e)
		}
	}
	// The clients stop within 5 s of the controller's last word (a
	// heartbeat at most 1 s before it stopped).
	if n, last := failCallsAfter(t, calls, stoppedAt.Add(5*time.Second)); n > 0 {
		t.Errorf("%d calls began more than 5 s after the controller stopped (the last %v after)", n, last.Sub(stoppedAt))
	}
}
