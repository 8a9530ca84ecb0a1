//go:build linux

package monitor

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// awaitExit waits until cmd has exited, leaving it unreaped (so its
// process group's id stays its own until the group is killed).
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return true, cmd.Wait()
			}
			return false, nil
		}
	}
}

// procAttr puts a command in its own process group, and has the kernel
// kill it (the command, not its children) if this process dies first.
// Pdeathsig fires when the thread that forked it exits: the Go runtime
// ends a thread only when a goroutine exits locked to it, and the
// scraper's goroutines never lock one.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
