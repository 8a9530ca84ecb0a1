package tester

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"
)

// Scheduling policies of sched_setscheduler(2).
const (
	schedOther       = 0
	schedFIFO        = 1
	schedResetOnFork = 0x40000000 // children start with the normal policy
)

// preciseSleep sleeps until remaining() reaches zero, in nanosleep calls on
// a thread of its own, so that waking up does not wait for Go's timers, and
// returns now() read at once on waking. Where allowed (root or
// CAP_SYS_NICE) the thread sleeps and wakes with a real-time priority, so
// that many testers waking at the same instant on few cores each get the
// CPU at once to read their clock, rather than queue behind the others'
// work; it drops back to the normal policy before returning, and processes
// it starts never inherit it.
//
// The sleep is a raw system call: the thread keeps its Go processor while
// it sleeps, so on waking it reads the clock at once instead of waiting
// for a processor that another goroutine holds (up to Go's 10 ms time
// slice). Garbage collection is held off meanwhile, as a collection
// starting in the window would have to wait for this thread or stop it.
func preciseSleep(remaining func() time.Duration, now func() int64) int64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	realtime := setScheduler(schedFIFO|schedResetOnFork, 1) == nil
	for d := remaining(); d > 0; d = remaining() {
		ts := syscall.NsecToTimespec(int64(d))
		// EINTR (a signal, such as Go's preemption) just means: sleep again.
		syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
	at := now()
	if realtime {
		_ = setScheduler(schedOther, 0)
	}
	return at
}

// setScheduler sets the calling thread's scheduling policy and priority.
func setScheduler(policy, priority int) error {
	param := struct{ priority int32 }{int32(priority)}
	_, _, errno := syscall.Syscall(syscall.SYS_SCHED_SETSCHEDULER, 0, uintptr(policy), uintptr(unsafe.Pointer(&param)))
	if errno != 0 {
		return errno
	}
	return nil
}
