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

// maxNap caps one nap so that a waiter notices a wake-up or a stop.
const maxNap = 250 * time.Microsecond

// nap waits part of the remaining time d of a final approach: a short
// precise kernel sleep while d is long, and a yield once it is short.
func nap(d time.Duration) {
	if d > napSlack && sleepPrecise(min(d-napSlack, maxNap)) {
		return
	}
	runtime.Gosched()
}

// clock is the time by which a proxy delays traffic: realClock in
// production; the tests use a manual clock, which moves only when they
// advance it.
type clock interface {
	// now returns the current time.
	now() time.Time
	// newWaiter returns a waiter for one goroutine. A precise waiter
	// ends its waits within microseconds of the due time (it delivers
	// traffic); another within a Go timer's millisecond.
	newWaiter(precise bool) waiter
}

// waiter waits on a clock; it serves one goroutine at a time.
type waiter interface {
	// until blocks until the clock reaches due and reports true, or
	// until wake or stop is ready (or closed) first and reports false.
	// A zero due waits for wake or stop only; a nil wake is never ready.
	until(due time.Time, wake, stop <-chan struct{}) bool
}

// realClock is the system clock.
type realClock struct{}

var _ clock = realClock{}

func (realClock) now() time.Time { return time.Now() }

func (realClock) newWaiter(precise bool) waiter {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &realWaiter{timer: t, precise: precise}
}

// realWaiter waits on a Go timer, reused from wait to wait, and when
// precise, on the timer until spinWindow before the due time only, then
// with naps.
type realWaiter struct {
	timer   *time.Timer
	precise bool
}

// idleWait is how long a wait with no due time sleeps before it looks
// again.
const idleWait = time.Hour

func (w *realWaiter) until(due time.Time, wake, stop <-chan struct{}) bool {
	for {
		d := idleWait
		if !due.IsZero() {
			if d = time.Until(due); d <= 0 {
				return true
			}
		}
		if !w.precise || d > spinWindow {
			if w.precise {
				d -= spinWindow
			}
			if !w.sleep(d, wake, stop) {
				return false
			}
			continue
		}
		if ready(stop) || ready(wake) {
			return false
		}
		nap(d)
	}
}

// sleep waits for d on the timer, and reports false if wake or stop
// came first.
func (w *realWaiter) sleep(d time.Duration, wake, stop <-chan struct{}) bool {
	w.timer.Reset(d)
	select {
	case <-w.timer.C:
		return true
	case <-wake:
	case <-stop:
	}
	w.timer.Stop()
	return false
}

// ready reports whether ch can be received from without blocking, and if
// so receives: a closed channel, or a signal, which it consumes. A nil
// channel is never ready.
func ready(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
