package tester

import (
	"runtime"
	"syscall"
	"time"
)

// preciseSleep sleeps until remaining() reaches zero, in nanosleep calls on
// a thread of its own, so that waking up does not wait for Go's timers.
func preciseSleep(remaining func() time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for d := remaining(); d > 0; d = remaining() {
		ts := syscall.NsecToTimespec(int64(d))
		_ = syscall.Nanosleep(&ts, nil)
	}
}
