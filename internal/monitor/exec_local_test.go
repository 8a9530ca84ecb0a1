package monitor

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runLocal runs a shell script through LocalExec and reads all its output.
func runLocal(t *testing.T, ctx context.Context, script string) (string, error) {
	t.Helper()
	rc, err := LocalExec(ctx, "", []string{"sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// gone reports whether pid no longer exists, not even as a zombie of ours.
func gone(pid int) bool {
	for range 100 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		time.Sleep(20 * time.Millisecond) // a reparented orphan is reaped by init
	}
	return false
}

// A command's output is read to io.EOF after exit 0; another status is
// an error naming it and the end of standard error.
func TestLocalExecStatus(t *testing.T) {
	t.Parallel()
	out, err := runLocal(t, context.Background(), "echo a; echo b")
	if err != nil || out != "a\nb\n" {
		t.Errorf("exit 0: %q, %v; want a, b and io.EOF", out, err)
	}
	_, err = runLocal(t, context.Background(), `i=0; while [ $i -lt 200 ]; do echo "noise $i" >&2; i=$((i+1)); done; echo "cannot reach slurmctld" >&2; exit 3`)
	var ee *ExecError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "exit status 3") || !strings.HasSuffix(err.Error(), "cannot reach slurmctld") {
		t.Fatalf("exit 3: %v; want an ExecError naming the status and ending with stderr's last line", err)
	}
	if len(err.Error()) > stderrTail+100 || strings.Contains(err.Error(), "noise 0\n") {
		t.Errorf("exit 3: error is %d bytes; want at most the last %d of stderr", len(err.Error()), stderrTail)
	}
	if _, err := LocalExec(context.Background(), "db1", []string{"true"}); err == nil {
		t.Error("host db1: no error; LocalExec runs on this machine only")
	}
	if _, err := LocalExec(context.Background(), "", nil); err == nil {
		t.Error("no argv: no error")
	}
}

// Close stops a command that still runs, its whole process group (even
// a member that ignores SIGTERM), and reaps it: no zombie is left.
func TestLocalExecCloseKillsGroup(t *testing.T) {
	t.Parallel()
	rc, err := LocalExec(context.Background(), "", []string{"sh", "-c", `trap '' TERM; sleep 60 & echo $$ $!; wait`})
	if err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 64)
	n, err := rc.Read(line)
	f := strings.Fields(string(line[:n]))
	if err != nil || len(f) != 2 {
		t.Fatalf("read %q, %v; want the shell's and its child's pids", line[:n], err)
	}
	start := time.Now()
	if err := rc.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v; want about the kill grace %v", d, killGrace)
	}
	for _, s := range f {
		pid, _ := strconv.Atoi(s)
		if !gone(pid) {
			t.Errorf("pid %d still exists after Close", pid)
		}
	}
}

// ctx's end stops the command: the read ends with an error, at once.
func TestLocalExecContextKills(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := runLocal(t, ctx, "sleep 60")
	if err == nil || !strings.Contains(err.Error(), "signal") {
		t.Errorf("err %v; want the command killed by a signal", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v; want the timeout and the grace", d)
	}
}

// A command that exits leaving a child that holds its output open: the
// child is killed with the group, so the read ends.
func TestLocalExecExitKillsLeftovers(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	var out string
	var err error
	go func() {
		defer close(done)
		out, err = runLocal(t, context.Background(), "sleep 60 & echo $!")
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("read did not end: the leftover child still holds the output")
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || pid == 0 || !gone(pid) {
		t.Errorf("out %q, %v; want the child's pid, io.EOF, and the child gone", out, err)
	}
}

// fds counts this process's open files.
func fds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(ents)
}

// Many runs, ended every way, leave no file or goroutine behind. Not
// parallel: it counts the whole process's.
func TestLocalExecLeaksNothing(t *testing.T) {
	runLocal(t, context.Background(), "true") // warm up the runtime's own
	f0, g0 := fds(t), runtime.NumGoroutine()
	for range 10 {
		runLocal(t, context.Background(), "echo x")
		runLocal(t, context.Background(), "exit 1")
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		runLocal(t, ctx, "sleep 60")
		cancel()
		rc, err := LocalExec(context.Background(), "", []string{"sleep", "60"})
		if err != nil {
			t.Fatal(err)
		}
		rc.Close()
	}
	var f1, g1 int
	for range 50 {
		if f1, g1 = fds(t), runtime.NumGoroutine(); f1 <= f0 && g1 <= g0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("after 40 runs: %d files (was %d), %d goroutines (was %d)", f1, f0, g1, g0)
}

// A process that left the command's group (setsid) and holds its output
// open does not hold the read: once the command is reaped, what it printed
// is read and the read ends, on exit and on ctx's end alike.
func TestLocalExecEscapedChildHoldsNoRead(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, tt := range []struct{ script, wantErr string }{
		{"setsid sleep 30 & echo $!; echo done", ""},
		{"setsid sleep 30 & echo $!; echo done; sleep 30", "signal"},
	} {
		start := time.Now()
		out, err := runLocal(t, ctx, tt.script)
		f := strings.Fields(out)
		if len(f) > 0 {
			if pid, _ := strconv.Atoi(f[0]); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL) // the escaped child this test started
			}
		}
		if len(f) != 2 || f[1] != "done" || (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: %q, %v; want its output and %q", tt.script, out, err, tt.wantErr)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: read took %v", tt.script, d)
		}
	}
}
