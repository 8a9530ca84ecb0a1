package testbed

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	n, err := SweepRun(dir, "r1", 0, false)
	if err != nil || n < 2 {
		t.Fatalf("sweep of slot 0: %d groups, %v; want 2", n, err)
	}
	_ = testers[0].Wait()
	if members(testers[0].Process.Pid) != 0 || members(testers[1].Process.Pid) != 2 {
		t.Errorf("after sweeping slot 0: session 0 has %d groups, session 1 %d; want 0 and 2",
			members(testers[0].Process.Pid), members(testers[1].Process.Pid))
	}
	if _, err := SweepRun(dir, "r1", -1, true); err != nil {
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
		if _, err := SweepRun(dir, bad, -1, true); err == nil {
			t.Errorf("SweepRun accepted run id %q", bad)
		}
	}
}
