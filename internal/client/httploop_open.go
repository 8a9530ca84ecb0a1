//go:build linux

package client

import (
	"context"
	"errors"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/diperf/diperf/internal/sample"
)

// openRun is the open model's state in an event loop: the calls due and
// waiting for a connection, and the connections free.
type openRun struct {
	plan     OpenPlan
	record   func(uint32, int64, int64, int64, *Reply)
	nextAt   int64 // the next arrival's intended start
	more     bool  // nextAt holds an arrival
	waiting  ring[int64]
	fresh    []uint32 // connections awaiting an answer that epoll does not report (poll)
	idle     ring[uint32]
	dropNext uint32 // client id a dropped call is recorded under, round robin
	lateErr  string
	fullErr  string
}

// LoopOpen implements OpenLooper with epoll on one locked OS thread: the
// loop sleeps in epoll_pwait2, to the ns, until the next intended start
// (wakes at least the plan's grain apart), starts each call due on the
// connection free longest, and reads answers at its wakes (poll).
func (h *HTTPLoop) LoopOpen(ctx context.Context, p OpenPlan, now func() int64,
	record func(client uint32, intended, start, end int64, r *Reply)) string {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer preciseTimers()()
	n := max(p.Clients, 1)
	o := &openRun{plan: p, record: record, waiting: newRing[int64](max(p.Queue, 1)), idle: newRing[uint32](n),
		lateErr: DroppedLate(p.MaxLate), fullErr: DroppedFull(max(p.Queue, 1))}
	l := h.newLoop(ctx, n)
	l.open, l.now = o, now
	defer l.closeAll()
	for i := range l.conns {
		o.idle.push(uint32(i))
	}
	o.nextAt, o.more = p.Next()
	return l.runOpen(ctx)
}

// preciseTimers asks the kernel for timers on this thread within 1 µs
// instead of its 50 µs default slack, and returns what restores it.
func preciseTimers() func() {
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil || unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0) != nil {
		return func() {}
	}
	return func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0) }
}

// runOpen is the event loop of the open model.
func (l *loop) runOpen(ctx context.Context) string {
	o := l.open
	done := ctx.Done()
	evs := make([]unix.EpollEvent, 256)
	var nextScan int64
	for {
		select {
		case <-done:
			l.cancelAll()
			o.dropAll(l, DroppedStopped)
			return "stopped"
		default:
		}
		t := l.now()
		l.wallOff = t - time.Now().UnixNano()
		o.poll(l, t)
		o.arrive(l, t)
		o.dropLate(l, t)
		for o.waiting.n > 0 && o.idle.n > 0 {
			c := &l.conns[o.idle.pop()]
			c.intended = o.waiting.pop()
			l.start(c, t)
		}
		if !o.more && t >= o.plan.End && o.waiting.n == 0 {
			l.draining = true
			if l.inflight == 0 {
				return "completed"
			}
		}
		if t >= nextScan {
			l.timeouts(t)
			nextScan = t + int64(5*time.Millisecond)
		}
		k, err := l.wait(evs, o.waitNs(l, l.now())) // now: the calls started meanwhile took time
		if err != nil && !errors.Is(err, unix.EINTR) {
			l.cancelAll()
			o.dropAll(l, DroppedStopped)
			return "stopped"
		}
		for _, ev := range evs[:max(k, 0)] {
			l.event(&l.conns[ev.Fd], ev.Events)
		}
	}
}

// arrive queues the calls due by t; a full queue gives up its oldest call
// to make room.
func (o *openRun) arrive(l *loop, t int64) {
	for o.more && o.nextAt <= t {
		if o.waiting.full() {
			o.drop(l, o.waiting.pop(), o.fullErr)
		}
		o.waiting.push(o.nextAt)
		o.nextAt, o.more = o.plan.Next()
	}
}

// dropLate gives up the waiting calls that can no longer start within
// MaxLate of their intended start.
func (o *openRun) dropLate(l *loop, t int64) {
	for o.waiting.n > 0 && t-o.waiting.peek() > int64(o.plan.MaxLate) {
		o.drop(l, o.waiting.pop(), o.lateErr)
	}
}

// dropAll gives up every waiting call.
func (o *openRun) dropAll(l *loop, why string) {
	for o.waiting.n > 0 {
		o.drop(l, o.waiting.pop(), why)
	}
}

// drop records the call due at intended as given up now.
func (o *openRun) drop(l *loop, intended int64, why string) {
	t := l.now()
	r := Reply{Status: sample.Dropped, Err: why}
	o.record(o.dropNext, intended, t, t, &r)
	o.dropNext = (o.dropNext + 1) % uint32(len(l.conns))
}

// waitNs is how long the loop may sleep at t: until the next arrival, the
// oldest waiting call's drop, the stages' end, the next poll or timeout
// scan, and at least the plan's grain. Answers epoll reports (armed
// connections) wake it sooner.
func (o *openRun) waitNs(l *loop, t int64) int64 {
	w := int64(5 * time.Millisecond)
	if o.more {
		w = min(w, o.nextAt-t)
	} else if !l.draining {
		w = min(w, o.plan.End-t)
	}
	if o.waiting.n > 0 {
		w = min(w, o.waiting.peek()+int64(o.plan.MaxLate)+1-t)
	}
	if due, ok := o.pollDue(l); ok {
		w = min(w, due-t)
	}
	return max(w, int64(o.plan.Grain))
}

// ended records c's call, ended at end, and frees its connection.
func (o *openRun) ended(c *lconn, end int64, r *Reply) {
	o.record(c.id, c.intended, c.start, end, r)
	o.idle.push(c.id)
}

// pollWindow is how long after its request the open model keeps reading a
// connection at each of its wakes before it asks epoll to report the
// answer: a quick answer costs no wake of its own. It is at least two
// grains (the plan's), so that a connection is read at a wake or two
// before it is armed.
const pollWindow = 250 * time.Microsecond

// poll reads the connections whose calls await an answer epoll does not
// report; one still unanswered pollWindow after its request is armed.
func (o *openRun) poll(l *loop, t int64) {
	keep := o.fresh[:0]
	for _, id := range o.fresh {
		c := &l.conns[id]
		if c.state != lsWaiting || c.armed || c.fd < 0 {
			continue
		}
		l.read(c, false)
		if c.state != lsWaiting {
			continue // answered, or failed
		}
		if t-c.t0 >= o.window() && l.arm(c, true) {
			continue
		}
		keep = append(keep, id)
	}
	o.fresh = keep
}

// pollDue is when poll must next run for the oldest connection it reads.
func (o *openRun) pollDue(l *loop) (int64, bool) {
	if len(o.fresh) == 0 {
		return 0, false
	}
	return l.conns[o.fresh[0]].t0 + o.window(), true
}

// window is how long a connection is read at wakes before it is armed.
func (o *openRun) window() int64 { return max(int64(pollWindow), 2*int64(o.plan.Grain)) }

// arm asks epoll to report c's input (on), or to stop (off); it reports
// whether epoll took it.
func (l *loop) arm(c *lconn, on bool) bool {
	ev := unix.EpollEvent{Events: unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(c.id)}
	if on {
		ev.Events |= unix.EPOLLIN
	}
	if unix.EpollCtl(l.ep, unix.EPOLL_CTL_MOD, c.fd, &ev) != nil {
		return false
	}
	c.armed = on
	return true
}

// recv reads c's socket into l.buf; in the open model it also notes when
// the kernel received the bytes (c.rx).
func (l *loop) recv(c *lconn) (int, error) {
	if l.open == nil {
		return rawRead(c.fd, l.buf)
	}
	n, ts, err := l.rxb.rawRecvTS(c.fd, l.buf)
	if n > 0 {
		c.rx = 0
		if ts != 0 {
			c.rx = min(max(ts+l.wallOff, c.t0+1), l.now())
		}
	}
	return n, err
}

// rxTime is when c's last bytes came: the kernel's receive time in the
// open model, else now.
func (l *loop) rxTime(c *lconn) int64 {
	if c.rx != 0 {
		return c.rx
	}
	return l.now()
}
