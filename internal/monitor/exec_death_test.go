//go:build linux

package monitor

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets this test binary be the process that dies under a
// command: with DIPERF_EXEC_ORPHAN set it runs sleep through LocalExec,
// prints sleep's pid and waits to be killed.
func TestMain(m *testing.M) {
	if os.Getenv("DIPERF_EXEC_ORPHAN") != "" {
		rc, err := LocalExec(context.Background(), "", []string{"sh", "-c", "echo $$; exec sleep 60"})
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		_, _ = io.Copy(os.Stdout, rc)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A command outlives no controller: when the process that ran it dies
// (kill -9, no Close), the command is killed too (the command itself:
// Linux's parent-death signal does not reach its children).
func TestLocalExecDiesWithItsRunner(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DIPERF_EXEC_ORPHAN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	_ = cmd.Process.Kill() // the runner this test started
	_ = cmd.Wait()
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("runner printed %q", line)
	}
	if !gone(pid) {
		t.Errorf("the command (pid %d) outlived the process that ran it", pid)
	}
}
