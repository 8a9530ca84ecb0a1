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
// Garbage collection is held off meanwhile: a collection stopping the
// world just as the thread wakes would hold it back. (Sleeping in a raw
// system call, keeping the Go processor, was tried and is worse: the
// runtime then preempts the goroutine as a long runner, and it can come
// back 10-30 ms late.)
func preciseSleep(remaining func() time.Duration, now func() int64) int64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	realtime := setScheduler(schedFIFO|schedResetOnFork, 1) == nil
	for d := remaining(); d > 0; d = remaining() {
		ts := syscall.NsecToTimespec(int64(d))
		_ = syscall.Nanosleep(&ts, nil) // EINTR: sleep again for what remains
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
