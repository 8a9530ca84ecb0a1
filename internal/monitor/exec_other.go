//go:build !linux

package monitor

import (
	"os/exec"
	"syscall"
)

// awaitExit waits for cmd and reaps it: without waitid's WNOWAIT, what
// is left of its process group is not killed after a normal exit.
func awaitExit(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}

// procAttr puts a command in its own process group.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
