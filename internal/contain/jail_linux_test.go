package contain

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapees is a client that leaves behind, each out of its process
// group, a sleep that called setsid, a perl that called setpgrp, and a
// daemon that forked twice and called setsid (its parent exits at once);
// it writes their pids to the files setsid, setpgrp and daemon of dir.
func escapees(dir string) string {
	return strings.ReplaceAll(`setsid sleep 600 & echo $! > D/setsid
perl -e 'setpgrp; sleep 600' & echo $! > D/setpgrp
perl -MPOSIX -e 'fork and exit; POSIX::setsid(); fork and exit; open F, ">", shift or die; print F $$; close F; sleep 600' D/daemon.tmp
while [ ! -s D/daemon.tmp ]; do sleep 0.01; done; mv D/daemon.tmp D/daemon`, "D/", dir+"/")
}

// stubborn is a client that leaves behind a process that called setsid
// and ignores SIGTERM; it writes its pid to dir/stubborn once it does.
func stubborn(dir string) string {
	return strings.ReplaceAll(`setsid sh -c 'trap "" TERM; echo $$ > D/stubborn.tmp; mv D/stubborn.tmp D/stubborn; exec sleep 600' &`, "D/", dir+"/")
}

// runIn runs script with sh as a client of j, in a process group of its
// own as clients are, and waits for it.
func runIn(t *testing.T, j *Jail, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := j.Start(cmd); err != nil {
		t.Fatalf("start in %v: %v", j, err)
	}
	err := cmd.Wait()
	j.Reaped(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
}

// pidsIn returns the pids written to the named files of dir (waiting
// up to 5 s for each), and kills them when the test ends, if they still
// run.
func pidsIn(t *testing.T, dir string, names ...string) []int {
	t.Helper()
	var pids []int
	for _, n := range names {
		pid, err := readPid(filepath.Join(dir, n))
		for deadline := time.Now().Add(5 * time.Second); err != nil && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			pid, err = readPid(filepath.Join(dir, n))
		}
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	t.Cleanup(func() {
		for _, p := range pids {
			if Alive(p) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	return pids
}

// checkStop stops j with grace and checks that it found at least n
// processes, ended them with want after at least minWait, and that none
// of pids is left.
func checkStop(t *testing.T, j *Jail, grace time.Duration, n int, want syscall.Signal, minWait time.Duration, pids []int) {
	t.Helper()
	start := time.Now()
	got, sig := j.Stop(grace)
	took := time.Since(start)
	if got < n || sig != want || took < minWait {
		t.Errorf("Stop(%v) found %d processes and ended them with %v in %v; want %d or more, %v, at least %v", grace, got, sig, took, n, want, minWait)
	}
	for _, p := range pids {
		if Alive(p) {
			t.Errorf("process %d is still alive after Stop", p)
		}
	}
}

// readPid reads the pid a client wrote to path.
func readPid(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return 0, fmt.Errorf("%s: %q is no pid", path, b)
	}
	return pid, nil
}
