package netsim

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// patience bounds how long a test waits for something a working proxy
// does at once: it only keeps a broken one from hanging the test, and is
// long enough for a busy machine.
const patience = 10 * time.Second

// manualClock is a clock that moves only when the test advances it, and
// that shows the due times its waiters wait for: with it, a test checks a
// proxy's delays exactly, on real sockets, however busy the machine is.
type manualClock struct {
	mu      sync.Mutex
	t       time.Time
	waits   map[*manualWait]struct{}
	begun   int           // waits begun so far
	changed chan struct{} // closed, and replaced, at every change
}

// manualWait is one goroutine waiting on a manualClock.
type manualWait struct {
	due     time.Time
	precise bool
	fired   chan struct{} // closed when the clock reaches due
}

var _ clock = (*manualClock)(nil)

// newManualClock returns a manual clock set to the present.
func newManualClock() *manualClock {
	return &manualClock{t: time.Now(), waits: map[*manualWait]struct{}{}, changed: make(chan struct{})}
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) newWaiter(precise bool) waiter { return manualWaiter{c, precise} }

// manualWaiter is a waiter on a manualClock.
type manualWaiter struct {
	c       *manualClock
	precise bool
}

func (w manualWaiter) until(due time.Time, wake, stop <-chan struct{}) bool {
	c := w.c
	c.mu.Lock()
	if !due.IsZero() && !c.t.Before(due) {
		c.mu.Unlock()
		return true
	}
	mw := &manualWait{due: due, precise: w.precise, fired: make(chan struct{})}
	c.waits[mw] = struct{}{}
	c.begun++
	c.changedLocked()
	c.mu.Unlock()
	select {
	case <-mw.fired:
		return true
	case <-wake:
	case <-stop:
	}
	c.mu.Lock()
	delete(c.waits, mw)
	c.changedLocked()
	c.mu.Unlock()
	return false
}

// changedLocked wakes whoever waits for a change; c.mu is held.
func (c *manualClock) changedLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// advanceTo sets the clock to t (never back) and releases the waits due
// by then.
func (c *manualClock) advanceTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.t) {
		c.t = t
	}
	for mw := range c.waits {
		if !mw.due.IsZero() && !c.t.Before(mw.due) {
			close(mw.fired)
			delete(c.waits, mw)
		}
	}
	c.changedLocked()
}

// waitsBegun returns how many waits have begun so far.
func (c *manualClock) waitsBegun() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.begun
}

// advance moves the clock d on.
func (c *manualClock) advance(d time.Duration) { c.advanceTo(c.now().Add(d)) }

// dues returns the due times waited for, sorted, by the precise waiters
// (those of the traffic) or by the others.
func (c *manualClock) dues(precise bool) []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.duesLocked(precise)
}

func (c *manualClock) duesLocked(precise bool) []time.Time {
	var out []time.Time
	for mw := range c.waits {
		if mw.precise == precise && !mw.due.IsZero() {
			out = append(out, mw.due)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// await waits until cond holds for the due times of the precise or the
// other waiters, and returns them; it fails the test after patience.
func (c *manualClock) await(t *testing.T, what string, precise bool, cond func(dues []time.Time) bool) []time.Time {
	t.Helper()
	timeout := time.After(patience)
	for {
		c.mu.Lock()
		dues, changed := c.duesLocked(precise), c.changed
		c.mu.Unlock()
		if cond(dues) {
			return dues
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("timed out waiting for %s; waits due %v after now", what, sinceNow(c, dues))
		}
	}
}

// heldFor waits until the traffic's waiters wait for exactly one due time
// and returns how far ahead of the clock it is: the delay of the one
// packet or chunk in flight.
func (c *manualClock) heldFor(t *testing.T, what string) time.Duration {
	t.Helper()
	dues := c.await(t, what, true, func(d []time.Time) bool { return len(d) == 1 })
	return dues[0].Sub(c.now())
}

// sinceNow returns dues as offsets from the clock's time, for messages.
func sinceNow(c *manualClock, dues []time.Time) []time.Duration {
	now := c.now()
	out := make([]time.Duration, len(dues))
	for i, d := range dues {
		out[i] = d.Sub(now)
	}
	return out
}

// TestRealWaiterNeverEarly checks that a wait on the real clock ends at
// its due time or after it, never before, on either side of the spin
// window.
func TestRealWaiterNeverEarly(t *testing.T) {
	t.Parallel()
	for _, precise := range []bool{true, false} {
		w := realClock{}.newWaiter(precise)
		for _, d := range []time.Duration{-time.Millisecond, 0, 200 * time.Microsecond, 900 * time.Microsecond, 3 * time.Millisecond} {
			due := time.Now().Add(d)
			if !w.until(due, nil, nil) {
				t.Fatalf("precise %v: wait of %v ended early without wake or stop", precise, d)
			}
			if late := time.Since(due); late < 0 {
				t.Errorf("precise %v: wait of %v ended %v early", precise, d, -late)
			}
		}
	}
}

// TestRealWaiterWakeAndStop checks that a wake-up or a stop ends a wait
// with no due time or a far one, and that a wake-up is consumed.
func TestRealWaiterWakeAndStop(t *testing.T) {
	t.Parallel()
	for _, precise := range []bool{true, false} {
		w := realClock{}.newWaiter(precise)
		for _, due := range []time.Time{{}, time.Now().Add(time.Hour)} {
			wake := make(chan struct{}, 1)
			wake <- struct{}{}
			if w.until(due, wake, nil) || len(wake) != 0 {
				t.Errorf("precise %v, due %v: a pending wake-up did not end the wait, or was not consumed", precise, due)
			}
			stop := make(chan struct{})
			go close(stop)
			if w.until(due, nil, stop) {
				t.Errorf("precise %v, due %v: the wait ended without its due time or stop", precise, due)
			}
		}
	}
}
