package contain

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runChild runs this test binary's test name in a child process with env
// added, and returns the child's pid once it has exited with status 0.
func runChild(t *testing.T, name string, env ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a child process: %v\n%s", name, err, out)
	}
	return cmd.Process.Pid
}

// TestSubreaperJailEndsEscapedProcesses checks the jail of a host without
// cgroups in a process of its own (a subreaper is one per process): what
// a client left behind outside its group and session, a double-forked
// daemon too, is adopted by the tester and ends at Stop; the orphans that
// exit are reaped meanwhile, and never a client exec.Cmd waits for.
func TestSubreaperJailEndsEscapedProcesses(t *testing.T) {
	dir := os.Getenv("DIPERF_CONTAIN_SUBREAPER_DIR")
	if dir == "" {
		t.Parallel()
		dir = t.TempDir()
		runChild(t, "TestSubreaperJailEndsEscapedProcesses", "DIPERF_CONTAIN_SUBREAPER_DIR="+dir)
		for _, p := range pidsIn(t, dir, "setsid", "setpgrp", "daemon", "stubborn") {
			if Alive(p) {
				t.Errorf("process %d outlived its subreaper jail", p)
			}
		}
		return
	}
	j, err := Open(ModeSubreaper)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	orphansReaped(t, j)
	runIn(t, j, escapees(dir))
	pids := pidsIn(t, dir, "setsid", "setpgrp", "daemon")
	if b, _ := os.ReadFile("/proc/" + itoa(pids[2]) + "/stat"); !strings.Contains(string(b), " "+itoa(os.Getpid())+" ") {
		t.Errorf("the daemon was not adopted by its subreaper %d: %s", os.Getpid(), b)
	}
	checkStop(t, j, 5*time.Second, 3, syscall.SIGTERM, 0, pids)
	runIn(t, j, stubborn(dir))
	stubbornPids := pidsIn(t, dir, "stubborn")
	checkStop(t, j, 300*time.Millisecond, 1, syscall.SIGKILL, 300*time.Millisecond, stubbornPids)
}

// orphansReaped runs clients that each leave an orphan exiting at once,
// several at a time: every client's Wait sees its own exit status (the
// reaper took none of them), and soon no zombie is left.
func orphansReaped(t *testing.T, j *Jail) {
	t.Helper()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10 {
				runIn(t, j, "(sleep 0.01 &); exit 0")
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, zombies := descendants(os.Getpid())
		if len(zombies) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("zombies %v were never reaped", zombies)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func itoa(v int) string { return strconv.Itoa(v) }
