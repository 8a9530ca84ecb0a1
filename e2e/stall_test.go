package e2e

import (
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// stallMeter measures how late this machine wakes a real-time thread
// while a test runs: a thread of its own sleeps 1 ms at a time in the
// kernel, at the priority the testers wake with (SCHED_FIFO 1, where
// allowed), and records how late each wake-up came. On this virtual
// machine the host now and then does not run a virtual CPU for
// milliseconds (steal), and whatever runs then is that late, whatever
// diperf does: a test of timing precision allows what the meter saw.
type stallMeter struct {
	stop chan struct{}
	done sync.WaitGroup
	late []time.Duration
}

// startStallMeter starts measuring.
func startStallMeter() *stallMeter {
	m := &stallMeter{stop: make(chan struct{})}
	m.done.Add(1)
	go m.run()
	return m
}

func (m *stallMeter) run() {
	defer m.done.Done()
	runtime.LockOSThread() // the thread ends with the goroutine: its policy goes with it
	param := struct{ priority int32 }{1}
	_, _, _ = syscall.Syscall(syscall.SYS_SCHED_SETSCHEDULER, 0, 1 /* SCHED_FIFO */, uintptr(unsafe.Pointer(&param)))
	ts := syscall.NsecToTimespec(int64(time.Millisecond))
	for {
		select {
		case <-m.stop:
			return
		default:
		}
		before := time.Now()
		_ = syscall.Nanosleep(&ts, nil)
		m.late = append(m.late, max(time.Since(before)-time.Millisecond, 0))
	}
}

// end stops the meter and returns the largest lateness and the 99th
// percentile, in ms.
func (m *stallMeter) end(t *testing.T) (maxMs, p99Ms float64) {
	t.Helper()
	close(m.stop)
	m.done.Wait()
	if len(m.late) == 0 {
		return 0, 0
	}
	slices.Sort(m.late)
	maxMs = float64(m.late[len(m.late)-1]) / 1e6
	p99Ms = float64(m.late[len(m.late)*99/100]) / 1e6
	t.Logf("stall meter: %d wake-ups of a real-time thread, late p99 %.3f ms, max %.3f ms", len(m.late), p99Ms, maxMs)
	return maxMs, p99Ms
}
