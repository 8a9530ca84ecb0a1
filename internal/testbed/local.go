package testbed

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Local starts testers as processes on this machine.
type Local struct {
	Binary string // the diperf binary ("" = this executable)
}

var _ Testbed = Local{}

// Start starts one tester process. It runs in its own process group so that
// a Ctrl-C at the terminal reaches the controller alone, which then stops
// the testers in order.
func (l Local) Start(_ context.Context, s Spec) (Handle, error) {
	bin := l.Binary
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("local testbed: finding the diperf binary: %w", err)
		}
		bin = exe
	}
	args := append([]string{"tester", "--controller", s.Controller, "--slot", strconv.Itoa(s.Slot)}, s.ExtraArgs...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), SecretEnv+"="+EncodeSecret(s.Secret))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.LogPath != "" {
		f, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("local testbed: tester log: %w", err)
		}
		defer f.Close() // the child holds its own copy
		cmd.Stdout, cmd.Stderr = f, f
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("local testbed: starting tester %d: %w", s.Slot, err)
	}
	host, _ := os.Hostname()
	return &localHandle{cmd: cmd, host: host}, nil
}

type localHandle struct {
	cmd  *exec.Cmd
	host string
}

func (h *localHandle) Host() string { return h.host }
func (h *localHandle) PID() int     { return h.cmd.Process.Pid }
func (h *localHandle) Wait() error  { return h.cmd.Wait() }

// Kill kills the tester's whole process group, clients included.
func (h *localHandle) Kill() error {
	return syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
}
