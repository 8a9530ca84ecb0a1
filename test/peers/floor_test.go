package peers

import (
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// timerFloor measures, while a tool runs, how late this machine wakes a
// thread that asks to: a thread of the benchmark's own sleeps 500 µs at a
// time in the kernel, with 1 µs of timer slack, as diperf's open-model
// loop does between its wakes, and records how late each wake-up came.
// The loop's scheduling lag cannot beat it: it is the floor the machine
// sets (a virtual machine whose host does not run it for a while, other
// work on the cores).
type timerFloor struct {
	stop chan struct{}
	done sync.WaitGroup
	late []time.Duration
}

func startTimerFloor() *timerFloor {
	f := &timerFloor{stop: make(chan struct{})}
	f.done.Add(1)
	go f.run()
	return f
}

func (f *timerFloor) run() {
	defer f.done.Done()
	runtime.LockOSThread() // the thread ends with the goroutine, and its slack with it
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	ts := syscall.NsecToTimespec(int64(500 * time.Microsecond))
	for {
		select {
		case <-f.stop:
			return
		default:
		}
		before := time.Now()
		_ = syscall.Nanosleep(&ts, nil)
		f.late = append(f.late, max(time.Since(before)-500*time.Microsecond, 0))
	}
}

// p99Ms stops the measure and returns the 99th percentile of the
// lateness, in ms.
func (f *timerFloor) p99Ms() float64 {
	close(f.stop)
	f.done.Wait()
	if len(f.late) == 0 {
		return 0
	}
	slices.Sort(f.late)
	return float64(f.late[len(f.late)*99/100]) / 1e6
}
