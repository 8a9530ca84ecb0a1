//go:build linux

package tester

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestHealthMeterOnRealProc: on the real /proc, a busy-looping child
// shows in the tester's process tree CPU, and a process that taskset
// holds to one CPU may use at most one core.
func TestHealthMeterOnRealProc(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("no taskset")
	}
	busy := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _, _ = busy.Process.Wait() }()
	time.Sleep(50 * time.Millisecond) // taskset execs sh under its mask
	if c := newHealthMeter("", busy.Process.Pid).cores; c <= 0 || c > 1 {
		t.Errorf("a process held to CPU 0 may use %v cores, want at most 1", c)
	}
	m := newHealthMeter("", os.Getpid())
	if m.cores < 1 {
		t.Fatalf("this process may use %v cores", m.cores)
	}
	start := time.Now()
	m.measure(start.UnixNano())
	time.Sleep(500 * time.Millisecond) // the child spins meanwhile: real CPU time, not a clock to fake
	r := m.measure(time.Now().UnixNano())
	// the child ran on its core for some of the 0.5 s: at least a few
	// ticks on a busy machine; the process tree can use no more than it may
	if !(r.cpuPct > 0 && r.cpuPct <= 100) || r.fds < 3 || r.fdLimit < r.fds {
		t.Errorf("cpu %v %% of %v cores, fds %d of %d", r.cpuPct, m.cores, r.fds, r.fdLimit)
	}
}
