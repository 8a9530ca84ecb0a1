package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// procsParent returns the parent of a live process, and false for one
// that is gone or a zombie.
func procsParent(pid int) (ppid int, live bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])) // state ppid pgrp session ...
	if len(f) < 2 || f[0] == "Z" {
		return 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, true
}

// procsDescendants returns the live processes marked with mark that
// descend from pid.
func procsDescendants(t *testing.T, mark string, pid int) []int {
	t.Helper()
	var pids []int
	for _, p := range markedProcesses(t, mark) {
		for q, live := procsParent(p); live && q > 1; q, live = procsParent(q) {
			if q == pid {
				pids = append(pids, p)
				break
			}
		}
	}
	return pids
}

// procsLive returns those of pids that are live processes marked with
// mark.
func procsLive(t *testing.T, mark string, pids []int) []int {
	t.Helper()
	var left []int
	for _, p := range markedProcesses(t, mark) {
		if _, live := procsParent(p); live && slices.Contains(pids, p) {
			left = append(left, p)
		}
	}
	return left
}

// TestProcsKilledTesterLeavesNoProcess kills one tester with SIGKILL while
// its client, a shell with two sleeps of 30 s (one in the background), is
// in flight: within 5 s nothing of that tester is left, the run completes,
// and the tester is marked failed with its samples kept.
func TestProcsKilledTesterLeavesNoProcess(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, `name: leftovers
client:
  exec: [sh, -c, "sleep 30 & sleep 30"]
  timeout: 1s
schedule:
  testers: 2
  tester_start_interval: 200ms
  tester_duration: 8s
  client_interval: 0s
`)
	out := filepath.Join(t.TempDir(), "run")
	mark := newMark(t)
	run := hardenStartRun(t, mark, "run", exp, "--out", out)
	t.Cleanup(func() { // never leave the sleeps behind, whatever happens
		for _, p := range markedProcesses(t, mark) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	pid := pidOf(t, waitEvent(t, out, "admitted", 1))
	waitEvent(t, out, "started", 1)
	time.Sleep(2500 * time.Millisecond) // two 1 s timeouts shipped at least
	var inFlight []int
	for deadline := time.Now().Add(3 * time.Second); len(inFlight) < 3 && time.Now().Before(deadline); {
		inFlight = procsDescendants(t, mark, pid) // sh, sleep, sleep
		time.Sleep(10 * time.Millisecond)
	}
	if len(inFlight) < 3 {
		t.Fatalf("tester %d has %d descendants (%v), want its client in flight: a shell and two sleeps", pid, len(inFlight), inFlight)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for left := procsLive(t, mark, inFlight); len(left) > 0; left = procsLive(t, mark, inFlight) {
		if time.Since(killed) > 5*time.Second {
			t.Fatalf("5 s after tester %d was killed, its processes %v still run", pid, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("tester %d killed with %d processes under it; none left after %v", pid, len(inFlight), time.Since(killed).Round(time.Millisecond))
	if code := run.wait(t, time.Minute); code != 1 { // every call timed out
		t.Fatalf("exit %d, want 1 (no call succeeded)\n%s", code, run.stderr.String())
	}
	row := testerRow(t, out, 1)
	if row.str(t, "failed") != "true" || row.str(t, "failure_reason") == "" {
		t.Errorf("tester 1: failed %s, reason %q; want failed with a reason", row.str(t, "failed"), row.str(t, "failure_reason"))
	}
	if n := row.int(t, "samples_received"); n < 1 {
		t.Errorf("tester 1 kept %d samples, want its calls from before the kill", n)
	}
	if testerRow(t, out, 0).str(t, "failed") != "false" {
		t.Error("the other tester failed too")
	}
	checkRunDir(t, out)
	if left := markedProcesses(t, mark); len(left) > 0 {
		t.Errorf("processes %v outlived the run", left)
	}
}

// TestProcsSecretNeverReachesClients runs with a known secret (--secret-file)
// and clients that copy their own environment, their tester's environment
// and argv, and list their descriptors: the secret, raw or encoded, is in
// none of it, nor in the run directory or the output, and a client holds
// nothing but stdio and the write end of its extras pipe (descriptor 3;
// the tester read its secret from a pipe too, which must not leak).
func TestProcsSecretNeverReachesClients(t *testing.T) {
	t.Parallel()
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	secret := base64.StdEncoding.EncodeToString(raw)
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	capture := t.TempDir()
	exp := writeExperiment(t, `name: secrets
client:
  exec: [sh, -c, 'cat /proc/$$$$/environ > `+capture+`/env.$$$$; cat /proc/$$PPID/environ > `+capture+`/tenv.$$$$ 2>/dev/null; cat /proc/$$PPID/cmdline > `+capture+`/tcmd.$$$$; { readlink /proc/$$$$/fd/3; sed -n 2p /proc/$$$$/fdinfo/3; ls /proc/$$$$/fd; } > `+capture+`/fd3.$$$$']
schedule:
  testers: 2
  tester_start_interval: 100ms
  tester_duration: 1s
  client_interval: 200ms
`)
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out, "--secret-file", secretFile)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	forms := map[string][]byte{
		"raw": []byte(secret), "hex": []byte(hex.EncodeToString([]byte(secret))),
		"base64": []byte(base64.StdEncoding.EncodeToString([]byte(secret))),
	}
	look := func(what string, b []byte) {
		for name, f := range forms {
			if bytes.Contains(b, f) {
				t.Errorf("the secret (%s) is in %s", name, what)
			}
		}
	}
	look("the run's output", []byte(r.stdout+r.stderr))
	counts := map[string]int{}
	for _, root := range []string{out, capture} {
		err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			look(p, b)
			if root == capture {
				kind, _, _ := strings.Cut(filepath.Base(p), ".")
				counts[kind]++
				if kind == "fd3" {
					checkClientFds(t, p, string(b))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Every client ran every capture (the tester's environ may be
	// unreadable: it is not dumpable, which only root overrides).
	if counts["env"] < 2 || counts["tcmd"] != counts["env"] || counts["fd3"] != counts["env"] {
		t.Errorf("captures %v: want every client's environment, its tester's argv and descriptor 3", counts)
	}
	t.Logf("no secret in %d clients' environments, %d testers' environments read, the run directory and logs", counts["env"], counts["tenv"])
}

// TestProcsSecretFileMustBePrivate refuses a secret file others may read.
func TestProcsSecretFileMustBePrivate(t *testing.T) {
	t.Parallel()
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exp := writeExperiment(t, "name: x\nclient:\n  exec: [\"true\"]\n")
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out, "--secret-file", secretFile)
	if r.code != 2 || !strings.Contains(r.stderr, "(mode 0644)") || !strings.Contains(r.stderr, "hint: make it private: chmod 600") {
		t.Errorf("exit %d\n%s\nwant exit 2 saying the mode and to chmod 600", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run left a run directory")
	}
}

// TestProcsOutDirAndListenProblems checks that a controller that cannot
// listen leaves no run directory (a retry with the same --out works), and
// that every --out problem exits 2 with a hint.
func TestProcsOutDirAndListenProblems(t *testing.T) {
	t.Parallel()
	exp := writeExperiment(t, "name: outdir\nclient:\n  exec: [\"true\"]\nschedule:\n  tester_duration: 500ms\n  client_interval: 100ms\n")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out, "--listen", "192.0.2.1:1")
	if r.code != 2 || !strings.Contains(r.stderr, "listen on 192.0.2.1:1") || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("--listen 192.0.2.1:1: exit %d\n%s\nwant exit 2 with a hint", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a controller that could not listen left a run directory")
	}
	if r := diperf(t, time.Minute, "run", exp, "--out", out); r.code != 0 {
		t.Fatalf("the retry into the same --out: exit %d\n%s", r.code, r.stderr)
	}
	checkRunDir(t, out)
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, out, msg, hint string }{
		{"holds a run", out, "already holds a run", "hint: choose another --out, or remove that directory"},
		{"a file", file, "exists and is not a directory", "hint: give --out a new path"},
		{"below a file", filepath.Join(file, "run"), "cannot create the run directory", "hint: choose an --out where you may create"},
	}
	if st, err := os.Stat("/sys/kernel"); err == nil && st.IsDir() { // read-only even for root
		tests = append(tests, struct{ name, out, msg, hint string }{"parent not writable", "/sys/kernel/diperf-run", "cannot create the run directory", "hint: choose an --out where you may create"})
	}
	for _, tt := range tests {
		r := diperf(t, time.Minute, "run", exp, "--out", tt.out)
		if r.code != 2 || !strings.Contains(r.stderr, tt.msg) || !strings.Contains(r.stderr, tt.hint) {
			t.Errorf("%s: exit %d\n%s\nwant exit 2 holding %q and %q", tt.name, r.code, r.stderr, tt.msg, tt.hint)
		}
	}
}

// TestProcsBoundsRefused checks that a duration that would overflow, a
// trillion testers and more local testers than this machine should fork
// are refused, naming file, line and key, before anything starts.
func TestProcsBoundsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body, want string }{
		{"tester_duration", "schedule:\n  tester_duration: 2000000h\n", ":5: schedule.tester_duration: must be at most 720h"},
		{"testers", "schedule:\n  testers: 1000000000000\n  tester_start_interval: 0\n", ":5: schedule.testers: must be at most 1000000"},
		{"local testers", "schedule:\n  testers: 20000\n  tester_start_interval: 0\n", ":5: schedule.testers: at most 10000 testers run on the \"local\" provider"},
	}
	for _, tt := range tests {
		exp := writeExperiment(t, "name: bounds\nclient:\n  exec: [\"true\"]\n"+tt.body)
		out := filepath.Join(t.TempDir(), "run")
		r := diperf(t, time.Minute, "run", exp, "--out", out)
		if r.code != 2 || !strings.Contains(r.stderr, exp+tt.want) {
			t.Errorf("%s: exit %d\n%s\nwant exit 2 holding %q", tt.name, r.code, r.stderr, exp+tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a refused experiment left a run directory", tt.name)
		}
	}
}

// checkClientFds checks what an exec client of TestProcsSecretNeverReachesClients
// wrote of its descriptors (file p): descriptor 3 is a pipe open for
// writing only (its extras channel, not the secret's pipe, which was read),
// and there is no other beyond stdio.
func checkClientFds(t *testing.T, p, got string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "pipe:") {
		t.Errorf("a client's descriptor 3 is not its extras pipe (%s): %q", p, got)
		return
	}
	flags := strings.TrimSpace(strings.TrimPrefix(lines[1], "flags:"))
	if !strings.HasPrefix(lines[1], "flags:") || len(flags) == 0 || flags[len(flags)-1] != '1' {
		t.Errorf("a client's descriptor 3 is not write-only (%s): %q", p, lines[1])
	}
	for _, fd := range lines[2:] {
		// The shell keeps its own descriptors at 10 and above (copies
		// saved around a redirection, its script); an inherited one would
		// sit just above stdio, where exec.Cmd puts ExtraFiles.
		if n, err := strconv.Atoi(fd); err != nil || n > 3 && n < 10 {
			t.Errorf("a client inherited descriptor %s (%s)", fd, p)
		}
	}
}
