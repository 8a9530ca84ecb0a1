package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// graceCall is one call of samples.parquet, as the kill grace tests
// read it.
type graceCall struct {
	status   sample.Status
	dur      time.Duration
	killedBy float64 // x_killed_by (0: none)
}

// graceCalls reads the calls of samples.parquet by tester.
func graceCalls(t *testing.T, dir string) map[int32][]graceCall {
	t.Helper()
	calls := map[int32][]graceCall{}
	err := rundir.StreamCalls(dir, func(int32) *clock.Mapper { return nil }, func(cs []sample.Call) error {
		for _, c := range cs {
			g := graceCall{status: c.Status, dur: time.Duration(c.End - c.Start)}
			for _, x := range c.Extras {
				if x.Key == "killed_by" {
					g.killedBy = x.Value
				}
			}
			calls[c.Tester] = append(calls[c.Tester], g)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// TestKillGraceAtTimeout runs two testers whose calls all overrun a
// 400 ms timeout: tester 0's client traps SIGTERM (it writes a marker and
// exits), tester 1's ignores it. Every call of tester 0 says killed_by 15
// (SIGTERM) in samples.parquet, every call of tester 1 killed_by 9
// (SIGKILL, given after the 600 ms kill grace), and each call's time is
// its timeout, not the time its client took to stop.
func TestKillGraceAtTimeout(t *testing.T) {
	t.Parallel()
	marks := t.TempDir()
	exp := writeExperiment(t, `name: grace
client:
  exec: [sh, -c, 'if [ $DIPERF_TESTER_INDEX = 0 ]; then trap "echo term >> `+marks+`/term; exit 3" TERM; else trap "" TERM; fi; sleep 600 & wait']
  timeout: 400ms
  kill_grace: 600ms
schedule:
  testers: 2
  tester_start_interval: 100ms
  tester_duration: 1500ms
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	r := diperfEnv(t, time.Minute, []string{markEnv + "=" + mark}, "run", exp, "--out", out)
	if r.code != 1 { // every call timed out
		t.Fatalf("exit %d, want 1 (no call succeeded)\n%s", r.code, r.stderr)
	}
	calls := graceCalls(t, out)
	for tester, want := range map[int32]float64{0: float64(syscall.SIGTERM), 1: float64(syscall.SIGKILL)} {
		if len(calls[tester]) == 0 {
			t.Fatalf("tester %d made no call", tester)
		}
		for i, c := range calls[tester] {
			if c.status != sample.Timeout || c.killedBy != want {
				t.Errorf("tester %d call %d: %v killed_by %v, want timeout killed_by %v", tester, i, c.status, c.killedBy, want)
			}
			if c.dur < 400*time.Millisecond || c.dur >= 400*time.Millisecond+600*time.Millisecond {
				t.Errorf("tester %d call %d took %v: want its 400 ms timeout, the stop not counted", tester, i, c.dur)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(marks, "term")); strings.Count(string(b), "term") < len(calls[0]) {
		t.Errorf("tester 0's client trapped SIGTERM %d times for %d calls", strings.Count(string(b), "term"), len(calls[0]))
	}
	if s := readSummary(t, out); s.Extras["killed_by"].Calls != len(calls[0])+len(calls[1]) {
		t.Errorf("summary.json extras.killed_by: %+v, want %d calls", s.Extras["killed_by"], len(calls[0])+len(calls[1]))
	}
	if pids := markedProcesses(t, mark); len(pids) > 0 {
		t.Errorf("processes of this run left running: %s", describePIDs(pids))
	}
}

// TestKillGraceAtRunEnd interrupts a run (SIGINT to diperf run) while
// its client, which traps SIGTERM, is in a call: the client is asked to
// stop (its marker written) and the cancelled call says killed_by 15.
func TestKillGraceAtRunEnd(t *testing.T) {
	t.Parallel()
	marks := t.TempDir()
	exp := writeExperiment(t, `name: grace-end
client:
  exec: [sh, -c, 'trap "sleep 0.2; echo term >> `+marks+`/term; exit 3" TERM; sleep 600 & wait']
  timeout: 60s
schedule:
  testers: 1
  tester_duration: 60s
`)
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	waitEvent(t, out, "started", 0)
	time.Sleep(500 * time.Millisecond) // the call is in flight
	if err := run.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	run.wait(t, time.Minute)
	if b, _ := os.ReadFile(filepath.Join(marks, "term")); !strings.Contains(string(b), "term") {
		t.Error("the client's SIGTERM trap did not run: it was killed without being asked")
	}
	calls := graceCalls(t, out)[0]
	if len(calls) != 1 || calls[0].status != sample.Cancelled || calls[0].killedBy != float64(syscall.SIGTERM) {
		t.Errorf("calls %+v, want one cancelled call killed_by 15 (SIGTERM)", calls)
	}
	if pids := markedProcesses(t, mark); len(pids) > 0 {
		t.Errorf("processes of this run left running: %s", describePIDs(pids))
	}
}
