// Package preauth bounds what peers that have not proved themselves may
// hold of a server: the controller's port, a relay's, the dashboard's. A
// Pool counts the connections accepted and not yet proved (authenticated,
// or closed): at most Limits.Conns in all and Limits.PerSource from one
// source address. A new connection over either cap closes the oldest one
// that has sent nothing yet (an idle connection: a peer that means to
// join speaks first, at once), and is itself refused at once when there is
// none, never left to wait. WaitFirstByte bounds how long an accepted
// connection may stay silent.
package preauth

import (
	"container/list"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// FirstByteTimeout is how long a peer may stay silent after its
// connection was accepted: a tester sends its Hello, a browser its
// request, at once.
const FirstByteTimeout = 2 * time.Second

// ErrBusy is why a connection is refused for want of room.
var ErrBusy = errors.New("busy")

// Limits bound a Pool.
type Limits struct {
	Conns     int // connections not yet proved, in all
	PerSource int // of them from one source address
}

// evictScan is how many of the oldest silent connections Admit looks at
// for one to close: those that have in fact sent something (not yet seen
// by their goroutine) are passed over.
const evictScan = 8

// Pool counts the connections not yet proved. Safe for concurrent use.
type Pool struct {
	lim     Limits
	mu      sync.Mutex
	held    map[*Entry]struct{}
	silent  list.List // *Entry not yet heard from, oldest first
	sources map[string]*source
	closed  bool // CloseAll was called: Admit refuses
}

// source is what one source address holds.
type source struct {
	n      int
	silent list.List // its *Entry not yet heard from, oldest first
}

// NewPool makes a pool with limits lim (each at least 1).
func NewPool(lim Limits) *Pool {
	lim.Conns, lim.PerSource = max(lim.Conns, 1), max(lim.PerSource, 1)
	return &Pool{lim: lim, held: map[*Entry]struct{}{}, sources: map[string]*source{}}
}

// Held is how many connections the pool holds.
func (p *Pool) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held)
}

// CloseAll closes every connection the pool holds, and refuses those
// admitted from now on: the server is shutting down.
func (p *Pool) CloseAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for e := range p.held {
		e.conn.Close()
	}
}

// Admit counts nc, just accepted, as not yet proved. Over a cap, it first
// closes the oldest silent connection of nc's source (over the per-source
// cap) or of any source (over the total) to make room; when there is
// none, nc is refused: Admit returns an error wrapping ErrBusy, and the
// caller answers and closes nc.
func (p *Pool) Admit(nc net.Conn) (*Entry, error) {
	src := Source(nc.RemoteAddr())
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("%w: shutting down", ErrBusy)
	}
	if s := p.sources[src]; s != nil && s.n >= p.lim.PerSource && !p.evictFrom(&s.silent) {
		return nil, fmt.Errorf("%w: %d connections from %s have not proved themselves yet, the most one source may hold; try again",
			ErrBusy, s.n, src)
	}
	if n := len(p.held); n >= p.lim.Conns && !p.evictFrom(&p.silent) {
		return nil, fmt.Errorf("%w: %d connections have not proved themselves yet, the most this server holds; try again", ErrBusy, n)
	}
	s := p.sources[src]
	if s == nil {
		s = &source{}
		p.sources[src] = s
	}
	e := &Entry{p: p, conn: nc, src: s, srcName: src, at: time.Now(), held: true}
	e.all, e.mine = p.silent.PushBack(e), s.silent.PushBack(e)
	p.held[e] = struct{}{}
	s.n++
	return e, nil
}

// evictFrom closes the oldest connection of l that has sent nothing; it
// passes over those with bytes waiting (moved to the back of the silent
// lists: their goroutine will see them, or, for a connection still not
// heard from then, a later scan). False if it found none among the first
// evictScan. Called with p.mu held.
func (p *Pool) evictFrom(l *list.List) bool {
	for i, el := 0, l.Front(); i < evictScan && el != nil; i++ {
		e := el.Value.(*Entry)
		el = el.Next()
		if pending(e.conn) {
			p.silent.MoveToBack(e.all)
			e.src.silent.MoveToBack(e.mine)
			continue
		}
		e.evicted = true
		e.forgetLocked()
		e.conn.Close()
		return true
	}
	return false
}
