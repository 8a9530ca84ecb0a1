//go:build linux

package client

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/diperf/diperf/internal/sample"
)

// read drains c's socket (edge-triggered), feeding the parser. A read
// shorter than the buffer drained the socket: new bytes make a new edge,
// so no read is spent on EAGAIN; unless the peer has closed (hup), whose
// end of file must be read.
func (l *loop) read(c *lconn, hup bool) {
	for c.fd >= 0 {
		m, err := l.recv(c)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			l.broken(c, fmt.Errorf("http: read: %w", err))
			return
		case m == 0:
			l.eof(c)
			return
		}
		if c.state != lsWaiting && c.state != lsSending {
			l.closeFD(c) // bytes nobody asked for: the connection is unusable
			return
		}
		l.data(c, l.buf[:m])
		if m < len(l.buf) && !hup {
			return
		}
	}
}

// data parses what arrived for c's call.
func (l *loop) data(c *lconn, b []byte) {
	if !c.gotByte {
		c.gotByte, c.fb = true, l.rxTime(c)
	}
	if len(c.pend) > 0 {
		c.pend = append(c.pend, b...)
		b = c.pend
	}
	k, err := c.p.feed(b)
	if err != nil {
		l.fail(c, err)
		return
	}
	if c.p.done() {
		l.complete(c, k < len(b))
		return
	}
	rest := b[k:]
	if len(c.pend) > 0 {
		c.pend = c.pend[:copy(c.pend, rest)]
	} else {
		c.pend = append(c.pend, rest...)
	}
}

// eof handles the server's close of c's connection.
func (l *loop) eof(c *lconn) {
	if c.state != lsWaiting && c.state != lsSending {
		l.closeFD(c) // an idle keep-alive connection closed: reconnect on the next call
		return
	}
	if !c.gotByte {
		l.broken(c, errors.New("http: the server closed the connection before answering"))
		return
	}
	if err := c.p.eof(); err != nil {
		l.fail(c, err)
		return
	}
	l.complete(c, true)
}

// broken fails c's call on a connection error, except that a request on
// a reused connection the server had closed is re-sent once on a new one
// (as net/http does: the server may close an idle connection any time),
// if it may be sent twice or did not leave whole.
func (l *loop) broken(c *lconn, err error) {
	if c.reused && !c.retried && !c.gotByte && (l.h.replayable || c.state == lsSending) {
		l.closeFD(c)
		c.retried, c.reused, c.sent, c.t0 = true, false, 0, l.now()
		l.dial(c, c.t0)
		return
	}
	l.fail(c, err)
}

// complete ends c's call with the response parsed.
func (l *loop) complete(c *lconn, extra bool) {
	r := Reply{Status: sample.OK, Bytes: c.p.Body,
		Phases: sample.Phases{Connect: c.connect, FirstByte: c.fb - c.t0}}
	if !successful(l.h.desc.Success, c.p.Status) {
		r.Status, r.Err = sample.Failed, fmt.Sprintf("HTTP %d", c.p.Status)
	}
	l.finish(c, l.rxTime(c), &r, c.p.Close || extra)
}

// fail ends c's call as Failed with err, closing its connection.
func (l *loop) fail(c *lconn, err error) {
	r := Reply{Status: sample.Failed, Err: err.Error(), Bytes: c.p.Body, Phases: sample.Phases{Connect: c.connect}}
	l.finish(c, l.now(), &r, true)
}

// finish records c's call and schedules its next one.
func (l *loop) finish(c *lconn, end int64, r *Reply, closeConn bool) {
	l.inflight--
	if closeConn {
		l.closeFD(c)
	}
	c.state = lsIdle
	if l.open != nil {
		l.open.ended(c, end, r)
		return
	}
	l.record(c.id, c.start, end, r)
	if l.draining {
		return
	}
	if next := c.start + l.interval; l.interval > 0 && next > end {
		c.next = next
		heapPush(&l.due, c)
		return
	}
	l.ready = append(l.ready, c.id)
}

// timeouts ends the calls past their deadline.
func (l *loop) timeouts(t int64) {
	for i := range l.conns {
		c := &l.conns[i]
		if c.state != lsIdle && t >= c.deadline {
			r := Reply{Status: sample.Timeout, Bytes: c.p.Body, Phases: sample.Phases{Connect: c.connect},
				Err: fmt.Sprintf("http: no response within %v", time.Duration(l.timeout))}
			l.finish(c, t, &r, true)
		}
	}
}

// cancelAll records every call in flight as Cancelled.
func (l *loop) cancelAll() {
	l.draining = true
	for i := range l.conns {
		c := &l.conns[i]
		if c.state != lsIdle {
			r := Reply{Status: sample.Cancelled, Bytes: c.p.Body, Err: "cancelled"}
			l.finish(c, l.now(), &r, true)
		}
	}
}

// closeFD closes c's connection (epoll forgets it with the last close).
func (l *loop) closeFD(c *lconn) {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
}

// closeAll closes every connection and the epoll instance.
func (l *loop) closeAll() {
	for i := range l.conns {
		l.closeFD(&l.conns[i])
	}
	if l.ep >= 0 {
		unix.Close(l.ep)
	}
}
