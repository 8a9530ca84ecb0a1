//go:build !linux

package relay

import "syscall"

// workerAttr puts a worker in its own process group: a Ctrl-C at the
// terminal is the controller's to handle.
func workerAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// socketPair makes a connected pair of Unix stream sockets, closed on exec.
func socketPair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	return fds, err
}
