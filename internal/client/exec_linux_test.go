package client

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// gone waits up to 5 s for process pid to be dead (gone or a zombie).
func gone(t *testing.T, pid int) bool {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// readPid waits for a pid file to be written and returns the pid in it.
func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(path)
		if pid, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// TestExecKillsWhatACallLeftBehind checks that a call ending normally
// does not leave its background children running.
func TestExecKillsWhatACallLeftBehind(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "bg.pid")
	c := NewExec([]string{"sh", "-c", "sleep 30 & echo $! > " + pidFile}, os.Environ(), time.Minute)
	start := time.Now()
	if r := c.Call(context.Background()); r.Status != sample.OK {
		t.Fatalf("call: %+v", r)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the call took %v: its background child held it", el)
	}
	if pid := readPid(t, pidFile); !gone(t, pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the background child %d of a finished call is still running", pid)
	}
}

// TestExecClientDiesWithItsTester runs a call in a child process (this
// test binary, standing in for a tester), kills that process with SIGKILL
// and checks that the client does not outlive it.
func TestExecClientDiesWithItsTester(t *testing.T) {
	if pf := os.Getenv("DIPERF_EXEC_TEST_PIDFILE"); pf != "" {
		NewExec([]string{"sh", "-c", "echo $$$$ > " + pf + "; exec sleep 30"}, os.Environ(), time.Minute).Call(context.Background())
		os.Exit(0)
	}
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "client.pid")
	cmd := exec.Command(os.Args[0], "-test.run=^TestExecClientDiesWithItsTester$")
	cmd.Env = append(os.Environ(), "DIPERF_EXEC_TEST_PIDFILE="+pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	client := readPid(t, pidFile)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !gone(t, client) {
		_ = syscall.Kill(client, syscall.SIGKILL)
		t.Fatalf("client %d outlived its tester, killed with SIGKILL", client)
	}
}
