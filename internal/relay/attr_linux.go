package relay

import "syscall"

// workerAttr puts a worker in its own process group (a Ctrl-C at the
// terminal is the controller's to handle: it stops the testers through the
// relays) and kills it with the controller as a backup (a worker also ends
// at EOF on its Unix socket when the controller dies).
func workerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// socketPair makes a connected pair of Unix stream sockets, closed on exec
// (a worker inherits only its own end, as fd 4).
func socketPair() ([2]int, error) {
	return syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}
