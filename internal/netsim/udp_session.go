package netsim

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"time"
)

// udpSession is the upstream socket serving one client source address.
type udpSession struct {
	client netip.AddrPort
	conn   *net.UDPConn
	last   atomic.Int64 // time of the last datagram either way, Unix ns
}

// touch records activity at t.
func (s *udpSession) touch(t time.Time) { s.last.Store(t.UnixNano()) }

// session returns the client's session, creating it and its upstream
// socket on first use; nil if the proxy is closed or the dial failed.
func (x *UDPProxy) session(client netip.AddrPort, now time.Time) *udpSession {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil
	}
	if s, ok := x.sessions[client]; ok {
		s.touch(now)
		return s
	}
	conn, err := net.DialUDP("udp", nil, x.upstream)
	if err != nil {
		return nil
	}
	s := &udpSession{client: client, conn: conn}
	s.touch(now)
	x.sessions[client] = s
	x.goRun(func() { x.readReplies(s) })
	return s
}

// readReplies receives the upstream's replies for one client and
// schedules them back down, until the session's socket is closed.
func (x *UDPProxy) readReplies(s *udpSession) {
	buf := make([]byte, maxDatagram)
	for {
		n, err := s.conn.Read(buf)
		now := x.cfg.clock.now()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // e.g. ECONNREFUSED from an ICMP unreachable
		}
		s.touch(now)
		if !x.down.schedule(now, s, bytes.Clone(buf[:n])) {
			x.dropped.Add(1)
		}
	}
}

// janitor closes sessions idle for longer than the configured timeout,
// looking every quarter of it.
func (x *UDPProxy) janitor() {
	every := max(x.cfg.idle/4, 10*time.Millisecond)
	w := x.cfg.clock.newWaiter(false)
	for next := x.cfg.clock.now().Add(every); w.until(next, nil, x.done); {
		now := x.cfg.clock.now()
		x.closeIdle(now)
		next = now.Add(every)
	}
}

// closeIdle closes the sessions with no traffic since now minus the timeout.
func (x *UDPProxy) closeIdle(now time.Time) {
	cutoff := now.Add(-x.cfg.idle).UnixNano()
	x.mu.Lock()
	defer x.mu.Unlock()
	for k, s := range x.sessions {
		if s.last.Load() < cutoff {
			s.conn.Close()
			delete(x.sessions, k)
		}
	}
}
