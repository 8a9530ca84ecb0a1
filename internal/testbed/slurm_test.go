package testbed

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

func TestParseSqueue(t *testing.T) {
	t.Parallel()
	out := "12_0|RUNNING|None|n1\n12_1|PENDING|Resources|\n" +
		"12_[2-4]|PENDING|Priority|\n" + // a collapsed record (no --array): skipped
		"13_0|RUNNING|None|n2\n12_07|RUNNING|None|n3\n12_5|RUNNING|None|n1\n" + // other job, non-canonical index, out of range
		"12_2|CANCELLED|None|n2\ngarbage\n"
	got := parseSqueue(out, "12", 5)
	want := map[int]squeueRow{0: {"RUNNING", "None", "n1"}, 1: {"PENDING", "Resources", ""}, 2: {"CANCELLED", "None", "n2"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("task %d: got %+v, want %+v", i, got[i], w)
		}
	}
}

// FuzzParseSqueue: any squeue output yields only in-range tasks of the
// job, and never panics.
func FuzzParseSqueue(f *testing.F) {
	f.Add("12_0|RUNNING|None|n1\n12_1|PENDING|Resources|\n", 3)
	f.Add("12_[2-4]|PENDING|Priority|\n12_-1|x|y|z\n", 5)
	f.Add("||||\n12_|a|b|c", 1)
	f.Fuzz(func(t *testing.T, out string, n int) {
		for i := range parseSqueue(out, "12", n) {
			if i < 0 || i >= n {
				t.Fatalf("task %d out of range [0,%d)", i, n)
			}
		}
	})
}

func TestSlurmTime(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		90 * time.Second:                     "0-00:01:30",
		time.Hour + 500*time.Millisecond:     "0-01:00:01",
		49*time.Hour + 2*time.Minute + 3e9:   "2-01:02:03",
		experiment.MaxDuration + time.Minute: "30-00:01:00",
	} {
		if got := slurmTime(d); got != want {
			t.Errorf("slurmTime(%v) = %s, want %s", d, got, want)
		}
	}
}

func TestSlurmTimeLimit(t *testing.T) {
	t.Parallel()
	s := &Slurm{Wait: time.Minute}
	if got := s.timeLimit(); got != time.Hour {
		t.Errorf("no length known: %v, want 1h", got)
	}
	s.length = 5 * time.Minute
	if got := s.timeLimit(); got != 5*time.Minute+time.Minute+slurmMargin {
		t.Errorf("length 5m: %v", got)
	}
	s.TimeLimit = 7 * time.Minute
	if got := s.timeLimit(); got != 7*time.Minute {
		t.Errorf("time_limit 7m: %v", got)
	}
}

func TestParseJobID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"42\n": "42", "42;cluster\n": "42", "": "", "Submitted batch job 4": ""} {
		got, err := parseJobID(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("parseJobID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestSlurmPrepareNeedsSlurmOnPath: without sbatch, squeue and scancel on
// PATH the run is refused (exit code 2) and told what to do.
func TestSlurmPrepareNeedsSlurmOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := NewSlurm(experiment.Testbed{Provider: "slurm"}).Prepare(context.Background(), Plan{Testers: 1, Dir: t.TempDir()})
	if errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), "not found: sbatch, squeue, scancel") {
		t.Fatalf("got %v (code %d)", err, errs.Code(err))
	}
}

// TestSlurmPrepareChecksSharedFiles: a missing deploy file is a bad
// experiment whose message says the file system is assumed shared.
func TestSlurmPrepareChecksSharedFiles(t *testing.T) {
	err := checkShared(os.Args[0], []string{filepath.Join(t.TempDir(), "nope")})
	if errs.Code(err) != errs.CodeUsage || !strings.Contains(errs.Hint(err), "shared with the nodes") {
		t.Fatalf("got %v (hint %q)", err, errs.Hint(err))
	}
}

// slurmScriptRun runs the batch script as Slurm would for task i, with sh.
func slurmScriptRun(t *testing.T, dir string, i int, args ...string) (string, int) {
	t.Helper()
	script := filepath.Join(dir, "testers.sbatch")
	writeExecutable(t, script, slurmScript)
	cmd := exec.Command("sh", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+strconv.Itoa(i), "SLURMD_NODENAME=n7")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestSlurmScriptWithoutBinary: a task that cannot find the binary says so
// and exits 2.
func TestSlurmScriptWithoutBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, code := slurmScriptRun(t, dir, 0, filepath.Join(dir, "no-diperf"), "127.0.0.1:1", filepath.Join(dir, "token"), filepath.Join(dir, "tasks"))
	if code != 2 || !strings.Contains(out, "task 0 on n7: the diperf binary") || !strings.Contains(out, "shared") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

// TestSlurmScriptPassesItsTasksLine: task i runs the binary with --join,
// --token-file, --slot i and its own line's flags, quoted as written, its
// output in its line's log.
func TestSlurmScriptPassesItsTasksLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := filepath.Join(dir, "diperf")
	writeExecutable(t, fake, "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n")
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	specs := []Spec{{Slot: 0, LogPath: filepath.Join(dir, "log 0")},
		{Slot: 1, LogPath: filepath.Join(dir, "it's log 1"), ExtraArgs: []string{"--clock-offset", "1s", `$(touch pwned) 'a' "b"`}}}
	list, err := taskList(specs)
	if err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, "tasks")
	if err := os.WriteFile(tasks, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := slurmScriptRun(t, dir, 1, fake, "127.0.0.1:9", token, tasks); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	log, err := os.ReadFile(specs[1].LogPath)
	if err != nil {
		t.Fatal(err)
	}
	want := "[tester]\n[--join]\n[127.0.0.1:9]\n[--token-file]\n[" + token + "]\n[--slot]\n[1]\n[--clock-offset]\n[1s]\n[$(touch pwned) 'a' \"b\"]\n"
	if string(log) != want {
		t.Errorf("tester 1 ran with\n%s\nwant\n%s", log, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Errorf("a flag was run by the shell")
	}
	if _, err := taskList([]Spec{{LogPath: "a\nb"}}); err == nil {
		t.Errorf("a log path with a line break was accepted")
	}
}
