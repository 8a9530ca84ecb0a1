//go:build linux

package client

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

const loopSupported = true

// connection states of the event loop.
const (
	lsIdle = iota
	lsConnecting
	lsSending
	lsWaiting
)

// lconn is one client of the event loop and its connection.
type lconn struct {
	id       uint32
	fd       int // -1: no connection
	state    uint8
	reused   bool // the call runs on a connection an earlier call opened
	retried  bool // the call already re-sent once on a fresh connection
	gotByte  bool
	sent     int
	pend     []byte // bytes of the response not parsed yet
	p        respParser
	start    int64 // now() at the call's start
	deadline int64
	t0       int64 // when the request could first be written
	connect  int64 // connect phase, ns
	fb       int64 // now() at the response's first byte
	next     int64 // when the next call is due (interval)
	intended int64 // the open model's intended start of the call
	rx       int64 // the open model: kernel receive time of the last bytes read, local ns (0: none)
	armed    bool  // the open model: epoll reports the connection's input
}

// loop is one run of HTTPLoop.Loop.
type loop struct {
	h        *HTTPLoop
	ep       int
	sa       unix.Sockaddr
	saErr    error
	conns    []lconn
	ready    []uint32 // clients whose next call starts now
	due      dueHeap  // clients whose next call waits for the interval
	buf      []byte
	now      func() int64
	record   func(uint32, int64, int64, *Reply)
	interval int64
	timeout  int64
	draining bool
	inflight int
	open     *openRun // the open model (LoopOpen); nil in closed loops
	ts       unix.Timespec
	rxb      rxBuf
	wallOff  int64 // now() − wall clock, ns, as of the loop's last wake
	rawWait  bool  // wait in a raw system call (wait)
}

// Loop implements Looper with epoll on one locked OS thread.
func (h *HTTPLoop) Loop(ctx context.Context, clients int, interval time.Duration, until int64,
	now func() int64, record func(client uint32, start, end int64, r *Reply)) string {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l := h.newLoop(ctx, clients)
	l.record, l.interval = record, int64(interval)
	l.now = now
	defer l.closeAll()
	for i := range l.conns {
		l.ready = append(l.ready, uint32(i))
	}
	return l.run(ctx, until)
}

// newLoop sets up a loop of n connections: the target's address, the
// epoll instance (an error of either fails every call).
func (h *HTTPLoop) newLoop(ctx context.Context, n int) *loop {
	l := &loop{h: h, timeout: int64(h.timeout), buf: make([]byte, 64<<10), conns: make([]lconn, n),
		rawWait: runtime.GOMAXPROCS(0) > 1}
	l.sa, l.saErr = resolve(ctx, h.url.Hostname(), h.url.Port())
	var err error
	if l.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		l.ep = -1
		l.saErr = fmt.Errorf("http: epoll: %w", err)
	}
	for i := range l.conns {
		l.conns[i] = lconn{id: uint32(i), fd: -1}
	}
	return l
}

// resolve finds the target's address once per Loop.
func resolve(ctx context.Context, host, port string) (unix.Sockaddr, error) {
	if port == "" {
		port = "80"
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("http: port %q: %w", port, err)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return nil, fmt.Errorf("http: resolve %s: %w", host, err)
	}
	ip := ips[0].Unmap()
	if ip.Is4() {
		return &unix.SockaddrInet4{Port: p, Addr: ip.As4()}, nil
	}
	return &unix.SockaddrInet6{Port: p, Addr: ip.As16()}, nil
}

// run is the event loop.
func (l *loop) run(ctx context.Context, until int64) string {
	done := ctx.Done()
	evs := make([]unix.EpollEvent, 256)
	var nextScan int64
	var batch []uint32
	for {
		select {
		case <-done:
			l.cancelAll()
			return "stopped"
		default:
		}
		t := l.now()
		if !l.draining && t >= until {
			l.draining = true
		}
		for len(l.due) > 0 && l.due[0].next <= t {
			l.ready = append(l.ready, heap.Pop(&l.due).(*lconn).id)
		}
		batch, l.ready = l.ready, batch[:0]
		for _, id := range batch {
			if !l.draining {
				l.start(&l.conns[id], t)
			}
		}
		if l.draining && l.inflight == 0 {
			return "completed"
		}
		if t >= nextScan {
			l.timeouts(t)
			nextScan = t + int64(5*time.Millisecond)
		}
		k, err := l.wait(evs, l.waitNs(l.now(), until)) // now: the calls started meanwhile took time
		if err != nil && !errors.Is(err, unix.EINTR) {
			l.cancelAll()
			return "stopped"
		}
		for _, ev := range evs[:max(k, 0)] {
			l.event(&l.conns[ev.Fd], ev.Events)
		}
	}
}

// waitNs is how long epoll may wait: until the next due call, the end,
// or the next timeout scan; 0 when calls are ready.
func (l *loop) waitNs(t, until int64) int64 {
	if len(l.ready) > 0 {
		return 0
	}
	w := int64(5 * time.Millisecond)
	if len(l.due) > 0 {
		w = min(w, l.due[0].next-t)
	}
	if !l.draining {
		w = min(w, until-t)
	}
	return max(w, 0)
}

// start begins c's next call at t.
func (l *loop) start(c *lconn, t int64) {
	l.inflight++
	c.start, c.deadline, c.t0 = t, t+l.timeout, t
	c.p.reset(l.h.isHead)
	c.pend, c.connect, c.fb, c.gotByte, c.sent, c.retried, c.rx = c.pend[:0], 0, 0, false, 0, false, 0
	if c.fd < 0 {
		c.reused = false
		l.dial(c, t)
		return
	}
	c.reused, c.state = true, lsSending
	if c.armed {
		l.arm(c, false)
	}
	l.send(c)
}

// dial opens c's connection, non-blocking.
func (l *loop) dial(c *lconn, t int64) {
	if l.saErr != nil {
		l.fail(c, l.saErr)
		return
	}
	dom := unix.AF_INET
	if _, ok := l.sa.(*unix.SockaddrInet6); ok {
		dom = unix.AF_INET6
	}
	fd, err := unix.Socket(dom, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.fail(c, fmt.Errorf("http: socket: %w", err))
		return
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(c.id)}
	if l.open != nil {
		// The open model reads its responses when it wakes anyway, and
		// knows when they came from the kernel's receive time stamps.
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		ev.Events, c.armed = unix.EPOLLOUT|unix.EPOLLRDHUP|unix.EPOLLET, false
	}
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		l.fail(c, fmt.Errorf("http: epoll: %w", err))
		return
	}
	c.fd, c.state = fd, lsConnecting
	err = unix.Connect(fd, l.sa)
	switch {
	case errors.Is(err, unix.EINPROGRESS):
	case err != nil:
		l.fail(c, fmt.Errorf("http: connect: %w", err))
	default:
		l.connected(c)
	}
}

// connected records the connect phase and sends the request.
func (l *loop) connected(c *lconn) {
	t := l.now()
	c.connect += t - c.t0
	c.t0, c.state = t, lsSending
	l.send(c)
}

// send writes what is left of the request.
func (l *loop) send(c *lconn) {
	req := l.h.request
	for c.sent < len(req) {
		n, err := rawWrite(c.fd, req[c.sent:])
		if errors.Is(err, unix.EAGAIN) {
			return // EPOLLOUT resumes
		}
		if err != nil {
			l.broken(c, fmt.Errorf("http: write: %w", err))
			return
		}
		c.sent += n
	}
	c.state = lsWaiting
	if l.open != nil && !c.armed {
		l.open.fresh = append(l.open.fresh, c.id)
	}
}

// event handles epoll's news of c.
func (l *loop) event(c *lconn, ev uint32) {
	if c.state == lsConnecting {
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if e, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || e != 0 {
			l.fail(c, fmt.Errorf("http: connect: %w", errors.Join(err, errnoOrNil(e))))
			return
		}
		l.connected(c)
	}
	if c.state == lsSending && ev&unix.EPOLLOUT != 0 {
		l.send(c)
	}
	if c.fd >= 0 && ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		l.read(c, ev&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0)
	}
}

// errnoOrNil is e as an error.
func errnoOrNil(e int) error {
	if e == 0 {
		return nil
	}
	return unix.Errno(e)
}
