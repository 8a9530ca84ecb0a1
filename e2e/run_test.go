package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// exampleExperiment returns examples/http-target.yaml aimed at url and cut
// down to a short run.
func exampleExperiment(t *testing.T, url string, edits ...string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/http-target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "http://127.0.0.1:8080/", url, 1)
	s = strings.Replace(s, "[diperf, call", "["+bin+", call", 1)
	r := strings.NewReplacer(edits...)
	return writeExperiment(t, r.Replace(s))
}

func TestRunExampleAgainstSeparateTarget(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 4, 100*time.Millisecond)
	exp := exampleExperiment(t, url, "testers: 10 ", "testers: 4 ", "tester_duration: 20s", "tester_duration: 4s",
		"tester_start_interval: 1s", "tester_start_interval: 250ms")
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkRunDir(t, out)
	s := readSummary(t, out)
	if s.Testers.Started != 4 || s.Testers.Failed != 0 || s.Samples.OK == 0 || s.Samples.Failed != 0 {
		t.Errorf("summary: %+v %+v", s.Testers, s.Samples)
	}
	if !strings.Contains(r.stdout, "Throughput (calls/s)") || !strings.Contains(r.stdout, "report.html") {
		t.Errorf("stdout lacks the summary table or the report path:\n%s", r.stdout)
	}
	checkParquetWithDuckDB(t, out, s.Samples.Total)
}

// checkParquetWithDuckDB reads samples.parquet with DuckDB, a reader that
// shares no code with ours. In CI it must be there; elsewhere it may skip.
func checkParquetWithDuckDB(t *testing.T, dir string, want int) {
	t.Helper()
	got := duckdb(t, dir, "select count(*), count(distinct tester), min(end_ns-start_ns) >= 0 from SAMPLES")
	if !strings.HasPrefix(got, "("+itoa(want)+", 4, True)") {
		t.Errorf("duckdb read %s, want (%d, 4, True)", got, want)
	}
}

func TestBadExperimentFileExits2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		// an unknown key names the key and its line
		{"unknown key", "name: x\nclient:\n  exec: [true]\nschedule:\n  testerz: 3\n", "exp.yaml:5: schedule.testerz"},
		// a wrong type names the key and its line
		{"wrong type", "client:\n  exec: [true]\nschedule:\n  testers: twenty\n", "exp.yaml:4: schedule.testers"},
		// a negative duration names the key and its line
		{"negative duration", "client:\n  exec: [true]\nschedule:\n  tester_duration: -5s\n", "exp.yaml:4: schedule.tester_duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			r := diperf(t, 30*time.Second, "run", writeExperiment(t, tt.body), "--out", out)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 naming %q", r.code, r.stderr, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a run directory was created for a bad experiment")
			}
		})
	}
}

// TestMissingClientGivesFailedToStart runs a client that does not exist:
// every call is failed_to_start, the testers do not fail, and the run
// fails (exit 1) saying so, with the error every call got, on stderr, in
// the summary table and in summary.json's errors_top.
func TestMissingClientGivesFailedToStart(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, `name: missing
client:
  exec: [/nonexistent/client, "$DIPERF_TARGET"]
schedule:
  testers: 2
  tester_start_interval: 100ms
  tester_duration: 2s
  client_interval: 100ms
`)
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out)
	s := readSummary(t, out)
	why := "failed_to_start " + itoa(s.Samples.Total) + ` × 'fork/exec /nonexistent/client: no such file or directory'`
	if r.code != 1 || !strings.Contains(r.stdout, "run failed (no call succeeded)") || !strings.Contains(r.stdout, "errors         "+why) ||
		!strings.Contains(r.stderr, "diperf run: every call failed: "+why) {
		t.Fatalf("exit %d, want 1 and %q said\nstdout %s\nstderr %s", r.code, why, r.stdout, r.stderr)
	}
	if s.Samples.Total < 10 || s.Samples.OK != 0 || s.Errors["failed_to_start"] != s.Samples.Total {
		t.Errorf("want only failed_to_start samples, got %+v errors %v", s.Samples, s.Errors)
	}
	if len(s.ErrorsTop) != 1 || s.ErrorsTop[0].Class != "failed_to_start" || !strings.Contains(s.ErrorsTop[0].Message, "/nonexistent/client") {
		t.Errorf("errors_top %+v, want failed_to_start with its message", s.ErrorsTop)
	}
	if s.Testers.Failed != 0 {
		t.Errorf("a client that cannot start must not fail its tester: %+v", s.Testers)
	}
}

// TestMissingClientBacksOff checks that a client that cannot start, called
// back to back, is retried with a growing wait (10 ms doubling to 1 s)
// rather than as fast as fork allows.
func TestMissingClientBacksOff(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, `name: missing-fast
client:
  exec: [/nonexistent/client]
schedule:
  testers: 2
  tester_start_interval: 100ms
  tester_duration: 2s
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	if r := diperf(t, time.Minute, "run", exp, "--out", out); r.code != 1 {
		t.Fatalf("exit %d, want 1 (no call succeeded)\nstderr %s", r.code, r.stderr)
	}
	// Per tester in 2 s: waits of 10, 20, …, 640 ms, then 1 s: 8 or 9 calls.
	s := readSummary(t, out)
	if s.Samples.Total < 10 || s.Samples.Total > 30 || s.Errors["failed_to_start"] != s.Samples.Total {
		t.Errorf("want 10-30 failed_to_start samples from 2 testers in 2 s, got %+v errors %v", s.Samples, s.Errors)
	}
}

func TestHangingClientHitsTimeoutAndTesterGoesOn(t *testing.T) {
	t.Parallel()
	// Tester 0's client hangs forever; the other tester's succeeds.
	exp := writeExperiment(t, `name: hang
client:
  exec: [sh, -c, 'if [ "$DIPERF_TESTER_INDEX" = 0 ]; then exec sleep 600; fi']
  timeout: 300ms
schedule:
  testers: 2
  tester_start_interval: 100ms
  tester_duration: 2s
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t) // the processes of this run, and only they, carry it
	r := diperfEnv(t, time.Minute, []string{markEnv + "=" + mark}, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s := readSummary(t, out)
	// 2 s of 300 ms timeouts, back to back: about 6 calls, each one a timeout.
	if n := s.Errors["timeout"]; n < 4 || n > 8 {
		t.Errorf("timeouts = %d, want about 6 (the tester must go on after each)", n)
	}
	if s.Samples.OK == 0 || s.Testers.Failed != 0 {
		t.Errorf("summary %+v %+v", s.Samples, s.Testers)
	}
	if pids := markedProcesses(t, mark); len(pids) > 0 {
		t.Errorf("processes of this run left running (timed-out clients?): %s", describePIDs(pids))
	}
}

// describePIDs lists processes with their command lines.
func describePIDs(pids []int) string {
	var b strings.Builder
	for _, pid := range pids {
		cmd, _ := os.ReadFile("/proc/" + itoa(pid) + "/cmdline")
		fmt.Fprintf(&b, "\n  %d: %s", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
	}
	return b.String()
}

// TestMarkedProcessesAreThisRunsOnly checks the leftover check itself: it
// finds a process of the marked run, here a `sleep 600` left running, and
// not one of another run or from elsewhere doing the same.
func TestMarkedProcessesAreThisRunsOnly(t *testing.T) {
	t.Parallel()
	mark, other := newMark(t), newMark(t)
	start := func(env ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "600")
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	ours := start(markEnv + "=" + mark)
	start(markEnv + "=" + other)
	start()
	if pids := markedProcesses(t, mark); !slices.Equal(pids, []int{ours.Process.Pid}) {
		t.Fatalf("marked processes %v, want only %d", pids, ours.Process.Pid)
	}
	_ = ours.Process.Kill()
	_ = ours.Wait()
	if pids := markedProcesses(t, mark); len(pids) != 0 {
		t.Errorf("marked processes %v after the only one ended", pids)
	}
}
