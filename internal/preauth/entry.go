package preauth

import (
	"container/list"
	"net"
	"net/netip"
	"time"
)

// Entry is one connection a Pool counts. Its methods may be called on a
// nil Entry (a connection the pool does not count: they do nothing).
type Entry struct {
	p         *Pool
	conn      net.Conn
	src       *source
	srcName   string
	at        time.Time     // when it was admitted
	all, mine *list.Element // in the silent lists (nil: heard from)
	held      bool          // counted in p
	evicted   bool          // closed to make room for a newer one
}

// Accepted is when the connection was admitted.
func (e *Entry) Accepted() time.Time {
	if e == nil {
		return time.Now()
	}
	return e.at
}

// Spoke records that the peer sent its first byte: its connection is no
// longer closed to make room.
func (e *Entry) Spoke() {
	if e == nil {
		return
	}
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	e.unlistLocked()
}

// Release gives the connection's place back: its peer proved itself, or
// it was closed. Calling it again does nothing.
func (e *Entry) Release() {
	if e == nil {
		return
	}
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	e.forgetLocked()
}

// Evicted reports whether the pool closed the connection to make room for
// a newer one.
func (e *Entry) Evicted() bool {
	if e == nil {
		return false
	}
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	return e.evicted
}

// unlistLocked takes e off the silent lists. Called with p.mu held.
func (e *Entry) unlistLocked() {
	if e.all != nil {
		e.p.silent.Remove(e.all)
		e.src.silent.Remove(e.mine)
		e.all, e.mine = nil, nil
	}
}

// forgetLocked stops counting e. Called with p.mu held.
func (e *Entry) forgetLocked() {
	if !e.held {
		return
	}
	e.unlistLocked()
	e.held = false
	delete(e.p.held, e)
	if e.src.n--; e.src.n == 0 {
		delete(e.p.sources, e.srcName)
	}
}

// Source is the address a peer's connections are counted under: its IP
// address (a source's connections come from many ports), IPv4 in IPv6
// unmapped.
func Source(addr net.Addr) string {
	if addr == nil {
		return "unknown"
	}
	if ap, err := netip.ParseAddrPort(addr.String()); err == nil {
		return ap.Addr().Unmap().String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}
