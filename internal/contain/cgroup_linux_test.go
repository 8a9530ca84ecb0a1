package contain

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestCgroupJailEndsEscapedProcesses checks the cgroup jail: what a
// client left behind outside its group and session ends at Stop, on
// SIGTERM when it obeys it, else on SIGKILL once the grace is over; Close
// removes the group.
func TestCgroupJailEndsEscapedProcesses(t *testing.T) {
	t.Parallel()
	j, err := Open(ModeCgroup)
	if err != nil {
		t.Skipf("no cgroup jail on this host: %v", err)
	}
	dir := t.TempDir()
	runIn(t, j, escapees(dir))
	checkStop(t, j, 5*time.Second, 3, syscall.SIGTERM, 0, pidsIn(t, dir, "setsid", "setpgrp", "daemon"))
	runIn(t, j, stubborn(dir))
	stubbornPids := pidsIn(t, dir, "stubborn")
	checkStop(t, j, 300*time.Millisecond, 1, syscall.SIGKILL, 300*time.Millisecond, stubbornPids)
	if n, sig := j.Stop(time.Second); n != 0 || sig != 0 {
		t.Errorf("Stop of an empty jail found %d processes (%v)", n, sig)
	}
	cg := j.cg.dir
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cg); err == nil {
		t.Errorf("Close left the cgroup %s", cg)
	}
}

// TestCgroupJailSweptAfterItsTester checks SweepTester: a jail whose
// tester died without Close (killed) is emptied and removed by whoever
// finds it.
func TestCgroupJailSweptAfterItsTester(t *testing.T) {
	if dir := os.Getenv("DIPERF_CONTAIN_SWEEP_DIR"); dir != "" {
		j, err := Open(ModeCgroup)
		if err != nil {
			os.Exit(3)
		}
		runIn(t, j, stubborn(dir))
		os.Exit(0) // no Close: what the jail holds is left
	}
	t.Parallel()
	probe, err := Open(ModeCgroup)
	if err != nil {
		t.Skipf("no cgroup jail on this host: %v", err)
	}
	_ = probe.Close()
	dir := t.TempDir()
	child := runChild(t, "TestCgroupJailSweptAfterItsTester", "DIPERF_CONTAIN_SWEEP_DIR="+dir)
	pids := pidsIn(t, dir, "stubborn")
	if !Alive(pids[0]) {
		t.Fatal("the jailed process died with its tester: nothing to sweep")
	}
	if n := SweepTester(child); n < 1 {
		t.Errorf("SweepTester(%d) killed %d processes, want the shell (and its sleep)", child, n)
	}
	if Alive(pids[0]) {
		t.Errorf("process %d is still alive after SweepTester", pids[0])
	}
	if d, err := cgroupDir("self"); err == nil {
		if _, err := os.Stat(d + "/" + JailName(child)); err == nil {
			t.Errorf("SweepTester left the cgroup %s", JailName(child))
		}
	}
}
