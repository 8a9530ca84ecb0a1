package e2e

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// background is a diperf run started without waiting for it.
type background struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func startRun(t *testing.T, args ...string) *background {
	t.Helper()
	return startCmd(t, nil, exec.Command(bin, args...))
}

// startCmd starts cmd in the background with env added to its
// environment; the test's end kills it if it is still running.
func startCmd(t *testing.T, env []string, cmd *exec.Cmd) *background {
	t.Helper()
	b := &background{cmd: cmd, done: make(chan error, 1)}
	if env != nil {
		b.cmd.Env = append(os.Environ(), env...)
	}
	b.cmd.Stdout, b.cmd.Stderr = &b.stdout, &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	t.Cleanup(func() { _ = b.cmd.Process.Kill() })
	return b
}

func (b *background) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-b.done:
		return b.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("run did not end within %v\nstderr:\n%s", timeout, b.stderr.String())
	}
	return -1
}

// waitEvent polls events.jsonl until an event matches, and returns it.
func waitEvent(t *testing.T, dir, event string, tester int) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range liveEvents(t, dir) {
			if e["event"] == event && (tester < 0 || e["tester"] == float64(tester)) {
				return e
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %q event for tester %d", event, tester)
	return nil
}

func pidOf(t *testing.T, e map[string]any) int {
	t.Helper()
	id, _ := e["id"].(string)
	pid, err := strconv.Atoi(id[strings.LastIndexByte(id, ':')+1:])
	if err != nil {
		t.Fatalf("event id %q has no pid", id)
	}
	return pid
}

// readTesters returns the rows of testers.csv.
func readTesters(t *testing.T, dir string) []row {
	t.Helper()
	return readCSV(t, filepath.Join(dir, "testers.csv"), "index").rows
}

// testerRow returns the row of testers.csv of the tester with index i.
func testerRow(t *testing.T, dir string, i int) row {
	t.Helper()
	for _, r := range readTesters(t, dir) {
		if r.int(t, "index") == i {
			return r
		}
	}
	t.Fatalf("testers.csv has no tester %d", i)
	return row{}
}

const sleepyExperiment = `name: sleepy
client:
  exec: [sleep, "0.05"]
schedule:
  testers: 3
  tester_start_interval: 200ms
  tester_duration: %s
  client_interval: 0s
`

func TestTesterKilledMidRunIsMarkedFailedAndKeepsSamples(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, strings.Replace(sleepyExperiment, "%s", "4s", 1))
	out := filepath.Join(t.TempDir(), "run")
	run := startRun(t, "run", exp, "--out", out)
	// The started event comes with the tester's first batch of samples;
	// it ships one every 500 ms. Two seconds later, at least three more
	// have shipped its calls of the first 1.5 s.
	waitEvent(t, out, "started", 1)
	pid := pidOf(t, waitEvent(t, out, "admitted", 1))
	time.Sleep(2 * time.Second)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	if !strings.Contains(run.stderr.String(), "1 of 3 testers failed") {
		t.Errorf("the run does not say a tester failed:\n%s", run.stderr.String())
	}
	row := testerRow(t, out, 1)
	failed, stop, reason := row.str(t, "failed"), row.int(t, "stop_ns"), row.str(t, "failure_reason")
	if failed != "true" || stop == 0 || !strings.Contains(reason, "signal: killed") && !strings.Contains(reason, "lost connection") {
		t.Errorf("tester 1 not marked failed with a time and reason: failed %s, stop_ns %d, failure_reason %q", failed, stop, reason)
	}
	s := readSummary(t, out)
	if s.Testers.Failed != 1 || s.Testers.Started != 3 {
		t.Errorf("summary testers %+v", s.Testers)
	}
	// Its samples from before the kill are kept: at least 1.5 s of 50 ms
	// calls, some 25 (8 if each took 190 ms on a busy machine).
	if n := row.int(t, "samples_received"); n < 8 {
		t.Errorf("tester 1 kept %d samples, want its calls from before the kill", n)
	}
	checkRunDir(t, out)
}

func TestTesterStopsWhenItLosesTheController(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, strings.Replace(sleepyExperiment, "%s", "60s", 1))
	out := filepath.Join(t.TempDir(), "run")
	run := startRun(t, "run", exp, "--out", out)
	pid := pidOf(t, waitEvent(t, out, "admitted", 2))
	waitEvent(t, out, "started", 2)
	_ = run.cmd.Process.Signal(syscall.SIGKILL) // the controller dies without a word
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("tester %d still running 5 s after its controller died", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(out, "logs", "tester-002.log"))
	if !strings.Contains(string(log), "lost the controller") {
		t.Errorf("tester log does not say it lost the controller:\n%s", log)
	}
}

func TestGarbageOnTheWireDropsThatConnectionOnly(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, strings.Replace(sleepyExperiment, "%s", "3s", 1))
	out := filepath.Join(t.TempDir(), "run")
	run := startRun(t, "run", exp, "--out", out)
	addr, _ := waitEvent(t, out, "listening", -1)["detail"].(string)
	waitEvent(t, out, "started", 0)
	for _, junk := range [][]byte{
		[]byte("GET / HTTP/1.1\r\n\r\n"),          // wrong protocol altogether
		{0xff, 0xff, 0xff, 0xff, 1},               // a frame claiming 4 GiB
		{0, 0, 0, 2, 1, '{'},                      // a truncated hello
		{0, 0, 0, 10, 1, '{', '"', 'p', 'r', 'o'}, // broken JSON, then EOF
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write(junk)
		c.Close()
	}
	if code := run.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, run.stderr.String())
	}
	if s := readSummary(t, out); s.Testers.Failed != 0 || s.Testers.Started != 3 {
		t.Errorf("garbage connections disturbed the testers: %+v", s.Testers)
	}
	rejected := 0
	for _, e := range eventsOf(t, out) {
		if e["event"] == "rejected" {
			rejected++
		}
	}
	if rejected != 4 {
		t.Errorf("%d connections rejected, want 4", rejected)
	}
}
