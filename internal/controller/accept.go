package controller

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// Back-off of the accept loop after a failed Accept (EMFILE, ENFILE,
// ECONNABORTED, ...), as net/http's server does it.
const (
	minAcceptBackoff = 5 * time.Millisecond
	maxAcceptBackoff = time.Second
)

// acceptLoop accepts tester connections until ln is closed and serves
// each one on its own goroutine, counted in wg. A failed Accept never ends
// it: it backs off and retries, so that testers launched after the
// controller ran out of file descriptors still join.
func (c *controller) acceptLoop(ln net.Listener) {
	acceptEach(ln, func(event, detail string) { c.events.Add(event, -1, "", detail) }, c.accepted)
}

// attach serves, on its own goroutine counted in c.sessions, a tester
// connection a testbed opened itself (testbed.Spec.Attach, e.g. an SSH
// session's stdio): not one of the pool's (accepted), since no outsider
// can open it.
func (c *controller) attach(conn net.Conn) {
	c.sessions.Add(1)
	go func() {
		defer c.sessions.Done()
		c.serve(conn, c.guard, nil)
	}()
}

// newGuard makes the run's guard; stop ends its periodic reject summary.
func (c *controller) newGuard() (stop func()) {
	lim := c.preAuthLimits()
	c.guard = &guard{pool: preauth.NewPool(lim), handshakes: newHandshakeGate(maxHandshakes, maxHandshakesPerSource),
		rejects: newRejectLog(c.events.Add)}
	c.events.Add("pre-auth-limits", -1, "", fmt.Sprintf("at most %d connections not yet proved, %d from one source; %d handshakes at once, %d from one source",
		lim.Conns, lim.PerSource, maxHandshakes, maxHandshakesPerSource))
	return c.guard.rejects.flushEvery(rejectInterval)
}

// guard is what protects the controller from connections that have not
// proved themselves: the pool of those accepted and not yet proved (a
// total and a per-source cap, preauth), a cap on handshakes at once
// (in all and per source), and an aggregated log of the connections it
// refused.
type guard struct {
	pool       *preauth.Pool
	handshakes *handshakeGate
	rejects    *rejectLog
}

// acceptEach calls handle with every connection ln accepts until ln is
// closed (net.ErrClosed). Any other Accept error is retried after a wait
// that doubles from minAcceptBackoff to maxAcceptBackoff, reset by the
// next success; a streak of failures is logged twice: its first error, and
// how many failed once Accept works again (or the loop ends).
func acceptEach(ln net.Listener, log func(event, detail string), handle func(net.Conn)) {
	var delay time.Duration
	var streak int
	var first error
	var since time.Time
	for {
		conn, err := ln.Accept()
		if err == nil {
			if streak > 0 {
				log("accept-recovered", fmt.Sprintf("accepting again after %d failed accepts over %v (first: %v)",
					streak, time.Since(since).Round(time.Millisecond), first))
			}
			delay, streak = 0, 0
			handle(conn)
			continue
		}
		if errors.Is(err, net.ErrClosed) {
			if streak > 0 {
				log("accept-error", fmt.Sprintf("%d failed accepts until the listener closed (first: %v)", streak, first))
			}
			return
		}
		if streak == 0 {
			first, since = err, time.Now()
			log("accept-error", err.Error()+"; retrying with back-off")
		}
		streak++
		delay = min(max(2*delay, minAcceptBackoff), maxAcceptBackoff)
		time.Sleep(delay)
	}
}

// gate is a counting semaphore.
type gate chan struct{}

func newGate(n int) gate { return make(gate, n) }

// acquire takes a place, waiting at most timeout; false if none came free.
func (g gate) acquire(timeout time.Duration) bool {
	select {
	case g <- struct{}{}:
		return true
	default:
	}
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	select {
	case g <- struct{}{}:
		return true
	case <-tm.C:
		return false
	}
}

func (g gate) release() { <-g }
