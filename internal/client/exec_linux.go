package client

import (
	"syscall"
	"unsafe"
)

// clientProcAttr puts a client in its own process group, and has the
// kernel send it SIGKILL when its tester dies, so that a tester killed
// with SIGKILL leaves no client running.
//
// Pdeathsig fires when the *thread* that forked the child exits, not the
// process (see syscall.SysProcAttr). The Go runtime never ends a thread
// while the process runs, except one still locked (runtime.LockOSThread)
// by a goroutine that exits; Call is never run by such a goroutine (the
// tester locks a thread only in preciseSleep, which unlocks it before
// returning, and never forks from it), so the signal comes only when the
// tester itself is gone.
func clientProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitExitedNoReap blocks until process pid has exited, leaving it a
// zombie for exec.Cmd.Wait to reap (waitid with WNOWAIT). It reports
// false if it could not wait.
func waitExitedNoReap(pid int) bool {
	const pPID = 1     // idtype_t P_PID
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e == 0
	}
}
