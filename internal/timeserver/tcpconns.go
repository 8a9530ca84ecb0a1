package timeserver

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Limits of the TCP time server's connections. A tester opens one
// connection and sends its first request at once; a connection that has
// not yet sent a whole valid request is pending, one that has is proven.
// The limits keep idle connections, the cheapest attack on a TCP server
// (issue 8 row 8: 511 held open, and a tester's connection was refused),
// from crowding out testers, while the testers of one host, who share
// one source address (50 local testers are all 127.0.0.1), are never
// refused for being many:
//
//   - a pending connection must complete its first request within
//     tcpFirstRequestTimeout, a proven one its next within tcpReadTimeout;
//   - a source holds at most maxPendingPerSource pending connections: its
//     next one closes its oldest pending one (a connection idle since it
//     was opened), never a proven one, so a source that hogs pending
//     connections loses its own, and a tester of the same source gets in
//     (a tester is pending only for the instant before its first request);
//   - maxTCPConns in all: a new connection over it closes the oldest
//     pending connection of any source, else the proven connection idle
//     the longest if idle for tcpEvictIdle at least (its tester redials
//     at its next probe: a burst survives a failed probe), else it is
//     itself closed at once.
//
// Proven connections are not capped per source: a peer that sends valid
// requests is served as a tester is, within the per-source rate limit.
type tcpLimits struct {
	maxConns         int           // connections in all
	maxPendingPerSrc int           // pending connections per source IP
	firstRequest     time.Duration // accept to first whole valid request
	idle             time.Duration // between requests of a proven connection
	evictIdle        time.Duration // a proven connection idle this long may be closed for a new one
}

// Defaults of tcpLimits.
const (
	maxTCPConns            = 512
	maxPendingPerSource    = 16
	tcpFirstRequestTimeout = 3 * time.Second
	tcpReadTimeout         = 10 * time.Second
	tcpEvictIdle           = time.Second
)

// defaultTCPLimits are the limits ServeTCP applies.
var defaultTCPLimits = tcpLimits{maxConns: maxTCPConns, maxPendingPerSrc: maxPendingPerSource,
	firstRequest: tcpFirstRequestTimeout, idle: tcpReadTimeout, evictIdle: tcpEvictIdle}

// tcpConn is one served connection as the table sees it.
type tcpConn struct {
	conn   net.Conn
	src    netip.Addr
	opened time.Time // accepted
	last   time.Time // last request (proven) or accepted (pending)
	proven bool
	closed bool // closed by the table to make room
}

// connTable tracks the open connections to enforce tcpLimits.
type connTable struct {
	lim     tcpLimits
	mu      sync.Mutex
	conns   map[*tcpConn]struct{}
	pending map[netip.Addr]int
	closed  *atomic.Uint64 // counts connections closed to make room, and refused
}

// newConnTable returns an empty table that counts the connections it
// closes or refuses in closed.
func newConnTable(lim tcpLimits, closed *atomic.Uint64) *connTable {
	return &connTable{lim: lim, conns: map[*tcpConn]struct{}{}, pending: map[netip.Addr]int{}, closed: closed}
}

// admit registers conn from src, accepted at now, making room as the
// limits say; it returns nil when conn must be closed at once.
func (t *connTable) admit(conn net.Conn, src netip.Addr, now time.Time) *tcpConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending[src] >= t.lim.maxPendingPerSrc {
		t.evict(t.oldest(func(c *tcpConn) bool { return !c.proven && c.src == src }))
	}
	if len(t.conns) >= t.lim.maxConns {
		victim := t.oldest(func(c *tcpConn) bool { return !c.proven })
		if victim == nil {
			victim = t.oldest(func(c *tcpConn) bool { return now.Sub(c.last) >= t.lim.evictIdle })
		}
		if victim == nil {
			t.closed.Add(1)
			return nil
		}
		t.evict(victim)
	}
	c := &tcpConn{conn: conn, src: src, opened: now, last: now}
	t.conns[c] = struct{}{}
	t.pending[src]++
	return c
}

// oldest returns the connection with the earliest last activity among
// those match accepts, or nil.
func (t *connTable) oldest(match func(*tcpConn) bool) *tcpConn {
	var best *tcpConn
	for c := range t.conns {
		if match(c) && (best == nil || c.last.Before(best.last)) {
			best = c
		}
	}
	return best
}

// evict closes c and forgets it.
func (t *connTable) evict(c *tcpConn) {
	if c == nil {
		return
	}
	c.closed = true
	c.conn.Close()
	t.forget(c)
	t.closed.Add(1)
}

// served records a valid request of c at now: c is proven.
func (t *connTable) served(c *tcpConn, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c.last = now
	if !c.proven && !c.closed {
		c.proven = true
		t.pending[c.src]--
		if t.pending[c.src] == 0 {
			delete(t.pending, c.src)
		}
	}
}

// done forgets c, which its goroutine has closed.
func (t *connTable) done(c *tcpConn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !c.closed {
		t.forget(c)
	}
}

// forget removes c from the table; t.mu is held.
func (t *connTable) forget(c *tcpConn) {
	if _, ok := t.conns[c]; !ok {
		return
	}
	delete(t.conns, c)
	if !c.proven {
		t.pending[c.src]--
		if t.pending[c.src] == 0 {
			delete(t.pending, c.src)
		}
	}
}

// counts returns the connections open and the pending ones of src.
func (t *connTable) counts(src netip.Addr) (open, pending int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.conns), t.pending[src]
}
