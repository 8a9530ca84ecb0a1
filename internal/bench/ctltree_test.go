package bench

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestProcTreeSynthetic sums a root and its descendants, and nobody else.
func TestProcTreeSynthetic(t *testing.T) {
	ps := []procStat{
		{pid: 1, ppid: 0, cpu: 100, rss: 1000},
		{pid: 10, ppid: 1, cpu: 1, rss: 10}, // the root
		{pid: 11, ppid: 10, cpu: 2, rss: 20},
		{pid: 12, ppid: 10, cpu: 4, rss: 40},
		{pid: 13, ppid: 12, cpu: 8, rss: 80},
		{pid: 14, ppid: 1, cpu: 16, rss: 160}, // a sibling
	}
	u := procTree(10, ps)
	if u.Procs != 4 || u.CPU != 15 || u.RSS != 150 {
		t.Errorf("tree of 10: %+v, want 4 processes, CPU 15, RSS 150", u)
	}
	if u := procTree(99, ps); u.Procs != 0 {
		t.Errorf("tree of a gone process: %+v", u)
	}
}

// TestProcTreeReal reads a real tree: a shell whose child shell has a
// grandchild, and which has reaped a child that burnt CPU.
func TestProcTreeReal(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	// The first child burns CPU and exits (reaped by wait: its time goes
	// to the root's cutime); then a child shell with a sleeping child.
	script := `i=0; (while [ $i -lt 300000 ]; do i=$((i+1)); done); sh -c 'sleep 30 & wait' & sleep 30 & wait`
	c := exec.Command("sh", "-c", script)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	var u treeUsage
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if u = treeOf(c.Process.Pid); u.Procs == 4 {
			break
		}
	}
	root, err := readProcStat(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if u.Procs != 4 {
		t.Fatalf("tree of %d: %d processes, want 4 (sh, sh, sleep, sleep)", c.Process.Pid, u.Procs)
	}
	// Each of the three descendants has at least some resident pages (a
	// sleep has about 0.5-1 MB; the root shell, which ran the loop, may have
	// more than any of them, so a multiple of the root's is no bound).
	const minRSS = 256 << 10
	if root.rss == 0 || u.RSS < root.rss+3*minRSS {
		t.Errorf("tree RSS %d, root %d: the descendants not counted (want at least root + 3 × %d)", u.RSS, root.rss, minRSS)
	}
	if u.CPU < 100*time.Millisecond || u.CPU < root.cpu {
		t.Errorf("tree CPU %v (root %v): the reaped child's CPU not counted", u.CPU, root.cpu)
	}
}
