//go:build !linux

package client

import "syscall"

// clientProcAttr puts a client in its own process group.
func clientProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// waitExitedNoReap cannot wait without reaping here: it reports false.
func waitExitedNoReap(int) bool { return false }
