//go:build linux

package monitor

import (
	"errors"
	"os/exec"

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
