package netsim

import (
	"syscall"
	"time"
)

// sleepPrecise sleeps for d with nanosleep(2), which blocks only this
// thread and wakes within the kernel's timer slack, unlike a Go timer.
// It reports whether it slept.
func sleepPrecise(d time.Duration) bool {
	ts := syscall.NsecToTimespec(int64(d))
	return syscall.Nanosleep(&ts, nil) == nil
}
