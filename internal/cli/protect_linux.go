package cli

import "syscall"

// protectProcess makes this process non-dumpable (prctl PR_SET_DUMPABLE
// 0): another process of the same user, such as a client the tester runs,
// can then neither ptrace it nor read its /proc/PID/{mem,environ,maps}.
// root (or CAP_SYS_PTRACE) still can. A failure leaves the process as it
// was: nothing better can be done, and the secret never was in environ.
func protectProcess() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
}
