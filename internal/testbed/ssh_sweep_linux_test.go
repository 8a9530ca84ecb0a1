package testbed

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSweepRunKillsRecordedSessionsOnly starts two "testers" in sessions
// of their own, each with a stray in a process group of its own; the
// sweep of one slot ends that session alone, the sweep of the run the
// other, and --remove takes the run's folder and the empty runs folder.
func TestSweepRunKillsRecordedSessionsOnly(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("needs perl (setpgrp) for a stray in its own process group")
	}
	dir := t.TempDir()
	pids := filepath.Join(dir, "runs", "r1", "pids")
	if err := os.MkdirAll(pids, 0o755); err != nil {
		t.Fatal(err)
	}
	var testers []*exec.Cmd
	for slot := range 2 {
		c := exec.Command("sh", "-c", `perl -e 'setpgrp(0, 0); $| = 1; print "ready\n"; exec qw(sleep 300)' & exec sleep 300 >/dev/null`)
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			t.Fatalf("the stray did not start: %q, %v", line, err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); killSession(c.Process.Pid); _ = c.Wait() })
		testers = append(testers, c)
		if err := os.WriteFile(filepath.Join(pids, strconv.Itoa(slot)), []byte(strconv.Itoa(c.Process.Pid)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	members := func(sid int) int { // process groups of the session
		return len(groupsOfSessions(map[int]bool{sid: true}))
	}
	n, _, err := SweepRun(dir, "r1", 0, false, nil)
	if err != nil || n < 2 {
		t.Fatalf("sweep of slot 0: %d groups, %v; want 2", n, err)
	}
	_ = testers[0].Wait()
	if members(testers[0].Process.Pid) != 0 || members(testers[1].Process.Pid) != 2 {
		t.Errorf("after sweeping slot 0: session 0 has %d groups, session 1 %d; want 0 and 2",
			members(testers[0].Process.Pid), members(testers[1].Process.Pid))
	}
	if _, _, err := SweepRun(dir, "r1", -1, true, nil); err != nil {
		t.Fatal(err)
	}
	_ = testers[1].Wait()
	if members(testers[1].Process.Pid) != 0 {
		t.Errorf("the run's sweep left session 1 alive")
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !os.IsNotExist(err) {
		t.Errorf("--remove left the runs folder: %v", err)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, _, err := SweepRun(dir, bad, -1, true, nil); err == nil {
			t.Errorf("SweepRun accepted run id %q", bad)
		}
	}
}

// TestSweepStaleRemovesDeadRunsOnly: a run with no live tester is removed
// with what it made inside the work dir, oldest last; a path above the
// work dir is handed over, one outside it is never touched; a run with a
// live tester, and the caller's own, stay.
func TestSweepStaleRemovesDeadRunsOnly(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "work")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{"runs/dead/pids", "runs/live/pids", "runs/mine/pids", "bin", "files/data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"bin/diperf", "files/data/x", "files/other", outside} {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	live := exec.Command("sleep", "300")
	live.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = live.Process.Kill(); _ = live.Wait() })
	write := func(rel, body string) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("runs/live/pids/0", strconv.Itoa(live.Process.Pid))
	write("runs/dead/pids/0", "999999999")
	made := []string{dir, filepath.Join(dir, "bin"), filepath.Join(dir, "bin/diperf"), filepath.Join(dir, "files"),
		filepath.Join(dir, "files/data"), filepath.Join(dir, "files/data/x"), outside}
	write("runs/dead/"+MadeFile, strings.Join(made, "\x00")+"\x00")
	sw, err := SweepStale(dir, "mine")
	if err != nil || strings.Join(sw.Removed, ",") != "dead" || strings.Join(sw.Adopt, ",") != dir || len(sw.Kept) != 0 {
		t.Fatalf("SweepStale = %+v, %v; want [dead], [%s]", sw, err, dir)
	}
	for rel, want := range map[string]bool{"bin": false, "files/data": false, "files/other": true, "runs/dead": false,
		"runs/live": true, "runs/mine": true, outside: true} {
		p := rel
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, rel)
		}
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", rel, err == nil, want)
		}
	}
}
