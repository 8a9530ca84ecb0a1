package netsim

import (
	"runtime"
	"time"
)

// spinWindow is how long before a due time the timer sleep ends and the
// fine-grained wait (see nap) takes over. Go timers on Linux can fire up to
// about a millisecond late (epoll has millisecond resolution).
const spinWindow = time.Millisecond

// napSlack is how much earlier than needed a nap ends, to absorb the
// kernel's timer slack (50 µs by default); the rest is spun.
const napSlack = 100 * time.Microsecond

// maxNap caps one nap so that a scheduler notices newly queued packets.
const maxNap = 250 * time.Microsecond

// nap waits part of the remaining time d of a final approach: a short
// precise kernel sleep while d is long, and a yield once it is short.
func nap(d time.Duration) {
	if d > napSlack && sleepPrecise(min(d-napSlack, maxNap)) {
		return
	}
	runtime.Gosched()
}

// waitUntil blocks until due, returning true, or until stop is closed,
// returning false. timer is reused between calls to avoid allocations.
func waitUntil(due time.Time, timer *time.Timer, stop <-chan struct{}) bool {
	for {
		d := time.Until(due)
		if d <= 0 {
			return true
		}
		if d > spinWindow {
			timer.Reset(d - spinWindow)
			select {
			case <-timer.C:
			case <-stop:
				timer.Stop()
				return false
			}
			continue
		}
		if isClosed(stop) {
			return false
		}
		nap(d)
	}
}

// newStoppedTimer returns a timer that is not running.
func newStoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}
